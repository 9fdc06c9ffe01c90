#include "eval/eval_settings.h"

#include <fmt/format.h>

namespace servebench::eval {

std::string_view ProtocolName(Protocol protocol) {
  return protocol == Protocol::kLmEval ? "lm-eval" : "inferencex";
}

std::string_view EndpointName(Endpoint endpoint) {
  return endpoint == Endpoint::kCompletions ? "completions" : "chat";
}

StatusOr<Protocol> ParseProtocol(std::string_view name) {
  if (name == "lm-eval") return Protocol::kLmEval;
  if (name == "inferencex") return Protocol::kInferenceX;
  return Status::InvalidArgument(
      fmt::format("protocol '{}' is unknown; use lm-eval or inferencex", name));
}

StatusOr<Endpoint> ParseEndpoint(std::string_view name) {
  if (name == "completions") return Endpoint::kCompletions;
  if (name == "chat") return Endpoint::kChat;
  return Status::InvalidArgument(
      fmt::format("endpoint '{}' is unknown; use completions or chat", name));
}

Status Validate(const EvalSettings& s) {
  if (s.task != "gsm8k") {
    return Status::InvalidArgument(fmt::format("task '{}' is not supported; use gsm8k", s.task));
  }
  if (s.data_path.empty()) {
    return Status::InvalidArgument(
        "no test data: pass --data PATH (gsm8k test JSONL; see docs/eval.md for where to get "
        "it, or make one with `servebench eval make-synthetic`)");
  }
  if (s.num_fewshot > 0 && s.fewshot_data_path.empty()) {
    return Status::InvalidArgument(fmt::format(
        "num_fewshot = {} needs --fewshot-data PATH (the train split); or pass --num-fewshot 0",
        s.num_fewshot));
  }
  if (s.base_url.empty())
    return Status::InvalidArgument("no server: pass --base-url http(s)://HOST:PORT");
  if (s.num_concurrent == 0 || s.num_concurrent > 1024) {
    return Status::InvalidArgument(
        fmt::format("num_concurrent = {}: must be in [1, 1024]", s.num_concurrent));
  }
  if (s.max_tokens == 0) return Status::InvalidArgument("max_tokens = 0: must be >= 1");
  if (s.timeout_ms == 0) return Status::InvalidArgument("timeout_ms = 0: must be >= 1");
  return Status::Ok();
}

}  // namespace servebench::eval
