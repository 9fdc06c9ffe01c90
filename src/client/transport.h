// Transport: one client connection (plain TCP or TLS over TCP) on an Asio
// io_context. TCP_NODELAY is set on connect. Not thread-safe: a connection lives
// on its worker's thread. TLS peers are verified against the system store unless
// `insecure` (self-signed test servers).
#pragma once

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <functional>
#include <memory>
#include <optional>

#include "client/url.h"

namespace servebench::client {

class Transport {
 public:
  using Handler = std::function<void(const boost::system::error_code&, size_t)>;
  using ConnectHandler = std::function<void(const boost::system::error_code&)>;

  // `tls_context` is null for http://; it must outlive the transport.
  Transport(boost::asio::io_context& io, boost::asio::ssl::context* tls_context,
            const std::string& sni_host);

  void AsyncConnect(const boost::asio::ip::tcp::resolver::results_type& endpoints,
                    ConnectHandler done);
  // Handlers take (const error_code&, size_t); templates so the hot path has no
  // type-erased call per read.
  template <typename H>
  void AsyncWriteAll(const std::string& bytes, H&& done) {
    if (tls_) {
      boost::asio::async_write(*tls_, boost::asio::buffer(bytes), std::forward<H>(done));
    } else {
      boost::asio::async_write(*plain_, boost::asio::buffer(bytes), std::forward<H>(done));
    }
  }
  template <typename H>
  void AsyncReadSome(char* buf, size_t size, H&& done) {
    if (tls_) {
      tls_->async_read_some(boost::asio::buffer(buf, size), std::forward<H>(done));
    } else {
      plain_->async_read_some(boost::asio::buffer(buf, size), std::forward<H>(done));
    }
  }
  // Closes the socket; pending operations complete with operation_aborted.
  void Close();
  bool is_open() const;

 private:
  boost::asio::io_context& io_;
  boost::asio::ssl::context* tls_context_;
  std::string sni_host_;
  std::optional<boost::asio::ip::tcp::socket> plain_;
  std::optional<boost::asio::ssl::stream<boost::asio::ip::tcp::socket>> tls_;
};

}  // namespace servebench::client
