// Test helper: a tiny HTTP server on 127.0.0.1 (ephemeral port) standing in for an
// engine's API while a fake engine process runs: /health answers 503 for the first
// `unhealthy_probes` requests, then 200; /v1/models 200; /version {"version":...}.
// One thread; stops in its destructor.
#pragma once

#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <string>
#include <thread>

namespace servebench::engine::testing {

class TestHttpServer {
 public:
  // llama_cpp_style: no /version; /props carries {"build_info": ...} instead.
  explicit TestHttpServer(int unhealthy_probes, bool llama_cpp_style = false)
      : llama_cpp_style_(llama_cpp_style), unhealthy_left_(unhealthy_probes) {
    namespace asio = boost::asio;
    acceptor_.open(asio::ip::tcp::v4());
    acceptor_.set_option(asio::socket_base::reuse_address(true));
    acceptor_.bind({asio::ip::make_address("127.0.0.1"), 0});
    acceptor_.listen();
    port_ = acceptor_.local_endpoint().port();
    Accept();
    thread_ = std::thread([this] { ioc_.run(); });
  }
  ~TestHttpServer() {
    ioc_.stop();
    thread_.join();
  }
  int port() const { return port_; }
  int requests() const { return requests_.load(); }

 private:
  void Accept() {
    acceptor_.async_accept(
        [this](boost::system::error_code ec, boost::asio::ip::tcp::socket socket) {
          if (ec) return;
          Serve(std::move(socket));  // blocking per connection: fine for probes
          Accept();
        });
  }
  void Serve(boost::asio::ip::tcp::socket socket) {
    namespace http = boost::beast::http;
    boost::beast::flat_buffer buffer;
    http::request<http::string_body> request;
    boost::system::error_code ec;
    http::read(socket, buffer, request, ec);
    if (ec) return;
    ++requests_;
    http::response<http::string_body> response{http::status::ok, 11};
    const std::string target(request.target());
    if (target == "/health") {
      if (unhealthy_left_ > 0) {
        --unhealthy_left_;
        response.result(http::status::service_unavailable);
      }
      response.body() = "";
    } else if (target == "/v1/models") {
      response.body() = R"({"object":"list","data":[{"id":"fake"}]})";
    } else if (target == "/props" && llama_cpp_style_) {
      response.body() = R"({"build_info":"b6500-abc123"})";
    } else if (target == "/version" && !llama_cpp_style_) {
      response.body() = R"({"version":"9.9.9-fake"})";
    } else {
      response.result(http::status::not_found);
    }
    response.prepare_payload();
    http::write(socket, response, ec);
  }

  boost::asio::io_context ioc_;
  boost::asio::ip::tcp::acceptor acceptor_{ioc_};
  int port_ = 0;
  bool llama_cpp_style_;
  int unhealthy_left_;
  std::atomic<int> requests_{0};
  std::thread thread_;
};

}  // namespace servebench::engine::testing
