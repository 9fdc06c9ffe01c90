// Transport: one client connection (plain TCP or TLS over TCP) on an Asio
// io_context. TCP_NODELAY is set on connect. Not thread-safe: a connection lives
// on its worker's thread, or is lent, with nothing pending on it, to one other
// thread at a time (the load worker's pacer, load_worker.h) that hands it back.
//
// Receive timestamps. On plain TCP with `kernel_rx_timestamps`, the socket asks the
// kernel to stamp incoming data (SO_TIMESTAMPNS) and each read reports, beside the
// time it returned, the kernel's receive time of the newest bytes it delivered.
// That time does not move when the client's thread is late to read (another
// stream's parsing, a preempted core), which is why the load generator stamps its
// events with it. TLS reads go through OpenSSL's socket BIO, which drops the
// control message: they report the read time only.
//
// TLS peers are verified as TlsOptions says (tls_options.h).
#pragma once

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "net/tls_options.h"

namespace servebench::net {

// A client TLS context for https:// URLs; InvalidArgument when the CA file cannot be read.
StatusOr<std::unique_ptr<boost::asio::ssl::context>> MakeTlsContext(const TlsOptions& options);

// Says what a failed connect was: a TLS handshake error names the certificate
// problem and the flags that address it; a refused connection asks whether the
// server runs; anything else is "connect: <reason>".
std::string DescribeConnectError(const boost::system::error_code& ec);

// True when a TLS handshake failed because the peer's certificate was not trusted or
// did not name the host: trying again cannot help.
bool IsCertificateError(const boost::system::error_code& ec);

class Transport {
 public:
  using ConnectHandler = std::function<void(const boost::system::error_code&)>;

  // `tls_context` is null for http://; it must outlive the transport.
  Transport(boost::asio::io_context& io, boost::asio::ssl::context* tls_context,
            const std::string& sni_host, bool kernel_rx_timestamps = false);

  void AsyncConnect(const boost::asio::ip::tcp::resolver::results_type& endpoints,
                    ConnectHandler done);
  // Handlers take (const error_code&, size_t); templates so the hot path has no
  // type-erased call per read.
  template <typename H>
  void AsyncWriteAll(std::string_view bytes, H&& done) {
    if (tls_) {
      boost::asio::async_write(*tls_, boost::asio::buffer(bytes), std::forward<H>(done));
    } else {
      boost::asio::async_write(*plain_, boost::asio::buffer(bytes), std::forward<H>(done));
    }
  }
  // Plain TCP: one non-blocking send() of as much of `bytes` as the socket takes
  // now, on the calling thread, with no Asio operation (so a thread the connection
  // is lent to may call it). Returns the bytes written (0 when the socket buffer is
  // full); `ec` says why none could be. TLS: writes nothing and returns 0, with no
  // error (its records are written by AsyncWriteAll on the owning thread).
  size_t TryWriteNow(std::string_view bytes, boost::system::error_code* ec);
  bool is_tls() const { return tls_.has_value(); }
  // Reads what is there (at least one byte, or an error). Before `done` runs,
  // last_read_ns() and last_receive_ns() describe this read.
  template <typename H>
  void AsyncReadSome(char* buf, size_t size, H&& done) {
    if (tls_) {
      tls_->async_read_some(boost::asio::buffer(buf, size),
                            [this, done = std::forward<H>(done)](
                                const boost::system::error_code& ec, size_t n) mutable {
                              StampReadOnly();
                              done(ec, n);
                            });
    } else if (rx_timestamps_) {
      ReceiveWithTimestamp(buf, size, std::forward<H>(done));
    } else {
      plain_->async_read_some(boost::asio::buffer(buf, size),
                              [this, done = std::forward<H>(done)](
                                  const boost::system::error_code& ec, size_t n) mutable {
                                StampReadOnly();
                                done(ec, n);
                              });
    }
  }
  // CLOCK_MONOTONIC ns at which the last read returned.
  int64_t last_read_ns() const { return last_read_ns_; }
  // CLOCK_MONOTONIC ns at which the kernel received the newest bytes of the last
  // read; -1 when unknown (TLS, timestamps off, or the kernel did not stamp them).
  int64_t last_receive_ns() const { return last_receive_ns_; }

  // True when an idle connection must not carry another request: the peer has
  // closed it (a FIN or reset is queued) or sent bytes nobody asked for. One
  // non-blocking MSG_PEEK; call only with no read pending. A server can still close
  // right after this says false: the caller handles that race (load_worker.h).
  bool IdleConnectionUnusable();

  // Closes the socket; pending operations complete with operation_aborted.
  void Close();
  bool is_open() const;

 private:
  void StampReadOnly();
  // One recvmsg() with MSG_DONTWAIT; false when nothing was there (EAGAIN).
  bool TryReceive(char* buf, size_t size, boost::system::error_code* ec, size_t* n);
  template <typename H>
  void ReceiveWithTimestamp(char* buf, size_t size, H&& done) {
    plain_->async_wait(
        boost::asio::ip::tcp::socket::wait_read,
        [this, buf, size,
         done = std::forward<H>(done)](const boost::system::error_code& wait_ec) mutable {
          if (wait_ec) {  // closed or cancelled: no read happened
            StampReadOnly();
            return done(wait_ec, 0);
          }
          boost::system::error_code ec;
          size_t n = 0;
          if (!TryReceive(buf, size, &ec, &n)) {
            return ReceiveWithTimestamp(buf, size, std::move(done));  // spurious wake-up
          }
          done(ec, n);
        });
  }

  boost::asio::io_context& io_;
  boost::asio::ssl::context* tls_context_;
  std::string sni_host_;
  bool rx_timestamps_ = false;
  int64_t last_read_ns_ = 0;
  int64_t last_receive_ns_ = -1;
  std::optional<boost::asio::ip::tcp::socket> plain_;
  std::optional<boost::asio::ssl::stream<boost::asio::ip::tcp::socket>> tls_;
};

}  // namespace servebench::net
