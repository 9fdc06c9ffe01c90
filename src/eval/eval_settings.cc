#include "eval/eval_settings.h"

#include <fmt/format.h>

#include "common/limits.h"

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
  if (s.num_concurrent == 0 || s.num_concurrent > limits::kMaxEvalConcurrency) {
    return Status::InvalidArgument(fmt::format("--num-concurrent {}: must be 1 .. {}",
                                               s.num_concurrent, limits::kMaxEvalConcurrency));
  }
  if (s.limit > limits::kMaxEvalQuestions) {
    return Status::InvalidArgument(
        fmt::format("--limit {}: must be 0 (all) .. {}", s.limit, limits::kMaxEvalQuestions));
  }
  if (s.num_fewshot > 64) {
    return Status::InvalidArgument(
        fmt::format("--num-fewshot {}: must be 0 .. 64 (gsm8k uses 5)", s.num_fewshot));
  }
  if (s.max_tokens == 0 || s.max_tokens > limits::kMaxTokensPerRequest) {
    return Status::InvalidArgument(fmt::format("--max-tokens {}: must be 1 .. {}", s.max_tokens,
                                               limits::kMaxTokensPerRequest));
  }
  auto max_ms = static_cast<uint64_t>(limits::kMaxDeadlineSeconds * 1000);
  if (s.timeout_ms == 0 || s.timeout_ms > max_ms) {
    return Status::InvalidArgument(
        fmt::format("--timeout-ms {}: must be 1 .. {} (a day)", s.timeout_ms, max_ms));
  }
  if (s.max_retries > 20) {
    return Status::InvalidArgument(
        fmt::format("--max-retries {}: must be 0 .. 20 (lm-eval uses 3)", s.max_retries));
  }
  return Status::Ok();
}

}  // namespace servebench::eval
