#include "client/sse_parser.h"

#include <cstring>

namespace servebench::client {

void SseParser::Reset() {
  line_.clear();
  data_.clear();
  event_.clear();
  has_data_ = false;
  last_was_cr_ = false;
}

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
    // Find the next CR or LF from i.
    const char* start = bytes.data() + i;
    size_t j = i;
    while (j < n && bytes[j] != '\n' && bytes[j] != '\r') ++j;
    if (j == n) {
      if (line_.size() + (n - i) > kMaxLineBytes) {
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
  return Status::Ok();
}

void SseParser::ProcessLine(std::string_view line, int64_t t_ns) {
  if (line.empty()) {  // dispatch
    if (has_data_) on_event_(event_, data_, data_t_ns_);
    data_.clear();
    event_.clear();
    has_data_ = false;
    return;
  }
  if (line[0] == ':') return;  // comment
  std::string_view field = line, value;
  if (size_t colon = line.find(':'); colon != std::string_view::npos) {
    field = line.substr(0, colon);
    value = line.substr(colon + 1);
    if (!value.empty() && value[0] == ' ') value.remove_prefix(1);
  }
  if (field == "data") {
    if (has_data_) data_.push_back('\n');
    data_.append(value);
    has_data_ = true;
    data_t_ns_ = t_ns;
  } else if (field == "event") {
    event_.assign(value);
  }
  // "id" and "retry" do not matter to a benchmark; unknown fields are ignored.
}

}  // namespace servebench::client
