#include "sim/text_source.h"

namespace servebench::sim {

TextSource::TextSource(const Tokenizer* tokenizer, uint64_t seed, std::string answer)
    : tokenizer_(tokenizer), state_(seed), answer_(std::move(answer)) {
  if (!answer_.empty()) answer_pieces_ = tokenizer_->Pieces(answer_);
}

void TextSource::Next(int count, std::string* out) {
  for (int i = 0; i < count; ++i) {
    if (next_piece_ < answer_pieces_.size()) {
      out->append(answer_pieces_[next_piece_++]);
      continue;
    }
    // splitmix64
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    tokenizer_->AppendTokenText(static_cast<uint32_t>(z % tokenizer_->vocab_size()), out);
  }
}

}  // namespace servebench::sim
