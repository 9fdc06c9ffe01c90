// Parsing of OpenAI-compatible generation requests (/v1/completions and
// /v1/chat/completions) into what the simulated engine needs, and the
// OpenAI-shaped error body every bad request gets. Unknown fields are rejected
// (the fields accepted are OpenAI's plus vLLM's extensions; openai_request.cc
// lists them). Thread-safe (pure functions).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json_string.h"  // AppendJsonString, used by the response writers
#include "sim/kv_transfer.h"
#include "sim/tokenizer.h"

namespace servebench::sim {

enum class Endpoint { kCompletions, kChat };

struct ApiError {
  int status = 400;
  std::string type = "BadRequestError";
  std::string message;
  std::string param;  // the offending field, or empty
};

// {"error": {"message", "type", "param", "code"}}: OpenAI's error shape (vLLM's too).
std::string ErrorBody(const ApiError& error);

struct GenerationRequest {
  Endpoint endpoint = Endpoint::kCompletions;
  std::string model;
  bool stream = false;
  bool include_usage = false;     // stream_options.include_usage
  bool continuous_usage = false;  // stream_options.continuous_usage_stats
  int prompt_tokens = 0;
  std::string prompt_text;  // the prompt as text (token ids decoded), for answering mode
  // The prompt as token ids (given, or the tokenizer's; chat: the messages with their
  // template tokens), prompt_tokens of them: what the prefix cache keys.
  std::vector<uint32_t> prompt_ids;
  int max_tokens = -1;  // -1 = not given
  int min_tokens = 0;
  bool ignore_eos = false;
  std::vector<std::string> stop;
  uint64_t content_hash = 0;     // of the prompt; seeds the generated text
  std::optional<uint64_t> seed;  // request "seed"
  // Chat with `tools` and a `tool_choice` that asks for a call ("required", or a
  // named function): the function the simulated model calls (the named one, else the
  // first tool's). Empty = it answers in content ("auto" and "none" do).
  std::string tool_call_name;
  // vLLM's "kv_transfer_params" (disaggregated prefill/decode, kv_transfer.h).
  std::optional<KvTransferParams> kv_transfer;
};

// Parses `body`. On failure returns the error to send (status 400 and a message
// naming the field, the bad value and the rule).
std::optional<ApiError> ParseGenerationRequest(std::string_view body, Endpoint endpoint,
                                               const Tokenizer& tokenizer, GenerationRequest* out);

}  // namespace servebench::sim
