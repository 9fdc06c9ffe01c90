#include "client/request_builder.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <charconv>

namespace servebench::client {
namespace {

namespace json = boost::json;

void AppendInt(std::string& out, int64_t v) {
  char buf[24];
  auto [p, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  out.append(buf, p);
}

}  // namespace

std::vector<std::string> BuildRequests(const RequestTemplate& t, std::vector<Prompt>* prompts,
                                       bool ignore_eos) {
  std::vector<std::string> requests;
  requests.reserve(prompts->size());
  for (Prompt& p : *prompts) {
    requests.push_back(BuildRequest(t, p, ignore_eos));
    std::vector<int32_t>().swap(p.token_ids);
    std::string().swap(p.text);
    std::string().swap(p.prefix_text);
    std::string().swap(p.messages_json);
  }
  return requests;
}

bool IsChatEndpoint(const BenchSettings& s) {
  return EffectiveEndpoint(s).find("chat") != std::string::npos;
}

StatusOr<RequestTemplate> MakeRequestTemplate(const BenchSettings& s, const net::Url& url,
                                              const std::string& api_key) {
  RequestTemplate t;
  t.chat = IsChatEndpoint(s);
  std::string path = url.path + EffectiveEndpoint(s);
  t.head_prefix = fmt::format(
      "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n"
      "Accept: text/event-stream\r\nConnection: keep-alive\r\nUser-Agent: servebench\r\n",
      path, url.HostHeader());
  if (!api_key.empty()) t.head_prefix += "Authorization: Bearer " + api_key + "\r\n";
  for (const auto& [k, v] : s.headers) t.head_prefix += k + ": " + v + "\r\n";

  json::object body;
  body["model"] = s.served_model_name.empty() ? s.model : s.served_model_name;
  body["stream"] = true;
  json::object stream_options{{"include_usage", true}};
  if (s.continuous_usage_stats) stream_options["continuous_usage_stats"] = true;
  body["stream_options"] = std::move(stream_options);
  if (s.temperature) body["temperature"] = *s.temperature;
  if (s.tool_call_workload) {
    body["tools"] = json::array{json::parse(kToolCallWorkloadTool)};
    body["tool_choice"] = s.tool_choice;
  }
  std::string serialized = json::serialize(body);
  t.body_prefix = serialized.substr(0, serialized.size() - 1);  // drop the closing brace
  if (!s.extra_body_json.empty()) {
    json::error_code ec;
    json::value extra = json::parse(s.extra_body_json, ec);
    if (ec || !extra.is_object()) {
      return Status::InvalidArgument("--extra-body '" + s.extra_body_json +
                                     "': must be a JSON object, e.g. '{\"top_p\": 0.9}'");
    }
    for (const auto& kv : extra.get_object()) {
      t.extra_body += ",";
      t.extra_body += json::serialize(json::string(kv.key()));
      t.extra_body += ":";
      t.extra_body += json::serialize(kv.value());
    }
  }
  return t;
}

std::string BuildRequest(const RequestTemplate& t, const Prompt& p, bool ignore_eos) {
  std::string body;
  body.reserve(t.body_prefix.size() + p.token_ids.size() * 7 + p.text.size() +
               p.prefix_text.size() + p.messages_json.size() + p.body_fields_json.size() + 128);
  body += t.body_prefix;
  if (t.chat && !p.messages_json.empty()) {
    body += ",\"messages\":";
    body += p.messages_json;
  } else if (t.chat) {
    std::string content = p.prefix_text.empty() ? p.text : p.prefix_text + " " + p.text;
    body += ",\"messages\":[{\"role\":\"user\",\"content\":";
    body += json::serialize(json::string(content));
    body += "}]";
  } else if (!p.token_ids.empty()) {
    body += ",\"prompt\":[";
    for (size_t i = 0; i < p.token_ids.size(); ++i) {
      if (i) body.push_back(',');
      AppendInt(body, p.token_ids[i]);
    }
    body += "]";
  } else {
    std::string content = p.prefix_text.empty() ? p.text : p.prefix_text + " " + p.text;
    body += ",\"prompt\":";
    body += json::serialize(json::string(content));
  }
  body += ",\"max_tokens\":";
  AppendInt(body, p.max_tokens);
  if (ignore_eos) body += ",\"ignore_eos\":true";
  body += p.body_fields_json;
  body += t.extra_body;
  body += "}";
  std::string req = t.head_prefix;
  req += "Content-Length: ";
  AppendInt(req, static_cast<int64_t>(body.size()));
  req += "\r\n\r\n";
  req += body;
  return req;
}

}  // namespace servebench::client
