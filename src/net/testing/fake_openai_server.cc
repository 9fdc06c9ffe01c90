#include "net/testing/fake_openai_server.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

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

void SleepUs(int64_t us) {
  if (us > 0) std::this_thread::sleep_for(std::chrono::microseconds(us));
}

}  // namespace

FakeOpenAiServer::FakeOpenAiServer(FakeServerOptions options) : options_(std::move(options)) {
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
  }
}

}  // namespace servebench::net::testing
