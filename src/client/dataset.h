// Prompt datasets (vLLM names): "random" (token ids for /v1/completions, text for
// chat), random with a shared prefix (--random-prefix-len), "prefix_repetition" (a
// prefix pool, prefix_pool.h), "custom" JSONL, "sharegpt" JSON, and the conversation
// files "speed_bench" and "spec_bench" (conversation_dataset.h). Deterministic for a
// seed. Warm-up prompts are drawn after the measured ones so they never repeat a
// measured prompt (prefix caching would otherwise flatter the first measured requests).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "client/client_settings.h"
#include "common/status.h"

namespace servebench::client {

struct Prompt {
  std::vector<int32_t> token_ids;  // set for token-id prompts (random, completions)
  std::string text;                // set for text prompts
  std::string prefix_text;         // shared prefix as text (chat), empty when none
  // Chat: the whole message array as JSON (a text trace's turn); empty = one user
  // message holding prefix_text and text.
  std::string messages_json;
  std::string body_fields_json;      // more body fields, `,"k":v...` (a dag_jsonl turn's)
  int64_t prompt_tokens = 0;         // the client's count (exact for token ids)
  bool prompt_tokens_exact = false;  // from ids or the server's /tokenize
  int64_t max_tokens = 0;
  int component = -1;    // its ISL/OSL mixture component (length_mixture.h); -1 = none
  std::string category;  // speed_bench / spec_bench: its row's category; "" otherwise
  // Prefix pools (prefix_pool.h): the pool prefix it carries (-1 = none or its own) and
  // that prefix's tokens (exact for ids, the server's count for text).
  int prefix_group = -1;
  int64_t prefix_tokens = 0;
};

// Counts tokens of `text` with the server's tokenizer, or nullopt when the server
// has none (then text lengths are estimated and recorded as such).
using TokenCounter = std::function<std::optional<int64_t>(const std::string& text)>;

struct PromptSet {
  std::vector<Prompt> measured;
  std::vector<Prompt> warmups;
  // Sent after the warm-ups (and the cache reset), before the measured phase, not
  // measured: one prompt per pool prefix of a prefix pool, so it is cached (prefix_pool.h).
  std::vector<Prompt> primers;
  std::string note;  // how lengths were made (recorded in the result)
  // speed_bench / spec_bench: the rows the file held for the subset and category, and
  // how many of them had follow-up turns, which are not sent (conversation_dataset.h).
  int64_t conversation_rows = 0;
  int64_t multi_turn_rows = 0;
};

// Builds num_prompts + num_warmups prompts. `count_tokens` may be empty.
// Fails with the file, line and rule for an unreadable or malformed dataset file.
StatusOr<PromptSet> MakePrompts(const BenchSettings& settings, bool chat,
                                const TokenCounter& count_tokens);

// Makes a text of exactly `target` tokens by the server's count (random words, fitted
// with `count`; without it one word per token, an estimate). Sets p.text,
// p.prompt_tokens and p.prompt_tokens_exact.
void FitText(std::mt19937_64& rng, int64_t target, const TokenCounter& count, Prompt& p);

// Input/output length of prompt i under the range-ratio semantics (exposed for tests).
int64_t SampleLength(int64_t base, double ratio, RangeRatioSemantics semantics,
                     uint64_t random_bits);

}  // namespace servebench::client
