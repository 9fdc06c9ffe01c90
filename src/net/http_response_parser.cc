#include "net/http_response_parser.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "common/hex_digit.h"

namespace servebench::net {
namespace {

bool IEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

bool IContains(std::string_view hay, std::string_view needle) {
  if (needle.size() > hay.size()) return false;
  for (size_t i = 0; i + needle.size() <= hay.size(); ++i) {
    if (IEquals(hay.substr(i, needle.size()), needle)) return true;
  }
  return false;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The hex size that leads a chunk-size line ("1a2" or "1a2;ext=v"): one per stream
// event, so read by hand (std::from_chars' base-16 path costs five times more).
bool ChunkSize(std::string_view line, uint64_t* size) {
  uint64_t n = 0;
  size_t i = 0;
  for (; i < line.size(); ++i) {
    const int d = HexDigitValue(line[i]);
    if (d < 0) break;
    if (n >> 60 != 0) return false;  // would overflow: no real chunk is 2^60 bytes
    n = (n << 4) | static_cast<uint64_t>(d);
  }
  *size = n;
  return i > 0;
}

}  // namespace

void HttpResponseParser::Reset() {
  state_ = State::kStatus;
  line_.clear();
  header_bytes_ = 0;
  status_ = 0;
  chunked_ = false;
  close_ = false;
  content_length_ = -1;
  remaining_ = 0;
  content_type_.clear();
}

bool HttpResponseParser::NextLine(std::string_view bytes, size_t* pos, std::string_view* line,
                                  Status* error) {
  size_t nl = bytes.find('\n', *pos);
  if (nl == std::string_view::npos) {
    line_.append(bytes.substr(*pos));
    *pos = bytes.size();
    if (line_.size() > kMaxHeaderBytes) {
      *error = Status::InvalidArgument("HTTP header or chunk-size line longer than 64 KiB");
    }
    return false;
  }
  std::string_view piece = bytes.substr(*pos, nl - *pos);
  *pos = nl + 1;
  if (!line_.empty()) {
    line_.append(piece);
    piece = line_;
  }
  if (!piece.empty() && piece.back() == '\r') piece.remove_suffix(1);
  *line = piece;
  return true;
}

Status HttpResponseParser::ProcessHeaderLine(std::string_view line) {
  header_bytes_ += line.size();
  if (header_bytes_ > kMaxHeaderBytes) {
    return Status::InvalidArgument("HTTP response headers longer than 64 KiB");
  }
  if (state_ == State::kStatus) {
    // "HTTP/1.1 200 OK"
    if (line.size() < 12 || line.substr(0, 7) != "HTTP/1.") {
      return Status::InvalidArgument("not an HTTP/1.x status line: '" +
                                     std::string(line.substr(0, 80)) + "'");
    }
    int code = 0;
    auto [p, ec] = std::from_chars(line.data() + 9, line.data() + 12, code);
    if (ec != std::errc() || code < 100 || code > 999) {
      return Status::InvalidArgument("bad HTTP status code in '" + std::string(line.substr(0, 80)) +
                                     "'");
    }
    status_ = code;
    if (line.substr(5, 3) == "1.0") close_ = true;
    state_ = State::kHeaders;
    return Status::Ok();
  }
  if (line.empty()) {      // end of headers
    if (status_ == 100) {  // "100 Continue": another status line follows
      state_ = State::kStatus;
      return Status::Ok();
    }
    if (chunked_) {
      state_ = State::kChunkSize;
    } else if (content_length_ >= 0) {
      remaining_ = content_length_;
      state_ = remaining_ == 0 ? State::kDone : State::kLengthBody;
    } else if (status_ == 204 || status_ == 304) {
      state_ = State::kDone;
    } else {
      close_ = true;
      state_ = State::kCloseBody;
    }
    return Status::Ok();
  }
  size_t colon = line.find(':');
  if (colon == std::string_view::npos) {
    return Status::InvalidArgument("HTTP header line without ':': '" +
                                   std::string(line.substr(0, 80)) + "'");
  }
  std::string_view name = Trim(line.substr(0, colon));
  std::string_view value = Trim(line.substr(colon + 1));
  if (IEquals(name, "transfer-encoding")) {
    chunked_ = IContains(value, "chunked");
  } else if (IEquals(name, "content-length")) {
    int64_t n = 0;
    auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec != std::errc() || n < 0) {
      return Status::InvalidArgument("bad Content-Length '" + std::string(value) + "'");
    }
    content_length_ = n;
  } else if (IEquals(name, "connection")) {
    if (IContains(value, "close")) close_ = true;
  } else if (IEquals(name, "content-type")) {
    content_type_ = std::string(value);
  }
  return Status::Ok();
}

Status HttpResponseParser::Feed(std::string_view bytes) {
  size_t pos = 0;
  Status error;
  while (pos < bytes.size()) {
    switch (state_) {
      case State::kStatus:
      case State::kHeaders:
      case State::kTrailers: {
        std::string_view line;
        if (!NextLine(bytes, &pos, &line, &error)) return error;
        if (state_ == State::kTrailers) {
          if (line.empty()) state_ = State::kDone;
        } else {
          Status s = ProcessHeaderLine(line);
          if (!s.ok()) return s;
        }
        line_.clear();
        break;
      }
      case State::kChunkSize: {
        std::string_view line;
        if (!NextLine(bytes, &pos, &line, &error)) return error;
        uint64_t size = 0;
        if (!ChunkSize(line, &size)) {
          return Status::InvalidArgument("bad chunk size line '" + std::string(line.substr(0, 40)) +
                                         "'");
        }
        line_.clear();
        remaining_ = static_cast<int64_t>(size);
        state_ = size == 0 ? State::kTrailers : State::kChunkData;
        break;
      }
      case State::kChunkData:
      case State::kLengthBody: {
        size_t take = std::min<size_t>(static_cast<size_t>(remaining_), bytes.size() - pos);
        on_body_(bytes.substr(pos, take));
        pos += take;
        remaining_ -= static_cast<int64_t>(take);
        if (remaining_ == 0) {
          state_ = state_ == State::kChunkData ? State::kChunkDataEnd : State::kDone;
        }
        break;
      }
      case State::kChunkDataEnd: {
        std::string_view line;
        if (!NextLine(bytes, &pos, &line, &error)) return error;
        if (!line.empty()) return Status::InvalidArgument("chunk data not followed by CRLF");
        line_.clear();
        state_ = State::kChunkSize;
        break;
      }
      case State::kCloseBody:
        on_body_(bytes.substr(pos));
        pos = bytes.size();
        break;
      case State::kDone:
        // Bytes after a complete response on a connection we did not pipeline.
        return Status::InvalidArgument("bytes after the end of the HTTP response");
    }
  }
  return Status::Ok();
}

void HttpResponseParser::OnEof() {
  if (state_ == State::kCloseBody) state_ = State::kDone;
}

}  // namespace servebench::net
