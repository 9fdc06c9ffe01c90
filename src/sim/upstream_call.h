// UpstreamCall: one HTTP/1.1 request from the simulated router (or a worker's health
// poll) to another server, on the caller's EventLoop: non-blocking connect, the
// request, then the response delivered as it arrives — the head, then body bytes
// (chunked transfer decoded), then one final call. One connection per call
// ("Connection: close"): the router's upstreams are on this machine or its fabric,
// where a connect costs tens of microseconds.
// Not thread-safe: the loop's thread only. Destroying a call closes its socket and
// ends its callbacks (none is made after the destructor starts).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "sim/event_loop.h"

namespace servebench::sim {

class UpstreamCall final : public EventLoop::FdHandler {
 public:
  struct Callbacks {
    std::function<void(int status, const std::string& content_type)> on_head;
    std::function<void(std::string_view data)> on_data;  // body bytes, in order
    // Last call: `complete` when the whole response arrived; else `error` says what
    // broke ("connect: Connection refused", "closed after 3 bytes of the body").
    std::function<void(bool complete, const std::string& error)> on_done;
  };

  // Starts `method path` to http://host:port with `body` (JSON when non-empty). A
  // failure to even start (bad host) is reported through on_done from the loop.
  static std::unique_ptr<UpstreamCall> Start(EventLoop* loop, const std::string& host, int port,
                                             const std::string& method, const std::string& path,
                                             std::string body, Callbacks callbacks);
  ~UpstreamCall() override;

  void OnFdEvents(uint32_t events) override;

 private:
  UpstreamCall(EventLoop* loop, Callbacks callbacks) : loop_(loop), cb_(std::move(callbacks)) {}
  void Fail(const std::string& error);
  void Finish();
  void ReadResponse();
  // Parses what is buffered; false once the call finished.
  bool Parse();

  EventLoop* loop_;
  Callbacks cb_;
  int fd_ = -1;
  bool connected_ = false;
  bool done_ = false;
  std::string out_;  // request bytes not yet written
  size_t out_pos_ = 0;
  std::string in_;  // response bytes not yet parsed
  bool head_done_ = false;
  bool chunked_ = false;
  int64_t content_length_ = -1;  // -1: until the connection closes (or chunked)
  int64_t body_seen_ = 0;
  int64_t chunk_left_ = -1;  // chunked: bytes left in this chunk; -1 = at a size line
  bool chunk_crlf_ = false;  // chunked: the CRLF after a chunk's data is next
};

// "http://host:port" → host, port. False when malformed.
bool ParseHttpUrl(const std::string& url, std::string* host, int* port);

}  // namespace servebench::sim
