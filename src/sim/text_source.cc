#include "sim/text_source.h"

#include "common/splitmix64.h"

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
    const uint64_t z = SplitMix64Finalize(state_ += kSplitMix64Gamma);
    tokenizer_->AppendTokenText(static_cast<uint32_t>(z % tokenizer_->vocab_size()), out);
  }
}

}  // namespace servebench::sim
