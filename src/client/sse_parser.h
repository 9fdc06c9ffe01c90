// SseParser splits a byte stream into Server-Sent Events per the WHATWG
// specification: lines end in CRLF, LF or CR (a CRLF split across two reads is one
// line end); `:` lines are comments; `data:` lines of one event are joined with
// "\n"; a blank line dispatches the event. Time is injected: each Feed carries the
// monotonic time of the read that delivered the bytes, and an event is stamped with
// the time of the read that completed its last `data:` line (metrics.md §1).
// Not thread-safe: one parser per connection.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace servebench::client {

class SseParser {
 public:
  // Called once per complete event; the views are valid only during the call.
  // `event` is the `event:` field ("" = the default "message").
  using OnEvent = std::function<void(std::string_view event, std::string_view data, int64_t t_ns)>;
  explicit SseParser(OnEvent on_event) : on_event_(std::move(on_event)) {}

  // Consumes `bytes` read at `t_ns`. Fails only if a line grows past kMaxLineBytes
  // (the stream can never become valid); the caller should close the connection.
  Status Feed(std::string_view bytes, int64_t t_ns);

  // Clears all state (a new response on a kept-alive connection).
  void Reset();

  static constexpr size_t kMaxLineBytes = 64u << 20;  // a 100k-token echo fits easily

 private:
  void ProcessLine(std::string_view line, int64_t t_ns);
  // Copies a data line still held as a view into data_ (before its bytes go away).
  void KeepData();

  OnEvent on_event_;
  std::string line_;  // partial line carried across reads
  std::string data_;  // data buffer of the event being built
  // The event's only data line so far, while it still lies in the bytes of the
  // current Feed (the usual case: no copy); data() == nullptr when not in use.
  std::string_view data_view_;
  std::string event_;  // event type of the event being built
  bool has_data_ = false;
  bool last_was_cr_ = false;  // the previous byte was CR: a following LF is not a line
  int64_t data_t_ns_ = 0;
};

}  // namespace servebench::client
