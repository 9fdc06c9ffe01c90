// HttpResponseParser: an incremental HTTP/1.1 response parser for the client's
// hot path. It reads the status line and headers, then hands body bytes to a
// callback as they arrive, undoing chunked transfer-encoding, honouring
// Content-Length, or reading to connection close. Bytes are never copied except a
// header or chunk-size line split across reads. Not thread-safe: one per connection.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace servebench::net {

class HttpResponseParser {
 public:
  using OnBody = std::function<void(std::string_view bytes)>;
  explicit HttpResponseParser(OnBody on_body) : on_body_(std::move(on_body)) {}

  // Consumes bytes. Fails on bytes that are not an HTTP/1.x response.
  Status Feed(std::string_view bytes);
  // The peer closed the connection: completes a read-to-close body.
  void OnEof();
  // Prepares for the next response on a kept-alive connection.
  void Reset();

  bool headers_done() const { return state_ > State::kHeaders; }
  bool complete() const { return state_ == State::kDone; }
  int status() const { return status_; }
  // The server asked to close the connection, or the body runs to close.
  bool connection_close() const { return close_; }
  const std::string& content_type() const { return content_type_; }

  static constexpr size_t kMaxHeaderBytes = 64 * 1024;

 private:
  enum class State {
    kStatus,
    kHeaders,
    kChunkSize,
    kChunkData,
    kChunkDataEnd,
    kTrailers,
    kLengthBody,
    kCloseBody,
    kDone
  };
  Status ProcessHeaderLine(std::string_view line);
  // Returns a complete line from `bytes` at *pos (CRLF or LF stripped), buffering
  // a partial one; nullopt-like false when more bytes are needed.
  bool NextLine(std::string_view bytes, size_t* pos, std::string_view* line, Status* error);

  OnBody on_body_;
  State state_ = State::kStatus;
  std::string line_;
  size_t header_bytes_ = 0;
  int status_ = 0;
  bool chunked_ = false;
  bool close_ = false;
  int64_t content_length_ = -1;
  int64_t remaining_ = 0;
  std::string content_type_;
};

}  // namespace servebench::net
