// FakeOpenAiServer: a tiny streaming /v1/completions server on 127.0.0.1 for
// tests, one thread per connection (tests use tens of streams). It
// answers every POST with `max_tokens` tokens in events of `tokens_per_event`,
// with per-chunk usage, then a usage chunk and [DONE]; a Mode injects faults.
// GET /metrics returns `metrics_text`. Not part of the product.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace servebench::net::testing {

struct FakeServerOptions {
  int tokens_per_event = 1;
  int64_t first_token_delay_us = 0;
  int64_t event_interval_us = 0;
  // Faults.
  int status = 200;                  // non-200: an OpenAI-shaped error body
  int disconnect_after_events = -1;  // close the socket after this many events
  bool malformed_event = false;      // one event that is not JSON
  bool error_event = false;          // an error object after the first token
  int64_t stall_us = 0;              // stall after the first event
  bool garbage = false;              // answer with bytes that are not HTTP
  std::string metrics_text;
  // Adds vLLM spec-decode counters that grow with the requests served: per request
  // 10 drafts, 30 draft tokens, 18 accepted (8/6/4 by position): AL 2.8.
  bool spec_counters = false;
};

class FakeOpenAiServer {
 public:
  explicit FakeOpenAiServer(FakeServerOptions options);
  ~FakeOpenAiServer();
  int port() const { return port_; }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int64_t requests() const { return requests_.load(); }
  void set_metrics_text(std::string text);

 private:
  void AcceptLoop();
  void Serve(int fd);

  FakeServerOptions options_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> requests_{0};
  std::mutex mu_;
  std::vector<std::thread> threads_;  // guarded by mu_
  std::vector<int> fds_;              // guarded by mu_
  std::thread accept_thread_;
};

}  // namespace servebench::net::testing
