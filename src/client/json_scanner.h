// ScanJson: a validating, event-driven JSON reader for the client's per-event hot
// path (ReadChunk, chunk_reader.h). Every stream event of every request is one small
// JSON object, and reading it is most of the client's CPU per event. This reader does
// one forward pass over a whole document (no resumable input, no string parts), keeps
// its cursor in locals, skips string bytes 16 at a time, reads eight digits at once,
// and decodes a string only when the handler asks for its characters: about 1.2x
// Boost.JSON's SAX parser on the sim's chunks (docs/bench.md, "The chunk scanner").
//
// It accepts what Boost.JSON's parser accepts with its default options
// (RFC 8259; no comments, no trailing commas; UTF-8 validated; \u escapes with paired
// surrogates; at most 32 nested containers; exponents up to INT_MAX; trailing white
// space allowed; one corner of huge exponents aside, ExponentFits) and reports
// numbers as Boost.JSON does: an integer that fits int64 is an int64, a non-negative
// one beyond that which fits uint64 a uint64, everything else a double (out of range:
// infinite or zero). json_scanner_test.cc holds it to Boost.JSON on random and
// mutated documents.
//
// The handler H provides:
//   void ObjectBegin(); void ObjectEnd(); void ArrayBegin(); void ArrayEnd();
//   void MemberKey(std::string_view decoded);
//   bool WantsString() const;  // asked before each string value: are its characters needed?
//   void StringValue(std::string_view decoded, bool non_empty);  // decoded is "" when not wanted
//   void Int(int64_t); void Uint(uint64_t); void Double(double);
//   void Bool(bool); void Null();
// A view passed to the handler is valid only during the call.
#pragma once

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "common/hex_digit.h"

namespace servebench::client {

enum class JsonScanError : uint8_t {
  kNone,
  kEmpty,             // nothing but whitespace
  kSyntax,            // a byte the grammar does not allow here
  kIncomplete,        // the document ends inside a value
  kTooDeep,           // more than kMaxJsonDepth nested containers
  kControlChar,       // an unescaped byte below 0x20 inside a string
  kBadEscape,         // an unknown escape, a bad \u, or an unpaired surrogate
  kBadUtf8,           // a byte sequence that is not UTF-8
  kExtraData,         // bytes after the document
  kExponentOverflow,  // a number's exponent above 2147483647
};

inline constexpr int kMaxJsonDepth = 32;  // Boost.JSON's default max_depth

// What went wrong, for people ("syntax error").
std::string_view JsonScanErrorName(JsonScanError e);

// The first byte in [p, end) that a string cannot simply pass over: '"', '\\', a
// control byte (< 0x20) or a non-ASCII byte (>= 0x80); end when there is none.
inline const char* FindStringStop(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i space = _mm_set1_epi8(0x20);
  while (end - p >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    // A signed compare: bytes >= 0x80 are negative, so "< 0x20" takes both the control
    // bytes and the non-ASCII ones.
    const __m128i stop =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                     _mm_cmplt_epi8(v, space));
    if (const int mask = _mm_movemask_epi8(stop); mask != 0) return p + __builtin_ctz(mask);
    p += 16;
  }
#endif
  for (; p < end; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) return p;
  }
  return end;
}

// The cursor is a local pointer handed from function to function, never a member: a
// `char` read may alias any member, so a member cursor is reloaded and stored again
// around every byte read (it cost a third of the scan).
template <class H>
class JsonScanner {
 public:
  JsonScanner(std::string_view in, H* handler)
      : begin_(in.data()), end_(in.data() + in.size()), h_(handler) {}

  JsonScanError Run() {
    const char* p = SkipSpace(begin_);
    if (p == end_) {
      Fail(p, JsonScanError::kEmpty);
    } else if (p = Value(p, 0); p != nullptr && (p = SkipSpace(p)) != end_) {
      Fail(p, JsonScanError::kExtraData);
    }
    return error_;
  }

  // Where the scan stopped: the offending byte after a failed Run.
  size_t offset() const { return static_cast<size_t>(error_at_ - begin_); }

 private:
  // Records the failure; returns the null cursor every caller passes up.
  const char* Fail(const char* at, JsonScanError e) {
    error_ = e;
    error_at_ = at;
    return nullptr;
  }

  const char* SkipSpace(const char* p) const {
    // Compact JSON (what servers send) has none: one compare says so.
    while (p < end_ && static_cast<unsigned char>(*p) <= ' ' &&
           (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) {
      ++p;
    }
    return p;
  }

  const char* Value(const char* p, int depth) {
    if (p == end_) return Fail(p, JsonScanError::kIncomplete);
    switch (*p) {
      case '{':
        return Object(p, depth + 1);
      case '[':
        return Array(p, depth + 1);
      case '"': {
        const bool wanted = h_->WantsString();
        std::string_view s;
        bool non_empty = false;
        p = String(p + 1, wanted, &s, &non_empty);
        if (p != nullptr) h_->StringValue(s, non_empty);
        return p;
      }
      case 't':
        p = Literal(p, "true");
        if (p != nullptr) h_->Bool(true);
        return p;
      case 'f':
        p = Literal(p, "false");
        if (p != nullptr) h_->Bool(false);
        return p;
      case 'n':
        p = Literal(p, "null");
        if (p != nullptr) h_->Null();
        return p;
      default:
        return Number(p);
    }
  }

  // Consumes `word` (true, false, null) byte by byte, as Boost.JSON reads it: a wrong
  // byte is a syntax error even where the document also ends early.
  const char* Literal(const char* p, std::string_view word) {
    for (char c : word) {
      if (p == end_) return Fail(p, JsonScanError::kIncomplete);
      if (*p != c) return Fail(p, JsonScanError::kSyntax);
      ++p;
    }
    return p;
  }

  const char* Object(const char* p, int depth) {
    if (depth > kMaxJsonDepth) return Fail(p, JsonScanError::kTooDeep);
    h_->ObjectBegin();
    p = SkipSpace(p + 1);
    if (p < end_ && *p == '}') {
      h_->ObjectEnd();
      return p + 1;
    }
    for (;;) {
      if (p == end_) return Fail(p, JsonScanError::kIncomplete);
      if (*p != '"') return Fail(p, JsonScanError::kSyntax);
      std::string_view key;
      bool non_empty = false;
      p = String(p + 1, true, &key, &non_empty);
      if (p == nullptr) return nullptr;
      h_->MemberKey(key);
      // Each separator is looked for before any white space: compact JSON has none.
      if (p == end_ || *p != ':') {
        p = SkipSpace(p);
        if (p == end_) return Fail(p, JsonScanError::kIncomplete);
        if (*p != ':') return Fail(p, JsonScanError::kSyntax);
      }
      ++p;
      if (p < end_ && static_cast<unsigned char>(*p) <= ' ') p = SkipSpace(p);
      p = Value(p, depth);
      if (p == nullptr) return nullptr;
      if (p == end_ || (*p != ',' && *p != '}')) {
        p = SkipSpace(p);
        if (p == end_) return Fail(p, JsonScanError::kIncomplete);
      }
      if (*p == '}') {
        h_->ObjectEnd();
        return p + 1;
      }
      if (*p != ',') return Fail(p, JsonScanError::kSyntax);
      ++p;
      if (p < end_ && *p != '"') p = SkipSpace(p);
    }
  }

  const char* Array(const char* p, int depth) {
    if (depth > kMaxJsonDepth) return Fail(p, JsonScanError::kTooDeep);
    h_->ArrayBegin();
    p = SkipSpace(p + 1);
    if (p < end_ && *p == ']') {
      h_->ArrayEnd();
      return p + 1;
    }
    for (;;) {
      p = Value(SkipSpace(p), depth);
      if (p == nullptr) return nullptr;
      p = SkipSpace(p);
      if (p == end_) return Fail(p, JsonScanError::kIncomplete);
      if (*p == ']') {
        h_->ArrayEnd();
        return p + 1;
      }
      if (*p != ',') return Fail(p, JsonScanError::kSyntax);
      ++p;
    }
  }

  // After the opening quote; returns the cursor after the closing one. With `decode`,
  // *out is the string's characters: a view into the input when it has no escape,
  // else into scratch_. Inlined: nearly every string of a stream chunk is plain ASCII,
  // ended by the first stop byte.
  [[gnu::always_inline]] const char* String(const char* p, bool decode, std::string_view* out,
                                            bool* non_empty) {
    const char* q = FindStringStop(p, end_);
    if (q != end_ && *q == '"') [[likely]] {
      *non_empty = q != p;
      if (decode) *out = std::string_view(p, static_cast<size_t>(q - p));
      return q + 1;
    }
    return EscapedString(p, decode, out, non_empty);
  }

  // String's general case: escapes, non-ASCII bytes, errors.
  [[gnu::noinline]] const char* EscapedString(const char* p, bool decode, std::string_view* out,
                                              bool* non_empty) {
    const char* start = p;
    const char* segment = p;  // the bytes not yet copied to scratch_ (escaped strings)
    bool escaped = false;
    for (;;) {
      const char* q = FindStringStop(p, end_);
      if (q == end_) return Fail(q, JsonScanError::kIncomplete);
      const auto c = static_cast<unsigned char>(*q);
      if (c == '"') {
        *non_empty = q != start;
        if (decode) {
          if (!escaped) {
            *out = std::string_view(start, static_cast<size_t>(q - start));
          } else {
            scratch_.append(segment, q);
            *out = scratch_;
          }
        }
        return q + 1;
      }
      if (c == '\\') {
        if (decode) {
          if (!escaped) scratch_.clear();
          scratch_.append(segment, q);
        }
        escaped = true;
        p = Escape(q, decode);
        if (p == nullptr) return nullptr;
        segment = p;
        continue;
      }
      if (c < 0x20) return Fail(q, JsonScanError::kControlChar);
      p = Utf8Sequence(q);
      if (p == nullptr) return nullptr;
    }
  }

  // At a '\\': consumes one escape, appending what it stands for when `decode`.
  const char* Escape(const char* p, bool decode) {
    ++p;
    if (p == end_) return Fail(p, JsonScanError::kIncomplete);
    char simple = 0;
    switch (*p) {
      case '"':
        simple = '"';
        break;
      case '\\':
        simple = '\\';
        break;
      case '/':
        simple = '/';
        break;
      case 'b':
        simple = '\b';
        break;
      case 'f':
        simple = '\f';
        break;
      case 'n':
        simple = '\n';
        break;
      case 'r':
        simple = '\r';
        break;
      case 't':
        simple = '\t';
        break;
      case 'u':
        break;
      default:
        return Fail(p, JsonScanError::kBadEscape);
    }
    ++p;
    if (simple != 0) {
      if (decode) scratch_.push_back(simple);
      return p;
    }
    uint32_t unit = 0;
    p = Hex4(p, &unit);
    if (p == nullptr) return nullptr;
    uint32_t code = unit;
    if (unit >= 0xDC00 && unit <= 0xDFFF)
      return Fail(p, JsonScanError::kBadEscape);  // lone low half
    if (unit >= 0xD800 && unit <= 0xDBFF) {
      // A high surrogate must be followed at once by an escaped low one.
      if (end_ - p < 2) return Fail(end_, JsonScanError::kIncomplete);
      if (p[0] != '\\' || p[1] != 'u') return Fail(p, JsonScanError::kBadEscape);
      uint32_t low = 0;
      p = Hex4(p + 2, &low);
      if (p == nullptr) return nullptr;
      if (low < 0xDC00 || low > 0xDFFF) return Fail(p, JsonScanError::kBadEscape);
      code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
    }
    if (decode) AppendUtf8(code);
    return p;
  }

  const char* Hex4(const char* p, uint32_t* unit) {
    for (int i = 0; i < 4; ++i, ++p) {
      if (p == end_) return Fail(p, JsonScanError::kIncomplete);
      const int d = HexDigitValue(*p);
      if (d < 0) return Fail(p, JsonScanError::kBadEscape);
      *unit = (*unit << 4) | static_cast<uint32_t>(d);
    }
    return p;
  }

  void AppendUtf8(uint32_t code) {
    if (code < 0x80) {
      scratch_.push_back(static_cast<char>(code));
    } else if (code < 0x800) {
      scratch_.push_back(static_cast<char>(0xC0 | (code >> 6)));
      scratch_.push_back(static_cast<char>(0x80 | (code & 0x3F)));
    } else if (code < 0x10000) {
      scratch_.push_back(static_cast<char>(0xE0 | (code >> 12)));
      scratch_.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
      scratch_.push_back(static_cast<char>(0x80 | (code & 0x3F)));
    } else {
      scratch_.push_back(static_cast<char>(0xF0 | (code >> 18)));
      scratch_.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
      scratch_.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
      scratch_.push_back(static_cast<char>(0x80 | (code & 0x3F)));
    }
  }

  // At a byte >= 0x80: consumes one well-formed UTF-8 sequence (Unicode's table 3-7:
  // no overlong forms, no surrogates, nothing above U+10FFFF).
  const char* Utf8Sequence(const char* p) {
    const auto b0 = static_cast<unsigned char>(p[0]);
    int more;
    unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
    if (b0 >= 0xC2 && b0 <= 0xDF) {
      more = 1;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
      more = 2;
      if (b0 == 0xE0) lo = 0xA0;
      if (b0 == 0xED) hi = 0x9F;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
      more = 3;
      if (b0 == 0xF0) lo = 0x90;
      if (b0 == 0xF4) hi = 0x8F;
    } else {
      return Fail(p, JsonScanError::kBadUtf8);
    }
    for (int i = 1; i <= more; ++i) {
      if (p + i >= end_) return Fail(end_, JsonScanError::kIncomplete);
      const auto b = static_cast<unsigned char>(p[i]);
      if (b < (i == 1 ? lo : 0x80) || b > (i == 1 ? hi : 0xBF)) {
        return Fail(p + i, JsonScanError::kBadUtf8);
      }
    }
    return p + more + 1;
  }

  // When the 8 bytes at p are all digits, their value (SWAR: three multiplies instead
  // of eight dependent steps).
  static bool EightDigits(const char* p, uint64_t* value) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    // Every byte in '0'..'9': its high nibble is 3 and adding 6 does not carry into it.
    if (((v & 0xF0F0F0F0F0F0F0F0) | (((v + 0x0606060606060606) & 0xF0F0F0F0F0F0F0F0) >> 4)) !=
        0x3333333333333333) {
      return false;
    }
    v -= 0x3030303030303030;
    v = (v * 10) + (v >> 8);  // pairs of digits (the first in memory is the high one)
    v = (((v & 0x000000FF000000FF) * (100 + (1000000ULL << 32))) +
         (((v >> 16) & 0x000000FF000000FF) * (1 + (10000ULL << 32)))) >>
        32;
    *value = v;
    return true;
  }

  static bool IsDigit(char c) { return static_cast<unsigned char>(c - '0') <= 9; }
  static uint64_t Digit(char c) { return static_cast<uint64_t>(c - '0'); }

  const char* Number(const char* p) {
    const char* start = p;
    const bool negative = *p == '-';
    if (negative) ++p;
    if (p == end_) return Fail(p, JsonScanError::kIncomplete);
    uint64_t magnitude = 0;
    bool overflow = false;
    if (*p == '0') {
      ++p;
    } else if (*p >= '1' && *p <= '9') {
      // 19 digits always fit a uint64; only a longer run needs the overflow check.
      const char* fast_end = end_ - p > 19 ? p + 19 : end_;
      if (fast_end - p >= 8) {
        if (uint64_t eight; EightDigits(p, &eight)) {  // stamps and epochs: 10 digits or more
          magnitude = eight;
          p += 8;
        }
      }
      for (; p < fast_end && IsDigit(*p); ++p) magnitude = magnitude * 10 + Digit(*p);
      for (; p < end_ && IsDigit(*p); ++p) {
        const uint64_t d = Digit(*p);
        if (magnitude > (std::numeric_limits<uint64_t>::max() - d) / 10) overflow = true;
        magnitude = magnitude * 10 + d;
      }
    } else {
      return Fail(p, JsonScanError::kSyntax);
    }
    bool integer = true;
    if (p < end_ && *p == '.') {
      integer = false;
      p = Digits(p + 1);
      if (p == nullptr) return nullptr;
    }
    if (p < end_ && (*p == 'e' || *p == 'E')) {
      integer = false;
      ++p;
      if (p < end_ && (*p == '+' || *p == '-')) ++p;
      const char* digits = p;
      p = Digits(p);
      if (p == nullptr) return nullptr;
      if (!ExponentFits(digits, p)) return Fail(digits, JsonScanError::kExponentOverflow);
    }
    constexpr uint64_t kInt64Max = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    if (integer && !overflow) {
      if (!negative && magnitude <= kInt64Max) {
        h_->Int(static_cast<int64_t>(magnitude));
        return p;
      }
      if (!negative) {
        h_->Uint(magnitude);
        return p;
      }
      if (magnitude <= kInt64Max + 1) {
        // -magnitude, computed without the signed overflow of -(2^63).
        h_->Int(static_cast<int64_t>(~magnitude + 1));
        return p;
      }
    }
    h_->Double(ToDouble(start, p));
    return p;
  }

  // One or more digits at p.
  const char* Digits(const char* p) {
    if (p == end_) return Fail(p, JsonScanError::kIncomplete);
    if (!IsDigit(*p)) return Fail(p, JsonScanError::kSyntax);
    while (p < end_ && IsDigit(*p)) ++p;
    return p;
  }

  // Boost.JSON refuses an exponent above INT_MAX (2147483647). It also refuses one
  // within a number's own length of that limit when the mantissa has more digits than
  // it keeps; that corner (a number of 20-odd digits with an exponent of 2^31) is not
  // mirrored here.
  static bool ExponentFits(const char* first, const char* last) {
    while (first < last - 1 && *first == '0') ++first;
    constexpr std::string_view kIntMax = "2147483647";
    const auto n = static_cast<size_t>(last - first);
    return n < kIntMax.size() || (n == kIntMax.size() && std::string_view(first, n) <= kIntMax);
  }

  // A number's text (already checked against the grammar) as the nearest double;
  // beyond the range of a double, infinity or zero of its sign.
  static double ToDouble(const char* first, const char* last) {
    double d = 0;
    auto [ptr, ec] = std::from_chars(first, last, d);
    if (ec == std::errc::result_out_of_range) {
      const std::string copy(first, last);  // rare: strtod tells overflow from underflow
      d = std::strtod(copy.c_str(), nullptr);
    }
    return d;
  }

  const char* const begin_;
  const char* const end_;
  H* const h_;
  JsonScanError error_ = JsonScanError::kNone;
  const char* error_at_ = nullptr;
  std::string scratch_;  // an escaped string's characters
};

template <class H>
JsonScanError ScanJson(std::string_view in, H* handler, size_t* error_offset = nullptr) {
  JsonScanner<H> scanner(in, handler);
  JsonScanError e = scanner.Run();
  if (error_offset != nullptr)
    *error_offset = e == JsonScanError::kNone ? in.size() : scanner.offset();
  return e;
}

inline std::string_view JsonScanErrorName(JsonScanError e) {
  switch (e) {
    case JsonScanError::kNone:
      return "no error";
    case JsonScanError::kEmpty:
      return "empty document";
    case JsonScanError::kSyntax:
      return "syntax error";
    case JsonScanError::kIncomplete:
      return "incomplete JSON";
    case JsonScanError::kTooDeep:
      return "more than 32 nested containers";
    case JsonScanError::kControlChar:
      return "control character in a string";
    case JsonScanError::kBadEscape:
      return "bad escape in a string";
    case JsonScanError::kBadUtf8:
      return "invalid UTF-8 in a string";
    case JsonScanError::kExtraData:
      return "extra data after the JSON value";
    case JsonScanError::kExponentOverflow:
      return "exponent overflow";
  }
  return "unknown error";
}

}  // namespace servebench::client
