#include "trace/prompt_synthesis.h"

#include <fmt/format.h>

#include <algorithm>

#include "trace/hash_mix.h"

namespace servebench::trace {
namespace {

// Appends `count` tokens of the stream named by `stream_key`.
void AppendStream(const PromptSynthesisSettings& s, uint64_t stream_key, int64_t count,
                  std::vector<int32_t>* out) {
  const uint64_t span = static_cast<uint64_t>(s.vocab_size - s.first_token_id);
  // Token i is Mix64(stream_key + (i + 1)·γ): SplitMix64's stream from stream_key + γ.
  SplitMix64 stream(stream_key + kSplitMix64Gamma);
  for (int64_t i = 0; i < count; ++i) {
    out->push_back(
        static_cast<int32_t>(s.first_token_id + static_cast<int64_t>(stream.Next() % span)));
  }
}

}  // namespace

StatusOr<PromptLayout> LayOutPrompt(int64_t input_tokens, int64_t block_tokens, size_t num_ids) {
  PromptLayout layout;
  const int64_t m = static_cast<int64_t>(num_ids);
  layout.id_blocks = m;
  if (m == 0) {
    layout.fresh_tokens = input_tokens;
    return layout;
  }
  if (m * block_tokens <= input_tokens) {
    layout.last_block_tokens = block_tokens;
    layout.fresh_tokens = input_tokens - m * block_tokens;
    return layout;
  }
  const int64_t last = input_tokens - (m - 1) * block_tokens;
  if (last <= 0) {
    return Status::InvalidArgument(fmt::format(
        "{} hash ids of {} tokens need more than {} input tokens: the last block would hold {} "
        "tokens (must be 1..{}); at most {} ids fit",
        m, block_tokens, input_tokens, last, block_tokens,
        (input_tokens + block_tokens - 1) / block_tokens));
  }
  layout.last_block_tokens = last;
  return layout;
}

std::vector<int32_t> SynthesizePrompt(const PromptSynthesisSettings& settings, uint64_t scope,
                                      std::span<const uint64_t> hash_ids, int64_t input_tokens,
                                      int64_t block_tokens, uint64_t fresh_key) {
  std::vector<int32_t> tokens;
  tokens.reserve(static_cast<size_t>(input_tokens));
  const uint64_t base = MixInto(Mix64(settings.seed), scope);
  const int64_t m = static_cast<int64_t>(hash_ids.size());
  for (int64_t i = 0; i < m; ++i) {
    const int64_t room = input_tokens - static_cast<int64_t>(tokens.size());
    if (room <= 0) break;
    // Blocks are keyed by id alone (not position), so the stream of id k is the same in
    // every prompt of the scope; a cut last block is that stream's first tokens.
    AppendStream(settings, MixInto(base, hash_ids[static_cast<size_t>(i)]),
                 std::min(block_tokens, room), &tokens);
  }
  const int64_t fresh = input_tokens - static_cast<int64_t>(tokens.size());
  // The fresh stream is keyed apart from every id stream (ids are < 2^63 here; the
  // fresh key's stream is tagged by a distinct mix).
  AppendStream(settings, MixInto(MixInto(base, 0xf2e5a11ce0ffee00ull), fresh_key), fresh, &tokens);
  return tokens;
}

}  // namespace servebench::trace
