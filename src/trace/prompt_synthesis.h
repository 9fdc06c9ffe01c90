// Prompts of exact length from hash ids (reference agentic.md §2.6), as token ids for
// /v1/completions. Given a prompt of N tokens, a trace block size B and M ids:
//
//   M = 0          N fresh tokens;
//   M·B > N        blocks 1…M−1 full, block M holds N − (M−1)·B tokens, which must lie
//                  in (0, B] (AIPerf-authored traces; Mooncake's ⌈N/512⌉ ids);
//   M·B ≤ N        M full blocks, then N − M·B fresh tokens (Weka captures).
//
// A block's tokens are a deterministic function of (seed, scope, id) only, so equal ids
// in one scope give identical token blocks wherever they appear — a shared id is a
// shared prefix to the engine. Fresh tokens come from (seed, scope, fresh key), a key
// the caller makes unique per request, so nobody else shares them. A new seed (a new
// run) changes every token: nothing cached by an earlier run is reused.
// Thread-safe (stateless after construction).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/status.h"

namespace servebench::trace {

struct PromptSynthesisSettings {
  uint64_t seed = 0;  // mixed into every token (a run's seed)
  // Token ids are drawn uniformly from [first_token_id, vocab_size): below 100 sit the
  // special tokens of common vocabularies (BOS, EOS, chat markers).
  int64_t first_token_id = 100;
  int64_t vocab_size = 32000;  // fits every model servebench serves, the sim's included
};

// How a prompt of `input_tokens` splits into id blocks and fresh tokens.
struct PromptLayout {
  int64_t id_blocks = 0;          // M
  int64_t last_block_tokens = 0;  // tokens of block M (B unless the last block is cut)
  int64_t fresh_tokens = 0;       // after the id blocks
};

// Fails with the rule when M·B > N and block M would hold N − (M−1)·B ∉ (0, B]
// tokens; the message names the counts (the caller prefixes file:line).
StatusOr<PromptLayout> LayOutPrompt(int64_t input_tokens, int64_t block_tokens, size_t num_ids);

// The token ids of one prompt: exactly `input_tokens` of them. `hash_ids` must lay
// out (LayOutPrompt) — the trace loaders check every row when loading.
std::vector<int32_t> SynthesizePrompt(const PromptSynthesisSettings& settings, uint64_t scope,
                                      std::span<const uint64_t> hash_ids, int64_t input_tokens,
                                      int64_t block_tokens, uint64_t fresh_key);

}  // namespace servebench::trace
