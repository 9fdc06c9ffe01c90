// Test-only: a minimal OpenAI-compatible HTTP server on 127.0.0.1 (an ephemeral
// port) whose replies come from a callback, so eval tests exercise real sockets,
// keep-alive, retries and both endpoints. One thread per connection; Stop() (or
// the destructor) closes everything and joins.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

namespace servebench::eval::testing {

struct FakeReply {
  int status = 200;  // non-200: body is an OpenAI-shaped error
  std::string text;  // the generated text for a 200
};

class FakeOpenAiServer {
 public:
  // `respond(prompt)`: prompt is the completion prompt, or the last chat
  // message's content. Called from connection threads concurrently.
  using Respond = std::function<FakeReply(const std::string& prompt)>;
  explicit FakeOpenAiServer(Respond respond);
  ~FakeOpenAiServer();

  std::string base_url() const;  // http://127.0.0.1:<port>
  size_t requests() const { return requests_.load(); }
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::atomic<size_t> requests_{0};
};

}  // namespace servebench::eval::testing
