#include "trace/chat_prompt.h"

#include <fmt/format.h>

#include <algorithm>

#include "trace/hash_mix.h"

namespace servebench::trace {

StatusOr<std::string> ChatContent(const ChatPromptLayout& layout, uint64_t scope,
                                  std::span<const uint64_t> hash_ids, int64_t input_tokens,
                                  int64_t block_tokens, uint64_t fresh_key, std::string_view marker,
                                  int64_t adjust_words) {
  const int64_t begin = layout.head_tokens;
  const int64_t end = input_tokens - layout.tail_tokens + adjust_words;
  if (input_tokens - layout.tail_tokens <= begin || layout.words.empty()) {
    return Status::InvalidArgument(fmt::format(
        "input_length {} leaves no room for content: the chat template{} takes {} tokens "
        "(must be at least {})",
        input_tokens, marker.empty() ? "" : " and the cache-bust marker",
        layout.head_tokens + layout.tail_tokens, layout.head_tokens + layout.tail_tokens + 1));
  }
  const uint64_t base = MixInto(Mix64(layout.seed), scope);
  // Fresh words are keyed apart from every id's (the same tag as prompt_synthesis.cc).
  const uint64_t fresh = MixInto(MixInto(base, 0xf2e5a11ce0ffee00ull), fresh_key);
  const int64_t hashed =
      std::min<int64_t>(input_tokens, static_cast<int64_t>(hash_ids.size()) * block_tokens);
  const uint64_t n = layout.words.size();
  std::string text(marker);
  text.reserve(marker.size() + static_cast<size_t>(std::max<int64_t>(end - begin, 0)) * 6);
  for (int64_t p = begin; p < end; ++p) {
    uint64_t key;
    if (p < hashed) {
      // Keyed by the block's id and the offset in it, not by p: the same id is the same
      // words wherever a prompt holds it at that block.
      key = MixInto(MixInto(base, hash_ids[static_cast<size_t>(p / block_tokens)]),
                    static_cast<uint64_t>(p % block_tokens));
    } else {
      key = MixInto(fresh, static_cast<uint64_t>(p));
    }
    text += layout.words[Mix64(key) % n];
  }
  return text;
}

std::string CacheBustMarker(uint64_t run_id, uint64_t tree_index) {
  return fmt::format("[rid:{:012x}]\n\n", MixInto(run_id, tree_index) & 0xffffffffffffull);
}

}  // namespace servebench::trace
