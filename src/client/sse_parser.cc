#include "client/sse_parser.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace servebench::client {

void SseParser::Reset() {
  line_.clear();
  data_view_ = {};
  data_.clear();
  event_.clear();
  has_data_ = false;
  last_was_cr_ = false;
}

namespace {
// The first CR or LF in [p, end), or end: one pass, 16 bytes at a time.
const char* FindLineEnd(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i lf = _mm_set1_epi8('\n');
  const __m128i cr = _mm_set1_epi8('\r');
  while (end - p >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const int mask = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, lf), _mm_cmpeq_epi8(v, cr)));
    if (mask != 0) return p + __builtin_ctz(mask);
    p += 16;
  }
#endif
  for (; p < end; ++p) {
    if (*p == '\n' || *p == '\r') return p;
  }
  return end;
}
}  // namespace

Status SseParser::Feed(std::string_view bytes, int64_t t_ns) {
  size_t i = 0;
  const size_t n = bytes.size();
  while (i < n) {
    if (last_was_cr_) {
      last_was_cr_ = false;
      if (bytes[i] == '\n') {
        ++i;
        continue;
      }
    }
    const char* start = bytes.data() + i;
    const size_t j = static_cast<size_t>(FindLineEnd(start, bytes.data() + n) - bytes.data());
    if (j == n) {
      if (line_.size() + (n - i) > kMaxLineBytes) {
        KeepData();
        return Status::InvalidArgument("SSE line longer than " + std::to_string(kMaxLineBytes) +
                                       " bytes; the server is not sending event-stream data");
      }
      line_.append(start, n - i);
      break;
    }
    if (bytes[j] == '\r') last_was_cr_ = true;
    if (line_.empty()) {
      ProcessLine(std::string_view(start, j - i), t_ns);
    } else {
      line_.append(start, j - i);
      ProcessLine(line_, t_ns);
      line_.clear();
    }
    i = j + 1;
  }
  KeepData();  // `bytes` dies with this call: an event still being built keeps a copy
  return Status::Ok();
}

void SseParser::KeepData() {
  if (data_view_.data() == nullptr) return;
  data_.assign(data_view_);
  data_view_ = {};
}

void SseParser::ProcessLine(std::string_view line, int64_t t_ns) {
  if (line.empty()) {  // dispatch
    if (has_data_) on_event_(event_, data_view_.data() != nullptr ? data_view_ : data_, data_t_ns_);
    data_view_ = {};
    data_.clear();
    event_.clear();
    has_data_ = false;
    return;
  }
  if (line[0] == ':') return;  // comment
  std::string_view field = line, value;
  if (line.starts_with("data:")) {  // nearly every line of a stream: no search for the colon
    field = line.substr(0, 4);
    value = line.substr(5);
    if (!value.empty() && value[0] == ' ') value.remove_prefix(1);
  } else if (size_t colon = line.find(':'); colon != std::string_view::npos) {
    field = line.substr(0, colon);
    value = line.substr(colon + 1);
    if (!value.empty() && value[0] == ' ') value.remove_prefix(1);
  }
  if (field == "data") {
    if (!has_data_ && line.data() != line_.data()) {
      // The event's first data line, inside the bytes being fed: no copy unless the
      // event outlives this Feed (KeepData) or gets a second line.
      data_view_ = value.data() != nullptr ? value : std::string_view(line.data() + line.size(), 0);
    } else {
      KeepData();
      if (has_data_) data_.push_back('\n');
      data_.append(value);
    }
    has_data_ = true;
    data_t_ns_ = t_ns;
  } else if (field == "event") {
    event_.assign(value);
  }
  // "id" and "retry" do not matter to a benchmark; unknown fields are ignored.
}

}  // namespace servebench::client
