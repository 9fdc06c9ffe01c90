// RawFloor: the cheapest client that can still drive a streaming benchmark, written
// to put a floor under servebench's own CPU per SSE event (issue 19, item 6). One
// thread, one level-triggered epoll set over `connections` keep-alive sockets; each
// socket sends a request, and each wake-up does one read() and counts the events in
// it ("\n\n" ends an SSE event; the `[DONE]` event ends the stream and sends the next
// request on the same socket). It parses no HTTP, no JSON, stamps nothing and records
// nothing: whatever servebench spends above it is the price of what it measures
// (per-event token counts, ITL stamps, kernel receive stamps, usage).
//
// Bench-only code (bench/client/): it is not a client anyone should use. It trusts
// the server (the sim) to send well-formed chunked SSE and `[DONE]`; a socket that
// errors or closes early ends the run with `error` set.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace servebench::bench {

struct FloorRun {
  int port = 0;                       // 127.0.0.1:port
  std::vector<std::string> requests;  // the complete HTTP requests, sent in order
  int64_t connections = 1;            // closed loop: requests in flight
  double timeout_s = 120;             // the whole run; past it the run fails
};

struct FloorResult {
  int64_t requests_done = 0;
  // SSE events received, `[DONE]` not counted (servebench does not count it either).
  int64_t events = 0;
  int64_t reads = 0;  // read() calls that returned data
  double wall_s = 0;  // first send to last [DONE]
  double cpu_s = 0;   // user + system CPU of this process over the same span
  std::string error;  // empty when every request completed
};

// Runs every request of `run` closed-loop and returns what it counted. Blocks.
FloorResult RunRawFloor(const FloorRun& run);

}  // namespace servebench::bench
