#include "sim/tokenizer.h"

namespace servebench::sim {
namespace {
constexpr size_t kMaxLetters = 6;
constexpr size_t kMaxDigits = 3;
constexpr char kConsonants[] = "bdfghjklmnprstvwz";  // 17
constexpr char kVowels[] = "aeiou";                  // 5
constexpr uint32_t kSyllables = 17 * 5;              // 85

bool IsLetter(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(unsigned char c) { return c >= '0' && c <= '9'; }
bool IsSpace(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// Length of the piece body starting at text[i] (i at a non-space character).
size_t BodyLength(std::string_view text, size_t i) {
  unsigned char c = static_cast<unsigned char>(text[i]);
  size_t j = i + 1;
  if (IsLetter(c)) {
    while (j < text.size() && j - i < kMaxLetters && IsLetter(static_cast<unsigned char>(text[j])))
      ++j;
  } else if (IsDigit(c)) {
    while (j < text.size() && j - i < kMaxDigits && IsDigit(static_cast<unsigned char>(text[j])))
      ++j;
  } else if (c >= 0x80) {
    // One UTF-8 character: the lead byte and its continuation bytes.
    while (j < text.size() && (static_cast<unsigned char>(text[j]) & 0xC0) == 0x80) ++j;
  }
  return j - i;
}

// Calls f(begin, length) for each piece.
template <typename F>
void ForEachPiece(std::string_view text, F&& f) {
  size_t i = 0;
  while (i < text.size()) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == ' ' && i + 1 < text.size() && !IsSpace(static_cast<unsigned char>(text[i + 1]))) {
      size_t len = 1 + BodyLength(text, i + 1);
      f(i, len);
      i += len;
    } else if (IsSpace(c)) {
      size_t j = i + 1;
      // A whitespace run; its last space joins the next piece when one follows.
      while (j < text.size() && IsSpace(static_cast<unsigned char>(text[j]))) ++j;
      if (j < text.size() && text[j - 1] == ' ' && j - 1 > i) --j;
      f(i, j - i);
      i = j;
    } else {
      size_t len = BodyLength(text, i);
      f(i, len);
      i += len;
    }
  }
}

uint32_t Fnv1a(std::string_view s) {
  uint32_t h = 2166136261u;
  for (unsigned char c : s) {
    h ^= c;
    h *= 16777619u;
  }
  return h;
}
}  // namespace

size_t Tokenizer::Count(std::string_view text) const {
  size_t n = 0;
  ForEachPiece(text, [&](size_t, size_t) { ++n; });
  return n;
}

std::vector<std::string_view> Tokenizer::Pieces(std::string_view text) const {
  std::vector<std::string_view> out;
  ForEachPiece(text, [&](size_t b, size_t len) { out.push_back(text.substr(b, len)); });
  return out;
}

std::vector<uint32_t> Tokenizer::Encode(std::string_view text) const {
  std::vector<uint32_t> out;
  ForEachPiece(
      text, [&](size_t b, size_t len) { out.push_back(Fnv1a(text.substr(b, len)) % vocab_size_); });
  return out;
}

void Tokenizer::AppendTokenText(uint32_t id, std::string* out) const {
  id %= vocab_size_;
  out->push_back(' ');
  // 1-3 syllables: ids below 85 get one, below 85 + 85^2 two, the rest three
  // (85 + 85^2 + 85^3 = 621,435 covers every vocabulary in the catalogue).
  uint32_t n = id;
  int syllables = 1;
  if (n >= kSyllables) {
    n -= kSyllables;
    syllables = 2;
    if (n >= kSyllables * kSyllables) {
      n -= kSyllables * kSyllables;
      syllables = 3;
    }
  }
  for (int s = 0; s < syllables; ++s) {
    uint32_t syl = n % kSyllables;
    n /= kSyllables;
    out->push_back(kConsonants[syl / 5]);
    out->push_back(kVowels[syl % 5]);
  }
}

std::string Tokenizer::Decode(const std::vector<uint32_t>& ids) const {
  std::string out;
  out.reserve(ids.size() * 6);
  for (uint32_t id : ids) AppendTokenText(id, &out);
  return out;
}

}  // namespace servebench::sim
