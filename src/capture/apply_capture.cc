#include "capture/apply_capture.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cstdlib>

#include "engine/adapter.h"
#include "recipe/agentic_trace.h"

namespace servebench::capture {
namespace {

using recipe::AcceptanceMode;
using recipe::SpecMethod;

// The value after `flag` (`flag V` or `flag=V`); nullopt when absent.
std::optional<std::string> Flag(const std::vector<std::string>& argv, const std::string& flag) {
  for (size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] == flag && i + 1 < argv.size()) return argv[i + 1];
    if (argv[i].rfind(flag + "=", 0) == 0) return argv[i].substr(flag.size() + 1);
  }
  return std::nullopt;
}

bool Has(const std::vector<std::string>& argv, const std::string& flag) {
  for (const auto& a : argv)
    if (a == flag) return true;
  return false;
}

std::optional<double> Number(const std::string& text) {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end == nullptr || *end != '\0') return std::nullopt;
  return v;
}

std::string JsonText(const boost::json::value& v) {
  if (v.is_string()) return std::string(v.get_string());
  return boost::json::serialize(v);
}

// vLLM's --speculative-config: one JSON object, or dotted --speculative-config.KEY V.
std::optional<boost::json::object> VllmSpecConfig(const std::vector<std::string>& argv) {
  if (auto json = Flag(argv, "--speculative-config")) {
    boost::system::error_code ec;
    boost::json::value v = boost::json::parse(*json, ec);
    if (!ec && v.is_object()) return v.as_object();
    return std::nullopt;
  }
  boost::json::object dotted;
  const std::string prefix = "--speculative-config.";
  for (size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i].rfind(prefix, 0) != 0) continue;
    std::string key = argv[i].substr(prefix.size());
    auto n = Number(argv[i + 1]);
    if (n)
      dotted[key] = *n;
    else
      dotted[key] = argv[i + 1];
  }
  if (dotted.empty()) return std::nullopt;
  return dotted;
}

void FromVllm(const boost::json::object& config, recipe::SpecDecoding* spec) {
  recipe::SpecDecoding out = *spec;
  out.extra.clear();
  out.draft_model.clear();
  std::string method;
  for (const auto& kv : config) {
    const std::string k(kv.key());
    const boost::json::value& value = kv.value();
    if (k == "method") {
      method = JsonText(value);
    } else if (k == "model") {
      out.draft_model = JsonText(value);
    } else if (k == "num_speculative_tokens" && value.is_number()) {
      out.num_speculative_tokens = static_cast<int>(value.to_number<double>());
    } else if (k == "synthetic_acceptance_length" && value.is_number()) {
      out.synthetic_acceptance_length = value.to_number<double>();
    } else if (k == "rejection_sample_method") {
      if (JsonText(value) != "synthetic") out.extra[k] = JsonText(value);
    } else {
      out.extra[k] = JsonText(value);
    }
  }
  bool synthetic = config.contains("rejection_sample_method") &&
                   JsonText(config.at("rejection_sample_method")) == "synthetic";
  out.acceptance = synthetic ? AcceptanceMode::kSyntheticTarget : AcceptanceMode::kReal;
  if (!synthetic) out.synthetic_acceptance_length = 0;
  out.golden_table.clear();
  out.golden_model.clear();
  if (method == "eagle3") {
    out.method = SpecMethod::kEagle3;
  } else if (method == "eagle") {
    out.method = SpecMethod::kEagle;
  } else if (method == "ngram") {
    out.method = SpecMethod::kNgram;
  } else if (method == "draft_model") {
    out.method = SpecMethod::kDraftModel;
  } else if (method.empty() && !out.draft_model.empty()) {
    out.method = SpecMethod::kDraftModel;
  } else {
    // mtp and the model-specific MTP variants (deepseek_mtp, ...), DSpark: all MTP
    // to InferenceX; the engine's own name stays in extra.
    out.method = SpecMethod::kMtp;
    if (!method.empty() && method != "mtp") out.extra["method"] = method;
  }
  // Only eagle, eagle3 and draft_model name a draft model (recipe/point.h); any
  // other method's model stays with the engine's extras.
  bool drafts = out.method == SpecMethod::kEagle || out.method == SpecMethod::kEagle3 ||
                out.method == SpecMethod::kDraftModel;
  if (!drafts && !out.draft_model.empty()) {
    out.extra["model"] = out.draft_model;
    out.draft_model.clear();
  }
  *spec = out;
}

void FromSglang(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                recipe::SpecDecoding* spec) {
  auto algorithm = Flag(argv, "--speculative-algorithm");
  if (!algorithm) return;
  recipe::SpecDecoding out = *spec;
  out.extra.clear();
  out.draft_model = Flag(argv, "--speculative-draft-model-path").value_or("");
  if (auto steps = Flag(argv, "--speculative-num-steps"); steps && Number(*steps))
    out.num_speculative_tokens = static_cast<int>(*Number(*steps));
  for (const char* key : {"--speculative-eagle-topk", "--speculative-num-draft-tokens"})
    if (auto v = Flag(argv, key)) out.extra[std::string(key).substr(2)] = *v;
  const std::string& a = *algorithm;
  out.method = a == "EAGLE3"                              ? SpecMethod::kEagle3
               : a == "EAGLE" && !out.draft_model.empty() ? SpecMethod::kEagle
               : a == "STANDALONE"                        ? SpecMethod::kDraftModel
               : a == "NGRAM"                             ? SpecMethod::kNgram
                                                          : SpecMethod::kMtp;
  if (out.method == SpecMethod::kMtp && a != "NEXTN" && a != "EAGLE") out.extra["algorithm"] = a;
  out.acceptance = AcceptanceMode::kReal;
  out.synthetic_acceptance_length = 0;
  out.golden_table.clear();
  out.golden_model.clear();
  if (auto al = env.find("SGLANG_SIMULATE_ACC_LEN"); al != env.end() && Number(al->second)) {
    out.acceptance = AcceptanceMode::kSyntheticTarget;
    out.synthetic_acceptance_length = *Number(al->second);
  }
  *spec = out;
}

bool IsBenchServing(const std::vector<std::string>& argv) {
  if (argv.empty()) return false;
  if (argv[0] == "vllm") return argv.size() > 2 && argv[1] == "bench" && argv[2] == "serve";
  for (const auto& a : argv)
    if (a.size() >= 20 && a.compare(a.size() - 20, 20, "benchmark_serving.py") == 0) return true;
  return false;
}

bool IsAiperfProfile(const std::vector<std::string>& argv) {
  if (argv.size() < 2 || argv[1] != "profile") return false;
  const std::string& tool = argv[0];
  return tool == "aiperf" || (tool.size() > 7 && tool.compare(tool.size() - 7, 7, "/aiperf") == 0);
}

// An agentic client (InferenceX's build_replay_cmd: `aiperf profile --scenario
// inferencex-agentx-mvp ...`): its concurrency (the lanes) and duration become the
// load; its lane settings are compared with servebench's, which every agentic point
// replays with (recipe/agentic_trace.h), and each that differs is noted.
std::vector<std::string> ApplyAgenticClient(const std::vector<std::string>& argv,
                                            recipe::LoadSpec* load) {
  std::vector<std::string> notes;
  if (auto v = Flag(argv, "--concurrency"); v && Number(*v))
    load->concurrency = static_cast<int>(*Number(*v));
  if (auto v = Flag(argv, "--benchmark-duration"); v && Number(*v))
    load->duration_s = static_cast<int>(*Number(*v));
  const recipe::AgenticLaneSettings& lanes = recipe::kInferenceXAgenticLanes;
  const std::pair<const char*, double> kept[] = {
      {"--random-seed", static_cast<double>(lanes.seed)},
      {"--trace-idle-gap-cap-seconds", lanes.trace_idle_gap_cap_s},
      {"--trajectory-start-min-ratio", lanes.trajectory_start_min_ratio},
      {"--trajectory-start-max-ratio", lanes.trajectory_start_max_ratio},
      {"--warmup-requests-per-lane", static_cast<double>(lanes.warmup_requests_per_lane)}};
  for (const auto& [flag, ours] : kept) {
    auto v = Flag(argv, flag);
    if (!v) continue;
    if (!Number(*v) || *Number(*v) != ours)
      notes.push_back(
          fmt::format("client {} {} differs from servebench's agentic lanes, which "
                      "replay with {}",
                      flag, *v, engine::FormatDecimal(ours)));
  }
  if (auto v = Flag(argv, "--scenario"); v && *v != "inferencex-agentx-mvp")
    notes.push_back(
        fmt::format("client --scenario {} is not carried: servebench replays as "
                    "inferencex-agentx-mvp does (system idle cap {} s)",
                    *v, engine::FormatDecimal(lanes.system_idle_gap_cap_s)));
  if (auto v = Flag(argv, "--failed-request-threshold"))
    notes.push_back("client --failed-request-threshold " + *v +
                    " is not carried: servebench records every failed request and judges "
                    "validity after the run");
  return notes;
}

}  // namespace

void DescribeSpec(const std::vector<std::string>& argv,
                  const std::map<std::string, std::string>& env, recipe::SpecDecoding* spec) {
  if (auto config = VllmSpecConfig(argv)) {
    FromVllm(*config, spec);
    return;
  }
  FromSglang(argv, env, spec);
}

std::vector<std::string> ApplyClient(const std::vector<std::string>& argv, recipe::LoadSpec* load) {
  if (IsAiperfProfile(argv)) return ApplyAgenticClient(argv, load);
  std::vector<std::string> notes;
  if (!IsBenchServing(argv)) return notes;
  auto integer = [&](const char* flag, int* out) {
    if (auto v = Flag(argv, flag); v && Number(*v)) *out = static_cast<int>(*Number(*v));
  };
  integer("--random-input-len", &load->isl);
  integer("--random-output-len", &load->osl);
  integer("--num-prompts", &load->num_prompts);
  integer("--num-warmups", &load->num_warmups);
  integer("--max-concurrency", &load->concurrency);
  if (auto v = Flag(argv, "--random-range-ratio"); v && Number(*v))
    load->random_range_ratio = *Number(*v);
  if (auto v = Flag(argv, "--request-rate"))
    load->request_rate_per_s = *v == "inf" ? 0 : Number(*v).value_or(0);
  load->warmups_per_concurrency = 0;
  if (load->concurrency > 0 && load->num_warmups > 0 &&
      load->num_warmups % load->concurrency == 0) {
    // InferenceX warms up with 2 × CONC: said per concurrency, the session is shared.
    load->warmups_per_concurrency = load->num_warmups / load->concurrency;
    load->num_warmups = 0;
  }
  load->ignore_eos = Has(argv, "--ignore-eos");
  if (auto v = Flag(argv, "--dataset-name")) load->dataset = *v;
  if (auto v = Flag(argv, "--dataset-path")) load->dataset_path = *v;
  std::string backend = Flag(argv, "--backend").value_or("openai");
  bool chat = backend == "openai-chat" || Has(argv, "--use-chat-template") || Has(argv, "--dsv4");
  load->backend = chat ? "openai-chat" : "openai";
  load->endpoint = chat ? "/v1/chat/completions" : "/v1/completions";
  if (auto v = Flag(argv, "--endpoint")) load->endpoint = *v;
  if (Has(argv, "--dsv4"))
    notes.push_back(
        "client --dsv4 (DeepSeek-V4's own prompt encoding) is not carried: the "
        "server's chat template formats prompts instead");
  for (const char* flag : {"--trust-remote-code", "--tokenizer", "--tokenizer-mode", "--profile"})
    if (Has(argv, flag) || Flag(argv, flag))
      notes.push_back(
          fmt::format("client {} is not carried: servebench counts tokens with the "
                      "server's tokenizer (/tokenize), it loads none itself",
                      flag));
  return notes;
}

std::vector<std::string> ApplyCapture(const LaunchCapture& capture, recipe::Point* point) {
  recipe::ServeSpec& s = point->serve;
  s.command.argv = capture.argv;
  s.command.port = capture.port;
  s.command.files = capture.files;
  s.command.folder = capture.folder;
  s.command.auxiliary = capture.auxiliary;
  s.command.router = capture.router;
  s.command.source = "inferencex:" + capture.script;
  s.env = capture.env;
  s.env_from = capture.env_from;
  // The captured values are shown: a secret never reaches capture.env (it becomes
  // env_from, launch_capture.h), so what is left is the script's own configuration.
  point->env_not_secret.clear();
  for (const auto& entry : capture.env) point->env_not_secret.push_back(entry.first);
  for (const auto& aux : capture.auxiliary)
    for (const auto& entry : aux.env)
      if (capture.env.count(entry.first) == 0) point->env_not_secret.push_back(entry.first);
  for (const auto& entry : capture.router.env)
    if (capture.env.count(entry.first) == 0) point->env_not_secret.push_back(entry.first);
  std::sort(point->env_not_secret.begin(), point->env_not_secret.end());
  point->env_not_secret.erase(
      std::unique(point->env_not_secret.begin(), point->env_not_secret.end()),
      point->env_not_secret.end());
  s.prepare = capture.prepare;
  s.extra_args.clear();
  DescribeSpec(capture.argv, capture.env, &s.spec);
  if (auto model = Flag(capture.client_argv, "--model"); model && *model != s.model)
    s.served_model_name = *model;
  return ApplyClient(capture.client_argv, &point->load);
}

}  // namespace servebench::capture
