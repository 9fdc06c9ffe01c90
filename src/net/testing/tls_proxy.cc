#include "net/testing/tls_proxy.h"

#include <array>

namespace servebench::net::testing {

namespace asio = boost::asio;
using asio::ip::tcp;

// One client connection: TLS on the front, plain TCP to the backend. Each
// direction is a read-then-write loop; either side closing closes both.
struct TlsProxy::Session : std::enable_shared_from_this<Session> {
  Session(asio::io_context& io, asio::ssl::context& tls, tcp::socket front_socket)
      : front(std::move(front_socket), tls), back(io) {}

  void Start(int backend_port) {
    auto self = shared_from_this();
    front.async_handshake(asio::ssl::stream_base::server,
                          [self, backend_port](boost::system::error_code ec) {
                            if (ec) return self->Close();
                            tcp::endpoint to(asio::ip::make_address("127.0.0.1"),
                                             static_cast<unsigned short>(backend_port));
                            self->back.async_connect(to, [self](boost::system::error_code cec) {
                              if (cec) return self->Close();
                              self->back.set_option(tcp::no_delay(true));
                              self->Pump(self->front, self->back, self->up);
                              self->Pump(self->back, self->front, self->down);
                            });
                          });
  }
  // Copies what `from` reads to `to`, read then write, until either side fails.
  template <typename From, typename To>
  void Pump(From& from, To& to, std::array<char, 64 * 1024>& buf) {
    auto self = shared_from_this();
    from.async_read_some(
        asio::buffer(buf), [self, &from, &to, &buf](boost::system::error_code ec, size_t n) {
          if (ec) return self->Close();
          asio::async_write(to, asio::buffer(buf.data(), n),
                            [self, &from, &to, &buf](boost::system::error_code wec, size_t) {
                              if (wec) return self->Close();
                              self->Pump(from, to, buf);
                            });
        });
  }
  void Close() {
    boost::system::error_code ignored;
    front.lowest_layer().close(ignored);
    back.close(ignored);
  }

  asio::ssl::stream<tcp::socket> front;
  tcp::socket back;
  std::array<char, 64 * 1024> up{}, down{};
};

TlsProxy::TlsProxy(int backend_port, const std::string& cert_pem_path,
                   const std::string& key_pem_path)
    : backend_port_(backend_port) {
  tls_.use_certificate_chain_file(cert_pem_path);
  tls_.use_private_key_file(key_pem_path, asio::ssl::context::pem);
  tcp::endpoint at(asio::ip::make_address("127.0.0.1"), 0);
  acceptor_.open(at.protocol());
  acceptor_.set_option(tcp::acceptor::reuse_address(true));
  acceptor_.bind(at);
  acceptor_.listen();
  port_ = acceptor_.local_endpoint().port();
  Accept();
  thread_ = std::thread([this] { io_.run(); });
}

TlsProxy::~TlsProxy() {
  io_.stop();
  if (thread_.joinable()) thread_.join();
}

void TlsProxy::Accept() {
  acceptor_.async_accept([this](boost::system::error_code ec, tcp::socket s) {
    if (!ec) {
      s.set_option(tcp::no_delay(true));
      std::make_shared<Session>(io_, tls_, std::move(s))->Start(backend_port_);
    }
    if (acceptor_.is_open()) Accept();
  });
}

}  // namespace servebench::net::testing
