// FakeOpenAiServer: a tiny OpenAI-compatible server on 127.0.0.1 for the tests of
// any module, one thread per connection (tests use tens of streams), real sockets
// and keep-alive. A streamed POST ("stream": true, as the load generator sends) is
// answered with `max_tokens` tokens in events of `tokens_per_event`, with per-chunk
// usage, then a usage chunk and [DONE]; any other POST to /v1/completions or
// /v1/chat/completions with one JSON completion whose text comes from `respond`
// (evals). GET /metrics returns `metrics_text`; /health, /v1/models and /version
// (or llama.cpp's /props) answer as an engine's readiness probes expect; other GETs
// answer {}; POST /tokenize answers in the shape `tokenize` names; any other POST
// that is not a completion (an admin endpoint: /reset_prefix_cache, /start_profile)
// answers 404, as an engine without it, unless `admin_endpoints` lists it (then 200). The fault
// options inject one misbehaviour each. Not part of the product.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace servebench::net::testing {

struct FakeReply {
  int status = 200;  // non-200: an OpenAI-shaped error body
  std::string text;  // the completion's text for a 200
};

// The answer to a non-streamed completion: its prompt (completions: "prompt"; chat:
// the last message's content) in, the reply out. Called from connection threads
// concurrently.
using Respond = std::function<FakeReply(const std::string& prompt)>;

struct FakeServerOptions {
  // Non-streamed completions; unset: `max_tokens` x's.
  Respond respond;
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
  // llama-server's keep-alive behaviour: close the connection this many µs after
  // every streamed response, without `Connection: close` (-1 = keep it open). Any
  // request the client sent on it meanwhile is left unanswered.
  int64_t close_after_stream_us = -1;
  std::string metrics_text;
  // POST /tokenize: "vllm" counts {"prompt": text} and answers {"count", "tokens"};
  // "llamacpp" counts {"content": text} and answers {"tokens"}, and (as
  // llama-server does) answers 200 {"tokens": []} to {"prompt": text}; "" = 404.
  // The count is the text's space-separated words.
  std::string tokenize;
  // Engine readiness: GET /health answers 503 this many times first, then 200.
  int unhealthy_probes = 0;
  // llama.cpp's API: no "version" from GET /version; GET /props {"build_info"} instead.
  bool llama_cpp_style = false;
  // Adds vLLM spec-decode counters that grow with the requests served: per request
  // 10 drafts, 30 draft tokens, 18 accepted (8/6/4 by position): AL 2.8.
  bool spec_counters = false;
  // POST paths answered 200 with an empty body (an engine's admin endpoints, e.g.
  // SGLang's "/flush_cache"); any other non-completion POST is 404.
  std::vector<std::string> admin_endpoints;
};

class FakeOpenAiServer {
 public:
  explicit FakeOpenAiServer(FakeServerOptions options = {});
  // A server whose non-streamed completions come from `respond`.
  explicit FakeOpenAiServer(Respond respond);
  ~FakeOpenAiServer();
  int port() const { return port_; }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int64_t requests() const { return requests_.load(); }
  // Streamed responses completed, and connections accepted.
  int64_t streams() const { return streams_.load(); }
  int64_t connections() const { return connections_.load(); }
  void set_metrics_text(std::string text);

 private:
  void AcceptLoop();
  void Serve(int fd);
  // The answer to an engine probe (GET /health, /v1/models, /version, /props), or
  // "" when `head` is none of them.
  std::string ProbeReply(const std::string& head, const FakeServerOptions& o);

  FakeServerOptions options_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> requests_{0};
  std::atomic<int64_t> streams_{0};
  std::atomic<int64_t> connections_{0};
  std::atomic<int> unhealthy_left_{0};
  std::mutex mu_;
  std::vector<std::thread> threads_;  // guarded by mu_
  std::vector<int> fds_;              // guarded by mu_
  std::thread accept_thread_;
};

}  // namespace servebench::net::testing
