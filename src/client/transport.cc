#include "client/transport.h"

#include <openssl/ssl.h>

namespace servebench::client {

namespace asio = boost::asio;
using asio::ip::tcp;

Transport::Transport(asio::io_context& io, asio::ssl::context* tls_context,
                     const std::string& sni_host)
    : io_(io), tls_context_(tls_context), sni_host_(sni_host) {
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
  asio::async_connect(sock, endpoints,
                      [this, done = std::move(done), &sock](const boost::system::error_code& ec,
                                                            const tcp::endpoint&) mutable {
                        if (ec) return done(ec);
                        boost::system::error_code ignored;
                        sock.set_option(tcp::no_delay(true), ignored);
                        if (!tls_) return done(ec);
                        SSL_set_tlsext_host_name(tls_->native_handle(), sni_host_.c_str());
                        tls_->set_verify_callback(asio::ssl::host_name_verification(sni_host_));
                        tls_->async_handshake(asio::ssl::stream_base::client,
                                              [done = std::move(done)](
                                                  const boost::system::error_code& hec) {
                                                done(hec);
                                              });
                      });
}

void Transport::Close() {
  boost::system::error_code ignored;
  tcp::socket& sock = tls_ ? tls_->next_layer() : *plain_;
  if (sock.is_open()) {
    sock.shutdown(tcp::socket::shutdown_both, ignored);
    sock.close(ignored);
  }
}

}  // namespace servebench::client
