// TlsProxy: a TLS-terminating TCP proxy on 127.0.0.1 for https:// tests. It accepts
// TLS connections with the given certificate and key, and pipes the decrypted bytes
// both ways to a plain-TCP backend (a `servebench sim`, say), so a test drives real
// TLS over real sockets against the real server behind it. One thread runs every
// connection; the destructor stops it. Tests only.
#pragma once

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <memory>
#include <string>
#include <thread>

namespace servebench::net::testing {

class TlsProxy {
 public:
  // Listens on 127.0.0.1 (a free port) and forwards to 127.0.0.1:backend_port.
  // Throws std::exception when the certificate or key cannot be loaded.
  TlsProxy(int backend_port, const std::string& cert_pem_path, const std::string& key_pem_path);
  ~TlsProxy();
  TlsProxy(const TlsProxy&) = delete;
  TlsProxy& operator=(const TlsProxy&) = delete;

  int port() const { return port_; }
  // https://<host>:<port>; host "127.0.0.1" or "localhost" (both are in the test certificate).
  std::string base_url(const std::string& host = "127.0.0.1") const {
    return "https://" + host + ":" + std::to_string(port_);
  }

 private:
  struct Session;
  void Accept();

  int backend_port_;
  boost::asio::io_context io_;
  boost::asio::ssl::context tls_{boost::asio::ssl::context::tls_server};
  boost::asio::ip::tcp::acceptor acceptor_{io_};
  int port_ = 0;
  std::thread thread_;
};

}  // namespace servebench::net::testing
