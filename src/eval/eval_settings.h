// What `servebench eval` runs: one settings struct for the CLI, `servebench run`
// and tests. Defaults follow lm-evaluation-harness's gsm8k task (v3.0) and its
// local-completions client except where noted.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "net/tls_options.h"

namespace servebench::eval {

// Prompt protocol (shared reference evals.md §1-2).
enum class Protocol {
  kLmEval,      // upstream gsm8k.yaml: "Question: q\nAnswer:", stops Question:, </s>,
                // <|im_end|>; strict-match takes the FIRST "#### N"
  kInferenceX,  // InferenceX utils/evals/gsm8k.yaml: adds the "End your response with
                // ... #### [number]" line, stops </s>, <|im_end|> only, strict-match
                // takes the LAST "#### N", top_p 1, reasoning_content fallback
};
enum class Endpoint {
  kCompletions,  // POST /v1/completions, "prompt" (lm-eval local-completions)
  kChat,         // POST /v1/chat/completions, one user message holding shots + question
                 // (local-chat-completions --apply_chat_template, not multiturn)
};

struct EvalSettings {
  // ---- Task and data ----
  std::string task = "gsm8k";     // the only task so far
  std::string data_path;          // test split JSONL (question, answer "... #### N")
  std::string fewshot_data_path;  // train split JSONL; required when num_fewshot > 0
  uint32_t num_fewshot = 5;
  uint64_t fewshot_seed = 1234;  // lm-eval's fewshot_random_seed default
  uint32_t limit = 0;            // first N questions; 0 = all
  Protocol protocol = Protocol::kLmEval;
  // ---- Server ----
  std::string base_url;  // http(s)://127.0.0.1:8000 (a trailing /v1 is accepted)
  std::string model;     // the "model" field of every request
  Endpoint endpoint = Endpoint::kCompletions;
  uint32_t max_tokens = 256;     // lm-eval max_gen_toks default; InferenceX uses more
  uint64_t request_seed = 1234;  // lm-eval TemplateAPI sends seed 1234
  // ---- Client ----
  uint32_t num_concurrent = 16;     // worker threads, one keep-alive connection each
  uint32_t max_retries = 3;         // extra attempts after a failure (lm-eval default 3)
  uint64_t timeout_ms = 300'000;    // whole exchange per attempt (lm-eval 300 s); a timed-out
                                    // attempt is retried once at most (a hung server)
  uint64_t retry_backoff_ms = 250;  // first wait; doubles per retry, capped at 8 s
  bool keep_alive = true;           // false: a new connection per request
  net::TlsOptions tls;              // https:// verification (--ssl-ca-cert, --insecure)
  // ---- Output ----
  std::string output_dir;  // writes results.json and samples.jsonl; "" = none
  // Live progress on stderr (questions done, accuracy so far): redrawn on a terminal,
  // a plain line every few seconds otherwise (common/progress_line.h).
  bool progress = false;
};

// The first invalid field, naming its `servebench eval` flag, with its value and the
// allowed values (limits from common/limits.h).
Status Validate(const EvalSettings& settings);

std::string_view ProtocolName(Protocol protocol);  // "lm-eval" | "inferencex"
std::string_view EndpointName(Endpoint endpoint);  // "completions" | "chat"
StatusOr<Protocol> ParseProtocol(std::string_view name);
StatusOr<Endpoint> ParseEndpoint(std::string_view name);

}  // namespace servebench::eval
