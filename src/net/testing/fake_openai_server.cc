#include "net/testing/fake_openai_server.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <cstring>

namespace servebench::net::testing {
namespace {

bool WriteAll(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = ::send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

std::string Chunk(const std::string& s) { return fmt::format("{:x}\r\n{}\r\n", s.size(), s); }

FakeServerOptions Answering(Respond respond) {
  FakeServerOptions options;
  options.respond = std::move(respond);
  return options;
}

bool IsStreamed(const boost::json::value& request) {
  const boost::json::value* stream =
      request.is_object() ? request.get_object().if_contains("stream") : nullptr;
  return stream != nullptr && stream->is_bool() && stream->get_bool();
}

// The prompt of a completion request: "prompt" text, or the last chat message's content.
std::string PromptOf(const boost::json::value& request) {
  if (!request.is_object()) return "";
  const boost::json::object& o = request.get_object();
  if (const auto* p = o.if_contains("prompt"); p != nullptr && p->is_string()) {
    return std::string(p->get_string());
  }
  if (const auto* m = o.if_contains("messages"); m != nullptr && m->is_array() &&
                                                 !m->get_array().empty() &&
                                                 m->get_array().back().is_object()) {
    if (const auto* c = m->get_array().back().get_object().if_contains("content");
        c != nullptr && c->is_string()) {
      return std::string(c->get_string());
    }
  }
  return "";
}

// The whole reply to a non-streamed completion: respond(prompt)'s text in a JSON
// completion (or a chat completion for /v1/chat/completions), or its error.
std::string Completion(const FakeServerOptions& o, const std::string& head,
                       const boost::json::value& request, int64_t max_tokens) {
  const bool chat = head.find("/chat/completions") != std::string::npos;
  FakeReply reply = o.respond ? o.respond(PromptOf(request))
                              : FakeReply{200, std::string(static_cast<size_t>(max_tokens), 'x')};
  std::string body;
  if (reply.status != 200) {
    body = R"({"error":{"message":"injected failure","type":"server_error"}})";
  } else {
    boost::json::object choice{{"index", 0}, {"finish_reason", "stop"}};
    if (chat) {
      choice["message"] = boost::json::object{{"role", "assistant"}, {"content", reply.text}};
    } else {
      choice["text"] = reply.text;
    }
    body = boost::json::serialize(
        boost::json::object{{"id", "fake"},
                            {"object", chat ? "chat.completion" : "text_completion"},
                            {"choices", boost::json::array{choice}}});
  }
  return fmt::format(
      "HTTP/1.1 {} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{}",
      reply.status, reply.status == 200 ? "OK" : "Error", body.size(), body);
}

void SleepUs(int64_t us) {
  if (us > 0) std::this_thread::sleep_for(std::chrono::microseconds(us));
}

int64_t Words(std::string_view text) {
  int64_t n = 0;
  bool in_word = false;
  for (char ch : text) {
    bool space = ch == ' ' || ch == '\n' || ch == '\t';
    if (!space && !in_word) ++n;
    in_word = !space;
  }
  return n;
}

// The /tokenize answer in the given shape (FakeServerOptions::tokenize).
std::string TokenizeReply(const std::string& shape, const std::string& body) {
  boost::json::error_code ec;
  boost::json::value v = boost::json::parse(body, ec);
  const boost::json::object* o = !ec && v.is_object() ? &v.get_object() : nullptr;
  std::string_view field = shape == "llamacpp" ? "content" : "prompt";
  int64_t n = 0;
  if (o != nullptr) {
    if (const auto* t = o->if_contains(field); t != nullptr && t->is_string()) {
      n = Words(t->get_string());
    }
  }
  boost::json::array tokens;
  for (int64_t i = 0; i < n; ++i) tokens.emplace_back(100 + i);
  boost::json::object reply{{"tokens", tokens}};
  if (shape == "vllm") reply["count"] = n;
  return boost::json::serialize(reply);
}

// The path of the request line "METHOD /path?query HTTP/1.1" (query dropped).
std::string_view RequestPath(std::string_view head) {
  size_t start = head.find(' ');
  if (start == std::string_view::npos) return {};
  size_t end = head.find_first_of(" ?\r", start + 1);
  return head.substr(start + 1, end == std::string_view::npos ? end : end - start - 1);
}

}  // namespace

FakeOpenAiServer::FakeOpenAiServer(FakeServerOptions options) : options_(std::move(options)) {
  unhealthy_left_ = options_.unhealthy_probes;
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  ::listen(listen_fd_, 512);
  socklen_t len = sizeof(addr);
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  accept_thread_ = std::thread([this] { AcceptLoop(); });
}

FakeOpenAiServer::FakeOpenAiServer(Respond respond)
    : FakeOpenAiServer(Answering(std::move(respond))) {}

FakeOpenAiServer::~FakeOpenAiServer() {
  stop_.store(true);
  ::shutdown(listen_fd_, SHUT_RDWR);
  accept_thread_.join();
  ::close(listen_fd_);
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (int fd : fds_) ::shutdown(fd, SHUT_RDWR);
    threads.swap(threads_);
  }
  for (std::thread& t : threads) t.join();
  for (int fd : fds_) ::close(fd);
}

void FakeOpenAiServer::set_metrics_text(std::string text) {
  std::lock_guard<std::mutex> lock(mu_);
  options_.metrics_text = std::move(text);
}

void FakeOpenAiServer::AcceptLoop() {
  while (!stop_.load()) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    int fd = ::accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) continue;
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    ++connections_;
    std::lock_guard<std::mutex> lock(mu_);
    fds_.push_back(fd);
    threads_.emplace_back([this, fd] { Serve(fd); });
  }
}

void FakeOpenAiServer::Serve(int fd) {
  std::string in;
  char buf[65536];
  while (!stop_.load()) {
    // Read one request: headers, then Content-Length bytes.
    size_t header_end;
    while ((header_end = in.find("\r\n\r\n")) == std::string::npos) {
      ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
      if (n <= 0) return;
      in.append(buf, static_cast<size_t>(n));
    }
    std::string head = in.substr(0, header_end);
    size_t content_length = 0;
    if (size_t cl = head.find("Content-Length: "); cl != std::string::npos) {
      content_length = std::stoul(head.substr(cl + 16));
    }
    while (in.size() < header_end + 4 + content_length) {
      ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
      if (n <= 0) return;
      in.append(buf, static_cast<size_t>(n));
    }
    std::string body = in.substr(header_end + 4, content_length);
    in.erase(0, header_end + 4 + content_length);
    ++requests_;
    FakeServerOptions o;
    {
      std::lock_guard<std::mutex> lock(mu_);
      o = options_;
    }
    if (std::string probe = ProbeReply(head, o); !probe.empty()) {
      if (!WriteAll(fd, probe)) return;
      continue;
    }
    if (head.rfind("GET", 0) == 0) {
      std::string text = head.find("/metrics") != std::string::npos ? o.metrics_text : "{}";
      if (o.spec_counters && head.find("/metrics") != std::string::npos) {
        int64_t n = requests_.load();
        text += fmt::format(
            "vllm:spec_decode_num_drafts_total{{engine=\"0\"}} {}\n"
            "vllm:spec_decode_num_draft_tokens_total{{engine=\"0\"}} {}\n"
            "vllm:spec_decode_num_accepted_tokens_total{{engine=\"0\"}} {}\n"
            "vllm:spec_decode_num_accepted_tokens_per_pos_total{{engine=\"0\",position=\"0\"}} {}\n"
            "vllm:spec_decode_num_accepted_tokens_per_pos_total{{engine=\"0\",position=\"1\"}} {}\n"
            "vllm:spec_decode_num_accepted_tokens_per_pos_total{{engine=\"0\",position=\"2\"}} "
            "{}\n",
            10 * n, 30 * n, 18 * n, 8 * n, 6 * n, 4 * n);
      }
      if (!WriteAll(fd, fmt::format("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{}", text.size(),
                                    text)))
        return;
      continue;
    }
    if (head.find("POST /tokenize") == 0) {
      if (o.tokenize.empty()) {
        if (!WriteAll(fd, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")) return;
        continue;
      }
      std::string reply = TokenizeReply(o.tokenize, body);
      if (!WriteAll(fd, fmt::format("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                    "Content-Length: {}\r\n\r\n{}",
                                    reply.size(), reply)))
        return;
      continue;
    }
    // Any other POST that is not a completion (an admin endpoint such as
    // /reset_prefix_cache or /start_profile) is 404: an engine without it.
    if (std::string_view target = RequestPath(head);
        head.rfind("POST ", 0) == 0 && !target.ends_with("/completions")) {
      const bool served = std::find(o.admin_endpoints.begin(), o.admin_endpoints.end(), target) !=
                          o.admin_endpoints.end();
      if (!WriteAll(fd, served ? "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
                               : "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"))
        return;
      continue;
    }
    if (o.garbage) {
      WriteAll(fd, "this is not http\r\n\r\n");
      ::shutdown(fd, SHUT_RDWR);
      return;
    }
    if (o.status != 200) {
      std::string err =
          R"({"error":{"message":"injected failure","type":"server_error","code":500}})";
      if (!WriteAll(fd, fmt::format("HTTP/1.1 {} Error\r\nContent-Type: application/json\r\n"
                                    "Content-Length: {}\r\n\r\n{}",
                                    o.status, err.size(), err)))
        return;
      continue;
    }
    int64_t max_tokens = 16, prompt_tokens = 1;
    boost::json::error_code ec;
    boost::json::value req = boost::json::parse(body, ec);
    if (!ec && req.is_object()) {
      if (auto* m = req.get_object().if_contains("max_tokens"); m && m->is_int64())
        max_tokens = m->get_int64();
      if (auto* p = req.get_object().if_contains("prompt"); p && p->is_array()) {
        prompt_tokens = static_cast<int64_t>(p->get_array().size());
      }
    }
    if (!IsStreamed(req)) {
      if (!WriteAll(fd, Completion(o, head, req, max_tokens))) return;
      continue;
    }
    if (!WriteAll(fd,
                  "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                  "Transfer-Encoding: chunked\r\n\r\n"))
      return;
    SleepUs(o.first_token_delay_us);
    int64_t sent = 0;
    int events = 0;
    while (sent < max_tokens) {
      if (o.disconnect_after_events >= 0 && events == o.disconnect_after_events) {
        ::shutdown(fd, SHUT_RDWR);
        return;
      }
      int64_t k = std::min<int64_t>(o.tokens_per_event, max_tokens - sent);
      sent += k;
      std::string text(static_cast<size_t>(k), 'x');
      std::string ev;
      if (o.malformed_event && events == 1) {
        ev = "data: {this is not json\n\n";
      } else if (o.error_event && events == 1) {
        ev = R"(data: {"error":{"message":"injected stream error","code":500}})"
             "\n\n";
      } else {
        ev = fmt::format(
            "data: {{\"choices\":[{{\"index\":0,\"text\":\"{}\",\"finish_reason\":{}}}],"
            "\"usage\":{{\"prompt_tokens\":{},\"completion_tokens\":{}}}}}\n\n",
            text, sent == max_tokens ? "\"length\"" : "null", prompt_tokens, sent);
      }
      if (!WriteAll(fd, Chunk(ev))) return;
      ++events;
      if (events == 1) SleepUs(o.stall_us);
      if (sent < max_tokens) SleepUs(o.event_interval_us);
    }
    std::string tail = fmt::format(
        "data: {{\"choices\":[],\"usage\":{{\"prompt_tokens\":{},\"completion_tokens\":{}}}}}\n\n"
        "data: [DONE]\n\n",
        prompt_tokens, sent);
    if (!WriteAll(fd, Chunk(tail) + "0\r\n\r\n")) return;
    ++streams_;
    if (o.close_after_stream_us >= 0) {
      SleepUs(o.close_after_stream_us);
      ::shutdown(fd, SHUT_RDWR);
      return;
    }
  }
}

std::string FakeOpenAiServer::ProbeReply(const std::string& head, const FakeServerOptions& o) {
  auto reply = [](int status, const std::string& body) {
    return fmt::format(
        "HTTP/1.1 {} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{}", status,
        status == 200 ? "OK" : "Service Unavailable", body.size(), body);
  };
  if (head.rfind("GET /health ", 0) == 0) {
    return reply(unhealthy_left_.fetch_sub(1) > 0 ? 503 : 200, "");
  }
  if (head.rfind("GET /v1/models ", 0) == 0) {
    return reply(200, R"({"object":"list","data":[{"id":"fake"}]})");
  }
  if (head.rfind("GET /version ", 0) == 0 && !o.llama_cpp_style) {
    return reply(200, R"({"version":"9.9.9-fake"})");
  }
  if (head.rfind("GET /props ", 0) == 0 && o.llama_cpp_style) {
    return reply(200, R"({"build_info":"b6500-abc123"})");
  }
  return "";
}

}  // namespace servebench::net::testing
