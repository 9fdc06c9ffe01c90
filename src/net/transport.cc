#include "net/transport.h"

#include <fmt/format.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>

#include "common/clock.h"

namespace servebench::net {

namespace asio = boost::asio;
using asio::ip::tcp;

StatusOr<std::unique_ptr<asio::ssl::context>> MakeTlsContext(const TlsOptions& options) {
  auto ctx = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_client);
  if (options.insecure) {
    ctx->set_verify_mode(asio::ssl::verify_none);
    return ctx;
  }
  ctx->set_default_verify_paths();
  if (!options.ca_cert_file.empty()) {
    boost::system::error_code ec;
    ctx->load_verify_file(options.ca_cert_file, ec);
    if (ec) {
      return Status::InvalidArgument(
          fmt::format("--ssl-ca-cert {}: cannot load PEM certificates: {}", options.ca_cert_file,
                      ec.message()));
    }
  }
  ctx->set_verify_mode(asio::ssl::verify_peer);
  return ctx;
}

bool IsCertificateError(const boost::system::error_code& ec) {
  return ec.category() == asio::error::get_ssl_category() &&
         ERR_GET_REASON(static_cast<unsigned long>(ec.value())) == SSL_R_CERTIFICATE_VERIFY_FAILED;
}

std::string DescribeConnectError(const boost::system::error_code& ec) {
  if (ec.category() == asio::error::get_ssl_category() ||
      ec.category() == asio::ssl::error::get_stream_category()) {
    std::string reason = ec.message();
    if (IsCertificateError(ec)) {
      return "TLS handshake: the server's certificate is not trusted or does not name this host (" +
             reason +
             "); trust its CA with --ssl-ca-cert FILE, or skip verification with --insecure";
    }
    return "TLS handshake: " + reason;
  }
  if (ec == asio::error::connection_refused)
    return "connect: " + ec.message() + "; is the server running?";
  return "connect: " + ec.message();
}

Transport::Transport(asio::io_context& io, asio::ssl::context* tls_context,
                     const std::string& sni_host, bool kernel_rx_timestamps)
    : io_(io),
      tls_context_(tls_context),
      sni_host_(sni_host),
      rx_timestamps_(kernel_rx_timestamps && tls_context == nullptr) {
  if (tls_context_) {
    tls_.emplace(io_, *tls_context_);
  } else {
    plain_.emplace(io_);
  }
}

bool Transport::is_open() const {
  return tls_ ? tls_->lowest_layer().is_open() : plain_->is_open();
}

void Transport::AsyncConnect(const tcp::resolver::results_type& endpoints, ConnectHandler done) {
  tcp::socket& sock = tls_ ? tls_->next_layer() : *plain_;
  asio::async_connect(
      sock, endpoints,
      [this, done = std::move(done), &sock](const boost::system::error_code& ec,
                                            const tcp::endpoint&) mutable {
        if (ec) return done(ec);
        boost::system::error_code ignored;
        sock.set_option(tcp::no_delay(true), ignored);
        if (rx_timestamps_) {
          // Set before the request leaves, so every byte of the
          // response is stamped; a kernel that refuses leaves reads
          // with the read time only.
          int on = 1;
          (void)setsockopt(sock.native_handle(), SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
        }
        if (!tls_) return done(ec);
        SSL_set_tlsext_host_name(tls_->native_handle(), sni_host_.c_str());
        if (SSL_CTX_get_verify_mode(tls_context_->native_handle()) != SSL_VERIFY_NONE) {
          tls_->set_verify_callback(asio::ssl::host_name_verification(sni_host_));
        }
        tls_->async_handshake(
            asio::ssl::stream_base::client,
            [done = std::move(done)](const boost::system::error_code& hec) { done(hec); });
      });
}

void Transport::StampReadOnly() {
  last_read_ns_ = MonotonicNowNs();
  last_receive_ns_ = -1;
}

bool Transport::TryReceive(char* buf, size_t size, boost::system::error_code* ec, size_t* n) {
  iovec iov{buf, size};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t got;
  do {
    got = recvmsg(plain_->native_handle(), &msg, MSG_DONTWAIT);
  } while (got < 0 && errno == EINTR);
  // The read time first, then the realtime clock right after it: the pair converts
  // the kernel's CLOCK_REALTIME stamp into CLOCK_MONOTONIC.
  last_read_ns_ = MonotonicNowNs();
  last_receive_ns_ = -1;
  if (got < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK) return false;
    *ec = boost::system::error_code(errno, boost::system::system_category());
    return true;
  }
  if (got == 0) {
    *ec = asio::error::eof;
    return true;
  }
  *n = static_cast<size_t>(got);
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS) continue;
    timespec ts{};
    std::memcpy(&ts, CMSG_DATA(c), sizeof ts);
    int64_t rx_realtime = static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
    if (rx_realtime <= 0) break;  // not stamped
    int64_t rx = rx_realtime - RealtimeNowNs() + last_read_ns_;
    // A clock step between the two reads could put it after the read: never later.
    last_receive_ns_ = std::min(rx, last_read_ns_);
    break;
  }
  return true;
}

size_t Transport::TryWriteNow(std::string_view bytes, boost::system::error_code* ec) {
  *ec = {};
  if (tls_ || !plain_->is_open() || bytes.empty()) return 0;
  // MSG_NOSIGNAL: a peer that closed is an EPIPE here, never a SIGPIPE.
  ssize_t sent =
      ::send(plain_->native_handle(), bytes.data(), bytes.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  if (sent >= 0) return static_cast<size_t>(sent);
  if (errno != EAGAIN && errno != EWOULDBLOCK) {
    *ec = boost::system::error_code(errno, boost::system::system_category());
  }
  return 0;
}

bool Transport::IdleConnectionUnusable() {
  tcp::socket& sock = tls_ ? tls_->next_layer() : *plain_;
  if (!sock.is_open()) return true;
  char byte = 0;
  ssize_t got = ::recv(sock.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  if (got < 0) return errno != EAGAIN && errno != EWOULDBLOCK;  // nothing there: usable
  return true;  // 0: the peer closed; > 0: bytes outside any response
}

void Transport::Close() {
  boost::system::error_code ignored;
  tcp::socket& sock = tls_ ? tls_->next_layer() : *plain_;
  if (sock.is_open()) {
    sock.shutdown(tcp::socket::shutdown_both, ignored);
    sock.close(ignored);
  }
}

}  // namespace servebench::net
