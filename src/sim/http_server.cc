#include "sim/http_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/clock.h"

namespace servebench::sim {
namespace {
constexpr size_t kMaxHeaderBytes = 64 * 1024;
constexpr size_t kMaxBodyBytes = 64 * 1024 * 1024;
constexpr size_t kReadChunk = 64 * 1024;

bool IEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}
}  // namespace

std::string_view HttpReason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 413:
      return "Payload Too Large";
    case 422:
      return "Unprocessable Entity";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 503:
      return "Service Unavailable";
    default:
      return "Unknown";
  }
}

struct HttpServer::Connection final : EventLoop::FdHandler {
  HttpServer* server = nullptr;
  int fd = -1;
  uint32_t slot = 0;
  uint32_t generation = 0;
  bool in_response = false;  // a request is being answered
  bool streaming = false;    // chunked response in progress
  bool keep_alive = true;
  bool close_after_write = false;
  bool dirty = false;
  bool want_write = false;  // EPOLLOUT registered
  std::string rbuf;
  std::string wbuf;
  size_t woff = 0;
  std::vector<size_t> send_stamps;  // placeholder offsets in wbuf, ascending
  ConnId id() const { return (static_cast<uint64_t>(slot) << 32) | generation; }
  void OnFdEvents(uint32_t events) override { server->OnConnectionEvents(this, events); }
};

class HttpServer::Listener final : public EventLoop::FdHandler {
 public:
  explicit Listener(HttpServer* s) : s_(s) {}
  void OnFdEvents(uint32_t) override { s_->Accept(); }

 private:
  HttpServer* s_;
};

HttpServer::HttpServer(EventLoop* loop, Handler* handler) : loop_(loop), handler_(handler) {}

StatusOr<std::unique_ptr<HttpServer>> HttpServer::Listen(EventLoop* loop, const std::string& host,
                                                         int port, Handler* handler) {
  std::unique_ptr<HttpServer> s(new HttpServer(loop, handler));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  std::string h = host == "localhost" ? "127.0.0.1" : host;
  if (inet_pton(AF_INET, h.c_str(), &addr.sin_addr) != 1) {
    return Status::InvalidArgument(fmt::format(
        "--host {}: not an IPv4 address (use 127.0.0.1, the default, or 0.0.0.0)", host));
  }
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::Internal(std::string("socket: ") + std::strerror(errno));
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    int e = errno;
    close(fd);
    return Status::Unavailable(
        fmt::format("[Errno {}] {}: cannot bind {}:{}", e, std::strerror(e), host, port));
  }
  if (listen(fd, 4096) != 0) {
    close(fd);
    return Status::Internal(std::string("listen: ") + std::strerror(errno));
  }
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  s->listen_fd_ = fd;
  s->port_ = ntohs(addr.sin_port);
  s->listener_ = std::make_unique<Listener>(s.get());
  SB_RETURN_IF_ERROR(loop->Add(fd, EPOLLIN, s->listener_.get()));
  HttpServer* raw = s.get();
  loop->AddBeforeWaitHook([raw] {
    raw->FlushAll();
    raw->ReapClosed();
  });
  return s;
}

HttpServer::~HttpServer() {
  for (auto& c : slots_) {
    if (c->fd >= 0) {
      loop_->Remove(c->fd);
      close(c->fd);
    }
  }
  if (listen_fd_ >= 0) {
    loop_->Remove(listen_fd_);
    close(listen_fd_);
  }
}

HttpServer::Connection* HttpServer::Find(ConnId conn) const {
  uint32_t slot = static_cast<uint32_t>(conn >> 32);
  if (slot >= slots_.size()) return nullptr;
  Connection* c = slots_[slot].get();
  if (c->generation != static_cast<uint32_t>(conn) || c->fd < 0) return nullptr;
  return c;
}

bool HttpServer::IsOpen(ConnId conn) const { return Find(conn) != nullptr; }

size_t HttpServer::PendingBytes(ConnId conn) const {
  Connection* c = Find(conn);
  return c ? c->wbuf.size() - c->woff : 0;
}

void HttpServer::Accept() {
  for (;;) {
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN, or a transient error (EMFILE): try again on the next event
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    uint32_t slot;
    if (!free_slots_.empty()) {
      slot = free_slots_.back();
      free_slots_.pop_back();
    } else {
      slot = static_cast<uint32_t>(slots_.size());
      slots_.push_back(std::make_unique<Connection>());
      slots_.back()->server = this;
      slots_.back()->slot = slot;
    }
    Connection* c = slots_[slot].get();
    c->fd = fd;
    c->in_response = c->streaming = c->close_after_write = c->dirty = c->want_write = false;
    c->keep_alive = true;
    c->rbuf.clear();
    c->wbuf.clear();
    c->woff = 0;
    ++open_connections_;
    if (!loop_->Add(fd, EPOLLIN | EPOLLRDHUP, c).ok()) Close(c, false);
  }
}

void HttpServer::OnConnectionEvents(Connection* c, uint32_t events) {
  if (c->fd < 0) return;  // closed earlier in this iteration
  if (events & (EPOLLERR | EPOLLHUP)) {
    Close(c, true);
    return;
  }
  if (events & EPOLLOUT) Flush(c);
  if (c->fd >= 0 && (events & (EPOLLIN | EPOLLRDHUP))) ReadFrom(c);
}

void HttpServer::ReadFrom(Connection* c) {
  char buf[kReadChunk];
  for (;;) {
    ssize_t n = read(c->fd, buf, sizeof buf);
    if (n > 0) {
      c->rbuf.append(buf, static_cast<size_t>(n));
      if (static_cast<size_t>(n) < sizeof buf) break;
      continue;
    }
    if (n == 0) {  // peer closed
      Close(c, true);
      return;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK) break;
    if (errno == EINTR) continue;
    Close(c, true);
    return;
  }
  ParseRequests(c);
}

void HttpServer::ParseRequests(Connection* c) {
  while (c->fd >= 0 && !c->in_response && !c->rbuf.empty()) {
    size_t end = c->rbuf.find("\r\n\r\n");
    if (end == std::string::npos) {
      if (c->rbuf.size() > kMaxHeaderBytes) {
        c->keep_alive = false;
        Respond(
            c->id(), 431, "application/json",
            R"({"object":"error","message":"request headers exceed 64 KiB","type":"BadRequestError","param":null,"code":431})");
      }
      return;
    }
    std::string_view head(c->rbuf.data(), end);
    size_t line_end = head.find("\r\n");
    std::string_view request_line = head.substr(0, line_end);
    HttpRequest req;
    size_t sp1 = request_line.find(' ');
    size_t sp2 = request_line.rfind(' ');
    if (sp1 == std::string_view::npos || sp2 == sp1) {
      c->keep_alive = false;
      Respond(
          c->id(), 400, "application/json",
          R"({"object":"error","message":"malformed HTTP request line","type":"BadRequestError","param":null,"code":400})");
      return;
    }
    req.method = std::string(request_line.substr(0, sp1));
    req.target = std::string(request_line.substr(sp1 + 1, sp2 - sp1 - 1));
    bool http10 = request_line.substr(sp2 + 1) == "HTTP/1.0";
    req.keep_alive = !http10;
    size_t content_length = 0;
    bool chunked = false;
    size_t pos = line_end == std::string_view::npos ? head.size() : line_end + 2;
    while (pos < head.size()) {
      size_t e = head.find("\r\n", pos);
      if (e == std::string_view::npos) e = head.size();
      std::string_view line = head.substr(pos, e - pos);
      pos = e + 2;
      size_t colon = line.find(':');
      if (colon == std::string_view::npos) continue;
      std::string_view name = line.substr(0, colon);
      std::string_view value = Trim(line.substr(colon + 1));
      if (IEquals(name, "content-length")) {
        content_length = std::strtoull(std::string(value).c_str(), nullptr, 10);
      } else if (IEquals(name, "connection")) {
        if (IEquals(value, "close")) req.keep_alive = false;
        if (IEquals(value, "keep-alive")) req.keep_alive = true;
      } else if (IEquals(name, "authorization")) {
        req.authorization = std::string(value);
      } else if (IEquals(name, "transfer-encoding")) {
        chunked = !IEquals(value, "identity");
      }
    }
    if (chunked) {
      c->keep_alive = false;
      Respond(
          c->id(), 501, "application/json",
          R"({"object":"error","message":"chunked request bodies are not supported; send Content-Length","type":"NotImplementedError","param":null,"code":501})");
      return;
    }
    if (content_length > kMaxBodyBytes) {
      c->keep_alive = false;
      Respond(
          c->id(), 413, "application/json",
          R"({"object":"error","message":"request body exceeds 64 MiB","type":"BadRequestError","param":null,"code":413})");
      return;
    }
    size_t total = end + 4 + content_length;
    if (c->rbuf.size() < total) return;  // wait for the rest of the body
    req.body.assign(c->rbuf, end + 4, content_length);
    c->rbuf.erase(0, total);
    c->in_response = true;
    c->keep_alive = req.keep_alive;
    handler_->OnRequest(c->id(), req);
  }
}

void HttpServer::MarkDirty(Connection* c) {
  if (!c->dirty) {
    c->dirty = true;
    dirty_.push_back(c);
  }
}

void HttpServer::Respond(ConnId conn, int status, std::string_view content_type,
                         std::string_view body) {
  Connection* c = Find(conn);
  if (!c) return;
  size_t before = c->wbuf.size();
  fmt::format_to(std::back_inserter(c->wbuf),
                 "HTTP/1.1 {} {}\r\nserver: servebench-sim\r\ncontent-type: {}\r\n"
                 "content-length: {}\r\n{}\r\n",
                 status, HttpReason(status), content_type, body.size(),
                 c->keep_alive ? "" : "connection: close\r\n");
  c->wbuf.append(body);
  pending_total_ += c->wbuf.size() - before;
  MarkDirty(c);
  FinishResponse(c);
}

void HttpServer::BeginStream(ConnId conn, int status, std::string_view content_type) {
  Connection* c = Find(conn);
  if (!c) return;
  size_t before = c->wbuf.size();
  fmt::format_to(std::back_inserter(c->wbuf),
                 "HTTP/1.1 {} {}\r\nserver: servebench-sim\r\ncontent-type: {}\r\n"
                 "cache-control: no-cache\r\ntransfer-encoding: chunked\r\n{}\r\n",
                 status, HttpReason(status), content_type,
                 c->keep_alive ? "" : "connection: close\r\n");
  c->streaming = true;
  pending_total_ += c->wbuf.size() - before;
  MarkDirty(c);
}

void HttpServer::WriteChunk(ConnId conn, std::string_view data,
                            std::span<const size_t> send_stamps) {
  Connection* c = Find(conn);
  if (!c || !c->streaming || data.empty()) return;
  char hex[24];
  int n = std::snprintf(hex, sizeof hex, "%zx\r\n", data.size());
  c->wbuf.append(hex, static_cast<size_t>(n));
  for (size_t at : send_stamps) c->send_stamps.push_back(c->wbuf.size() + at);
  c->wbuf.append(data);
  c->wbuf.append("\r\n", 2);
  pending_total_ += static_cast<size_t>(n) + data.size() + 2;
  MarkDirty(c);
}

void HttpServer::EndStream(ConnId conn) {
  Connection* c = Find(conn);
  if (!c || !c->streaming) return;
  c->wbuf.append("0\r\n\r\n", 5);
  pending_total_ += 5;
  c->streaming = false;
  MarkDirty(c);
  FinishResponse(c);
}

void HttpServer::FinishResponse(Connection* c) {
  c->in_response = false;
  if (!c->keep_alive) {
    c->close_after_write = true;
    return;
  }
  // A pipelined request may already be buffered; handle it after this iteration's
  // handlers have run, never recursively inside one.
  if (!c->rbuf.empty()) {
    ConnId id = c->id();
    loop_->Post([this, id] {
      if (Connection* cc = Find(id)) ParseRequests(cc);
    });
  }
}

void HttpServer::Abort(ConnId conn) {
  Connection* c = Find(conn);
  if (!c) return;
  // What was already produced leaves first (best effort, one send), as when a
  // real server process drops a connection mid-stream.
  if (c->woff < c->wbuf.size()) (void)SendPending(c);
  Close(c, false);
}

ssize_t HttpServer::SendPending(Connection* c) {
  if (!c->send_stamps.empty()) {
    // One clock read for every stamp this send() carries: they leave together.
    char digits[kSendStampWidth + 1];
    std::snprintf(digits, sizeof digits, "%*lld", static_cast<int>(kSendStampWidth),
                  static_cast<long long>(MonotonicNowNs()));
    for (size_t at : c->send_stamps) std::memcpy(c->wbuf.data() + at, digits, kSendStampWidth);
  }
  ssize_t n = send(c->fd, c->wbuf.data() + c->woff, c->wbuf.size() - c->woff, MSG_NOSIGNAL);
  if (n > 0) {
    c->woff += static_cast<size_t>(n);
    pending_total_ -= static_cast<size_t>(n);
    // A stamp whose first byte has left is final; only wholly unsent ones are redone.
    auto sent = std::find_if(c->send_stamps.begin(), c->send_stamps.end(),
                             [&](size_t at) { return at >= c->woff; });
    c->send_stamps.erase(c->send_stamps.begin(), sent);
  }
  return n;
}

void HttpServer::Flush(Connection* c) {
  while (c->woff < c->wbuf.size()) {
    ssize_t n = SendPending(c);
    if (n > 0) continue;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!c->want_write) {
        c->want_write = true;
        (void)loop_->Modify(c->fd, EPOLLIN | EPOLLOUT | EPOLLRDHUP, c);
      }
      return;
    }
    Close(c, true);
    return;
  }
  c->wbuf.clear();
  c->woff = 0;
  c->send_stamps.clear();
  if (c->wbuf.capacity() > (1 << 20)) c->wbuf.shrink_to_fit();
  if (c->want_write) {
    c->want_write = false;
    (void)loop_->Modify(c->fd, EPOLLIN | EPOLLRDHUP, c);
  }
  if (c->close_after_write) Close(c, false);
}

void HttpServer::FlushAll() {
  std::vector<Connection*> dirty;
  dirty.swap(dirty_);
  for (Connection* c : dirty) {
    c->dirty = false;
    if (c->fd >= 0) Flush(c);
  }
}

void HttpServer::Close(Connection* c, bool notify) {
  if (c->fd < 0) return;
  bool unfinished = c->in_response;
  ConnId id = c->id();
  loop_->Remove(c->fd);
  close(c->fd);
  c->fd = -1;
  c->in_response = c->streaming = false;
  pending_total_ -= c->wbuf.size() - c->woff;
  c->rbuf.clear();
  c->rbuf.shrink_to_fit();
  c->wbuf.clear();
  c->wbuf.shrink_to_fit();
  c->woff = 0;
  c->send_stamps.clear();
  --open_connections_;
  closed_slots_.push_back(c->slot);
  // Both a peer's close and our own Abort leave an unfinished request that the
  // handler must release; `notify` only documents which one it was.
  (void)notify;
  if (unfinished) handler_->OnConnectionLost(id);
}

void HttpServer::ReapClosed() {
  for (uint32_t slot : closed_slots_) {
    ++slots_[slot]->generation;
    free_slots_.push_back(slot);
  }
  closed_slots_.clear();
}

}  // namespace servebench::sim
