#include "sim/openai_request.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <set>

#include "common/splitmix64.h"

namespace servebench::sim {
namespace json = boost::json;
namespace {

// Fields of OpenAI's completion request plus vLLM's extra sampling and serving
// fields (vllm/entrypoints/openai/protocol.py). Accepted; those that change nothing
// in a simulation are ignored.
const std::set<std::string_view>& CommonFields() {
  static const std::set<std::string_view> kFields = {"model",
                                                     "stream",
                                                     "stream_options",
                                                     "max_tokens",
                                                     "min_tokens",
                                                     "ignore_eos",
                                                     "temperature",
                                                     "top_p",
                                                     "top_k",
                                                     "min_p",
                                                     "stop",
                                                     "stop_token_ids",
                                                     "n",
                                                     "seed",
                                                     "logprobs",
                                                     "presence_penalty",
                                                     "frequency_penalty",
                                                     "repetition_penalty",
                                                     "user",
                                                     "logit_bias",
                                                     "include_stop_str_in_output",
                                                     "skip_special_tokens",
                                                     "spaces_between_special_tokens",
                                                     "truncate_prompt_tokens",
                                                     "allowed_token_ids",
                                                     "kv_transfer_params",
                                                     "priority",
                                                     "request_id",
                                                     "return_tokens_as_token_ids",
                                                     "length_penalty",
                                                     "use_beam_search",
                                                     "prompt_logprobs",
                                                     "response_format",
                                                     "guided_json",
                                                     "guided_regex",
                                                     "guided_choice",
                                                     "guided_grammar",
                                                     "guided_decoding_backend",
                                                     "guided_whitespace_pattern",
                                                     "structured_outputs",
                                                     "vllm_xargs",
                                                     "cache_salt",
                                                     "kv_transfer_params",
                                                     "bad_words",
                                                     "return_token_ids",
                                                     "add_special_tokens",
                                                     "metadata",
                                                     "store",
                                                     "service_tier",
                                                     "best_of",
                                                     "echo",
                                                     "suffix",
                                                     "prompt_embeds",
                                                     "detokenize",
                                                     "extra_body",
                                                     "thinking_token_budget"};
  return kFields;
}
const std::set<std::string_view>& ChatOnlyFields() {
  static const std::set<std::string_view> kFields = {"messages",
                                                     "max_completion_tokens",
                                                     "tools",
                                                     "tool_choice",
                                                     "parallel_tool_calls",
                                                     "chat_template",
                                                     "chat_template_kwargs",
                                                     "add_generation_prompt",
                                                     "continue_final_message",
                                                     "documents",
                                                     "reasoning_effort",
                                                     "include_reasoning",
                                                     "modalities",
                                                     "audio",
                                                     "prediction",
                                                     "top_logprobs",
                                                     "function_call",
                                                     "functions",
                                                     "mm_processor_kwargs",
                                                     "web_search_options"};
  return kFields;
}

ApiError Bad(std::string message, std::string param = "") {
  ApiError e;
  e.message = std::move(message);
  e.param = std::move(param);
  return e;
}

std::optional<ApiError> ReadInt(const json::object& o, const char* key, int lo, int* out) {
  auto it = o.find(key);
  if (it == o.end() || it->value().is_null()) return std::nullopt;
  if (!it->value().is_int64() && !it->value().is_uint64()) {
    return Bad(fmt::format("'{}' must be an integer, got {}", key, json::serialize(it->value())),
               key);
  }
  int64_t v = it->value().is_int64() ? it->value().as_int64()
                                     : static_cast<int64_t>(it->value().as_uint64());
  if (v < lo || v > (1 << 30)) return Bad(fmt::format("'{}' = {}: must be >= {}", key, v, lo), key);
  *out = static_cast<int>(v);
  return std::nullopt;
}

std::optional<ApiError> ReadBool(const json::object& o, const char* key, bool* out) {
  auto it = o.find(key);
  if (it == o.end() || it->value().is_null()) return std::nullopt;
  if (!it->value().is_bool()) return Bad(fmt::format("'{}' must be true or false", key), key);
  *out = it->value().as_bool();
  return std::nullopt;
}

// A token-id list: every element a non-negative integer.
bool IsTokenList(const json::array& a) {
  for (const auto& v : a) {
    if (!(v.is_int64() && v.as_int64() >= 0) && !v.is_uint64()) return false;
  }
  return true;
}

std::optional<ApiError> ReadPrompt(const json::value& p, const Tokenizer& tok,
                                   GenerationRequest* out) {
  if (p.is_string()) {
    std::string_view text = p.as_string();
    out->prompt_ids = tok.Encode(text);
    out->prompt_tokens = static_cast<int>(out->prompt_ids.size());
    out->prompt_text = std::string(text);
    return std::nullopt;
  }
  if (p.is_array()) {
    const json::array& a = p.as_array();
    if (a.empty()) return Bad("'prompt' is empty", "prompt");
    if (IsTokenList(a)) {
      std::vector<uint32_t> ids;
      ids.reserve(a.size());
      for (const auto& v : a) {
        uint64_t id = v.is_uint64() ? v.as_uint64() : static_cast<uint64_t>(v.as_int64());
        if (id >= tok.vocab_size()) {
          return Bad(fmt::format("token id {} in 'prompt' is out of vocabulary (size {})", id,
                                 tok.vocab_size()),
                     "prompt");
        }
        ids.push_back(static_cast<uint32_t>(id));
      }
      out->prompt_tokens = static_cast<int>(ids.size());
      out->prompt_text = tok.Decode(ids);
      out->prompt_ids = std::move(ids);
      return std::nullopt;
    }
    if (a.size() == 1) return ReadPrompt(a[0], tok, out);  // a batch of one
    return Bad(
        "'prompt' as a batch of several prompts is not supported (n=1, one prompt per request)",
        "prompt");
  }
  return Bad("'prompt' must be a string, a list of token ids, or a list holding one of those",
             "prompt");
}

// Chat prompt: each message costs its content tokens plus 4 (role header and end
// marker), plus 3 for the assistant header the template appends (documented rule).
std::optional<ApiError> ReadMessages(const json::value& m, const Tokenizer& tok,
                                     GenerationRequest* out) {
  if (!m.is_array() || m.as_array().empty())
    return Bad("'messages' must be a non-empty list", "messages");
  int tokens = 3;
  std::string text;
  for (const auto& v : m.as_array()) {
    if (!v.is_object())
      return Bad("each message must be an object with 'role' and 'content'", "messages");
    const json::object& msg = v.as_object();
    auto role = msg.find("role");
    if (role == msg.end() || !role->value().is_string())
      return Bad("a message lacks a string 'role'", "messages");
    auto content = msg.find("content");
    std::string body;
    if (content != msg.end() && content->value().is_string()) {
      body = std::string(content->value().as_string());
    } else if (content != msg.end() && content->value().is_array()) {
      for (const auto& part : content->value().as_array()) {
        if (part.is_object()) {
          auto t = part.as_object().find("text");
          if (t != part.as_object().end() && t->value().is_string())
            body += std::string(t->value().as_string());
        }
      }
    } else if (content != msg.end() && !content->value().is_null()) {
      return Bad("message 'content' must be a string or a list of parts", "messages");
    }
    // The template's 4 tokens per message, keyed by role, then the content's.
    const uint32_t role_id = static_cast<uint32_t>(
        std::hash<std::string_view>{}(role->value().as_string()) % tok.vocab_size());
    out->prompt_ids.insert(out->prompt_ids.end(), {1u, role_id, 2u, 3u});
    const std::vector<uint32_t> content_ids = tok.Encode(body);
    out->prompt_ids.insert(out->prompt_ids.end(), content_ids.begin(), content_ids.end());
    tokens += 4 + static_cast<int>(content_ids.size());
    text += body;
    text += '\n';
  }
  out->prompt_ids.insert(out->prompt_ids.end(), {1u, 4u, 2u});  // the assistant header
  out->prompt_tokens = tokens;
  out->prompt_text = std::move(text);
  return std::nullopt;
}

// `tools` (a list of {"type": "function", "function": {"name": ...}}) and
// `tool_choice` ("none", "auto", "required" or {"type": "function", "function":
// {"name": ...}} naming one of the tools). Sets tool_call_name when a call is asked for.
std::optional<ApiError> ReadTools(const json::object& o, GenerationRequest* out) {
  std::vector<std::string_view> names;
  if (auto t = o.find("tools"); t != o.end() && !t->value().is_null()) {
    if (!t->value().is_array()) return Bad("'tools' must be a list of tool objects", "tools");
    for (const json::value& tool : t->value().as_array()) {
      const json::object* to = tool.if_object();
      const json::value* type = to ? to->if_contains("type") : nullptr;
      const json::value* fn = to ? to->if_contains("function") : nullptr;
      const json::value* name =
          fn && fn->is_object() ? fn->as_object().if_contains("name") : nullptr;
      if (type == nullptr || !type->is_string() || type->as_string() != "function" ||
          name == nullptr || !name->is_string() || name->as_string().empty()) {
        return Bad(fmt::format("'tools' entry {}: must be {{\"type\": \"function\", "
                               "\"function\": {{\"name\": \"...\"}}}}",
                               json::serialize(tool).substr(0, 200)),
                   "tools");
      }
      names.push_back(name->as_string());
    }
  }
  auto choice = o.find("tool_choice");
  if (choice == o.end() || choice->value().is_null()) return std::nullopt;
  const json::value& c = choice->value();
  if (c.is_string() && (c.as_string() == "none" || c.as_string() == "auto")) return std::nullopt;
  if (names.empty())
    return Bad("'tool_choice' asks for a tool call but 'tools' is empty", "tool_choice");
  if (c.is_string() && c.as_string() == "required") {
    out->tool_call_name = std::string(names.front());
    return std::nullopt;
  }
  const json::value* fn = c.is_object() ? c.as_object().if_contains("function") : nullptr;
  const json::value* name = fn && fn->is_object() ? fn->as_object().if_contains("name") : nullptr;
  if (name == nullptr || !name->is_string()) {
    return Bad(fmt::format("'tool_choice' {}: must be \"none\", \"auto\", \"required\" or "
                           "{{\"type\": \"function\", \"function\": {{\"name\": ...}}}}",
                           json::serialize(c).substr(0, 200)),
               "tool_choice");
  }
  for (std::string_view n : names) {
    if (n == name->as_string()) {
      out->tool_call_name = std::string(n);
      return std::nullopt;
    }
  }
  return Bad(fmt::format("'tool_choice' names function '{}', which is not in 'tools'",
                         std::string_view(name->as_string())),
             "tool_choice");
}

}  // namespace

std::string ErrorBody(const ApiError& e) {
  std::string out = "{\"error\":{\"message\":";
  AppendJsonString(&out, e.message);
  out += ",\"type\":";
  AppendJsonString(&out, e.type);
  out += ",\"param\":";
  if (e.param.empty()) {
    out += "null";
  } else {
    AppendJsonString(&out, e.param);
  }
  fmt::format_to(std::back_inserter(out), ",\"code\":{}}}}}", e.status);
  return out;
}

std::optional<ApiError> ParseGenerationRequest(std::string_view body, Endpoint endpoint,
                                               const Tokenizer& tok, GenerationRequest* out) {
  out->endpoint = endpoint;
  json::value root;
  {
    boost::system::error_code ec;
    root = json::parse(body, ec);
    if (ec) return Bad(fmt::format("malformed JSON body: {}", ec.message()));
  }
  if (!root.is_object()) return Bad("the request body must be a JSON object");
  const json::object& o = root.as_object();
  for (const auto& kv : o) {
    std::string_view k = kv.key();
    bool known = CommonFields().count(k) ||
                 (endpoint == Endpoint::kChat ? ChatOnlyFields().count(k) : k == "prompt");
    if (!known) {
      return Bad(
          fmt::format("unknown field '{}' (not an OpenAI or vLLM request field for this endpoint)",
                      k),
          std::string(k));
    }
  }
  auto model = o.find("model");
  if (model != o.end() && model->value().is_string())
    out->model = std::string(model->value().as_string());
  else if (model != o.end() && !model->value().is_null())
    return Bad("'model' must be a string", "model");

  if (endpoint == Endpoint::kCompletions) {
    auto p = o.find("prompt");
    if (p == o.end()) return Bad("'prompt' is required", "prompt");
    if (auto e = ReadPrompt(p->value(), tok, out)) return e;
  } else {
    auto m = o.find("messages");
    if (m == o.end()) return Bad("'messages' is required", "messages");
    if (auto e = ReadMessages(m->value(), tok, out)) return e;
  }
  out->content_hash = Fnv1a64(out->prompt_text);

  if (auto e = ReadBool(o, "stream", &out->stream)) return e;
  auto so = o.find("stream_options");
  if (so != o.end() && !so->value().is_null()) {
    if (!so->value().is_object())
      return Bad("'stream_options' must be an object", "stream_options");
    const json::object& s = so->value().as_object();
    for (const auto& kv : s) {
      if (kv.key() != "include_usage" && kv.key() != "continuous_usage_stats") {
        return Bad(fmt::format("unknown field 'stream_options.{}'", std::string_view(kv.key())),
                   "stream_options");
      }
    }
    if (auto e = ReadBool(s, "include_usage", &out->include_usage)) return e;
    if (auto e = ReadBool(s, "continuous_usage_stats", &out->continuous_usage)) return e;
    if (!out->stream)
      return Bad("'stream_options' is only allowed when 'stream' is true", "stream_options");
  }
  if (auto e = ReadInt(o, "max_tokens", 1, &out->max_tokens)) return e;
  if (endpoint == Endpoint::kChat) {
    if (auto e = ReadInt(o, "max_completion_tokens", 1, &out->max_tokens)) return e;
  }
  if (auto e = ReadInt(o, "min_tokens", 0, &out->min_tokens)) return e;
  if (auto e = ReadBool(o, "ignore_eos", &out->ignore_eos)) return e;
  int n = 1;
  if (auto e = ReadInt(o, "n", 1, &n)) return e;
  if (n != 1) return Bad(fmt::format("'n' = {}: only n = 1 is supported", n), "n");
  int best_of = 1;
  if (auto e = ReadInt(o, "best_of", 1, &best_of)) return e;
  if (best_of != 1)
    return Bad(fmt::format("'best_of' = {}: only 1 is supported", best_of), "best_of");
  auto temp = o.find("temperature");
  if (temp != o.end() && !temp->value().is_null()) {
    if (!temp->value().is_number()) return Bad("'temperature' must be a number", "temperature");
    double t = temp->value().to_number<double>();
    if (t < 0) return Bad(fmt::format("'temperature' = {}: must be >= 0", t), "temperature");
  }
  auto stop = o.find("stop");
  if (stop != o.end() && !stop->value().is_null()) {
    if (stop->value().is_string()) {
      if (!stop->value().as_string().empty()) out->stop.emplace_back(stop->value().as_string());
    } else if (stop->value().is_array()) {
      for (const auto& s : stop->value().as_array()) {
        if (!s.is_string()) return Bad("'stop' must be a string or a list of strings", "stop");
        if (!s.as_string().empty()) out->stop.emplace_back(s.as_string());
      }
    } else {
      return Bad("'stop' must be a string or a list of strings", "stop");
    }
  }
  auto seed = o.find("seed");
  if (seed != o.end() && !seed->value().is_null()) {
    if (seed->value().is_int64())
      out->seed = static_cast<uint64_t>(seed->value().as_int64());
    else if (seed->value().is_uint64())
      out->seed = seed->value().as_uint64();
    else
      return Bad("'seed' must be an integer", "seed");
  }
  if (endpoint == Endpoint::kChat) {
    if (auto e = ReadTools(o, out)) return e;
  }
  if (auto kv = o.find("kv_transfer_params"); kv != o.end() && !kv->value().is_null()) {
    std::string error;
    out->kv_transfer = ParseKvTransferParams(kv->value(), &error);
    if (!out->kv_transfer) return Bad(error, "kv_transfer_params");
  }
  if (out->max_tokens > 0 && out->min_tokens > out->max_tokens) {
    return Bad(fmt::format("'min_tokens' = {} exceeds 'max_tokens' = {}", out->min_tokens,
                           out->max_tokens),
               "min_tokens");
  }
  return std::nullopt;
}

}  // namespace servebench::sim
