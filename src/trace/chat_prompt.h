// Chat prompts of exact length from hash ids (docs/agentic.md, "Chat prompts"): the
// text of one user message whose chat prompt — the server's template around it —
// lays out as the token-id prompt of prompt_synthesis.h does, position for position:
//
//   [template head + cache-bust marker][block 1 ... block M][fresh][template tail]
//   0                                  H                       N − T              N
//
// Every token position p of the N-token prompt is one word: inside the id-covered
// part (p < min(N, M·B)) the word is a function of (seed, scope, the id of block
// ⌊p/B⌋, p mod B) only, so equal ids give identical text at identical positions and
// a shared id prefix is a shared token prefix through the chat template; past it the
// words are fresh (keyed by the request). The first H positions are the template's
// head and the marker and the last T the template's tail, so block boundaries sit
// where the trace puts them and the expected-hit model (expected_hits.h) needs no
// change. This holds when each word is one token and words do not merge (a word is
// " " + letters, which BPE pre-tokenizers split before); the caller checks the count
// with the server's tokenizer and passes the difference back as `adjust_words`.
// Thread-safe (pure).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace servebench::trace {

struct ChatPromptLayout {
  uint64_t seed = 0;                   // the run's seed, mixed into every word
  std::span<const std::string> words;  // one token each, every one starting with ' '
  int64_t head_tokens = 0;             // template before the content, the marker's tokens included
  int64_t tail_tokens = 0;  // template after the content (end of message, assistant header)
};

// The message content: `marker` (may be empty) and one word per content position,
// minus (or plus) `adjust_words` at the end. Fails when the template and marker leave
// no room: input_tokens < head + tail + 1.
StatusOr<std::string> ChatContent(const ChatPromptLayout& layout, uint64_t scope,
                                  std::span<const uint64_t> hash_ids, int64_t input_tokens,
                                  int64_t block_tokens, uint64_t fresh_key, std::string_view marker,
                                  int64_t adjust_words = 0);

// The cache-bust marker of one play of a tree (AIPerf `first_turn_prefix`):
// "[rid:<12 hex>]" and a blank line, from the run's id and the tree.
std::string CacheBustMarker(uint64_t run_id, uint64_t tree_index);

}  // namespace servebench::trace
