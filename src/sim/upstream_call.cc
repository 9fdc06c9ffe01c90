#include "sim/upstream_call.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fmt/format.h>
#include <netdb.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <charconv>
#include <cstring>

namespace servebench::sim {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

bool ParseHttpUrl(const std::string& url, std::string* host, int* port) {
  if (url.rfind("http://", 0) != 0) return false;
  std::string rest = url.substr(7);
  if (auto slash = rest.find('/'); slash != std::string::npos) rest.resize(slash);
  auto colon = rest.rfind(':');
  if (colon == std::string::npos || colon == 0) return false;
  *host = rest.substr(0, colon);
  const std::string p = rest.substr(colon + 1);
  auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), *port);
  return ec == std::errc() && end == p.data() + p.size() && *port > 0 && *port < 65536;
}

std::unique_ptr<UpstreamCall> UpstreamCall::Start(EventLoop* loop, const std::string& host,
                                                  int port, const std::string& method,
                                                  const std::string& path, std::string body,
                                                  Callbacks callbacks) {
  std::unique_ptr<UpstreamCall> call(new UpstreamCall(loop, std::move(callbacks)));
  call->out_ = fmt::format("{} {} HTTP/1.1\r\nHost: {}:{}\r\nConnection: close\r\n", method, path,
                           host, port);
  if (!body.empty()) {
    call->out_ +=
        fmt::format("Content-Type: application/json\r\nContent-Length: {}\r\n", body.size());
  }
  call->out_ += "\r\n" + body;
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  UpstreamCall* raw = call.get();
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res) != 0 || !res) {
    loop->Post([raw, host] { raw->Fail("cannot resolve " + host); });
    return call;
  }
  call->fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int r = call->fd_ < 0 ? -1 : ::connect(call->fd_, res->ai_addr, res->ai_addrlen);
  const int err = errno;
  freeaddrinfo(res);
  if (call->fd_ < 0 || (r != 0 && err != EINPROGRESS)) {
    std::string what = fmt::format("connect: {}", std::strerror(err));
    loop->Post([raw, what] { raw->Fail(what); });
    return call;
  }
  call->connected_ = r == 0;
  if (!loop->Add(call->fd_, EPOLLOUT | EPOLLIN | EPOLLRDHUP, raw).ok()) {
    loop->Post([raw] { raw->Fail("epoll add failed"); });
  }
  return call;
}

UpstreamCall::~UpstreamCall() {
  done_ = true;
  if (fd_ >= 0) {
    loop_->Remove(fd_);
    ::close(fd_);
  }
}

void UpstreamCall::Fail(const std::string& error) {
  if (done_) return;
  done_ = true;
  if (fd_ >= 0) {
    loop_->Remove(fd_);
    ::close(fd_);
    fd_ = -1;
  }
  if (cb_.on_done) cb_.on_done(false, error);
}

void UpstreamCall::Finish() {
  if (done_) return;
  done_ = true;
  if (fd_ >= 0) {
    loop_->Remove(fd_);
    ::close(fd_);
    fd_ = -1;
  }
  if (cb_.on_done) cb_.on_done(true, "");
}

void UpstreamCall::OnFdEvents(uint32_t events) {
  if (done_) return;
  if (!connected_ && (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) return Fail(fmt::format("connect: {}", std::strerror(err)));
    connected_ = true;
  }
  if (connected_ && out_pos_ < out_.size() && (events & EPOLLOUT)) {
    while (out_pos_ < out_.size()) {
      ssize_t n = ::send(fd_, out_.data() + out_pos_, out_.size() - out_pos_, MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EAGAIN || errno == EINTR) break;
        return Fail(fmt::format("send: {}", std::strerror(errno)));
      }
      out_pos_ += static_cast<size_t>(n);
    }
    if (out_pos_ == out_.size()) (void)loop_->Modify(fd_, EPOLLIN | EPOLLRDHUP, this);
  }
  if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) ReadResponse();
}

void UpstreamCall::ReadResponse() {
  char buf[16384];
  for (;;) {
    ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n > 0) {
      in_.append(buf, static_cast<size_t>(n));
      if (!Parse()) return;
      continue;
    }
    if (n == 0) {
      // The peer closed: complete only when the body's end was unmarked (no length).
      if (head_done_ && !chunked_ && content_length_ < 0) return Finish();
      return Fail(head_done_ ? fmt::format("closed after {} bytes of the body", body_seen_)
                             : "closed before the response head");
    }
    if (errno == EAGAIN || errno == EINTR) return;
    return Fail(fmt::format("recv: {}", std::strerror(errno)));
  }
}

bool UpstreamCall::Parse() {
  if (!head_done_) {
    const size_t end = in_.find("\r\n\r\n");
    if (end == std::string::npos) return true;
    const std::string head = in_.substr(0, end);
    in_.erase(0, end + 4);
    head_done_ = true;
    int status = 0;
    if (head.size() < 12 || head.compare(0, 5, "HTTP/") != 0) {
      Fail("malformed status line");
      return false;
    }
    std::from_chars(head.data() + 9, head.data() + 12, status);
    std::string content_type;
    size_t pos = head.find("\r\n");
    while (pos != std::string::npos) {
      const size_t next = head.find("\r\n", pos + 2);
      const std::string line =
          head.substr(pos + 2, next == std::string::npos ? std::string::npos : next - pos - 2);
      const size_t colon = line.find(':');
      if (colon != std::string::npos) {
        const std::string name = Lower(line.substr(0, colon));
        std::string value = line.substr(colon + 1);
        while (!value.empty() && value.front() == ' ') value.erase(0, 1);
        if (name == "content-length") content_length_ = std::stoll(value);
        if (name == "transfer-encoding" && Lower(value).find("chunked") != std::string::npos)
          chunked_ = true;
        if (name == "content-type") content_type = value;
      }
      pos = next;
    }
    if (cb_.on_head) cb_.on_head(status, content_type);
    if (done_) return false;
  }
  if (!chunked_) {
    if (!in_.empty()) {
      body_seen_ += static_cast<int64_t>(in_.size());
      if (cb_.on_data) cb_.on_data(in_);
      in_.clear();
      if (done_) return false;
    }
    if (content_length_ >= 0 && body_seen_ >= content_length_) {
      Finish();
      return false;
    }
    return true;
  }
  for (;;) {
    if (chunk_crlf_) {
      if (in_.size() < 2) return true;
      in_.erase(0, 2);
      chunk_crlf_ = false;
    }
    if (chunk_left_ < 0) {
      const size_t eol = in_.find("\r\n");
      if (eol == std::string::npos) return true;
      int64_t size = 0;
      std::from_chars(in_.data(), in_.data() + eol, size, 16);
      in_.erase(0, eol + 2);
      if (size == 0) {
        Finish();  // trailers, if any, are not needed
        return false;
      }
      chunk_left_ = size;
    }
    if (in_.empty()) return true;
    const size_t take = std::min<size_t>(in_.size(), static_cast<size_t>(chunk_left_));
    body_seen_ += static_cast<int64_t>(take);
    if (cb_.on_data) cb_.on_data(std::string_view(in_).substr(0, take));
    if (done_) return false;
    in_.erase(0, take);
    chunk_left_ -= static_cast<int64_t>(take);
    if (chunk_left_ == 0) {
      chunk_left_ = -1;
      chunk_crlf_ = true;
    }
  }
}

}  // namespace servebench::sim
