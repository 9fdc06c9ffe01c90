#include "engine/http_get.h"

#include <fmt/format.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>

namespace servebench::engine {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

StatusOr<HttpResponse> HttpGet(const std::string& host, int port, const std::string& path,
                               int64_t timeout_ms) {
  const std::string url = fmt::format("http://{}:{}{}", host, port, path);
  try {
    asio::io_context ioc;
    asio::ip::tcp::resolver resolver(ioc);
    beast::error_code ec;
    auto endpoints = resolver.resolve(host, std::to_string(port), ec);
    if (ec)
      return Status::Unavailable(
          fmt::format("GET {}: cannot resolve {}: {}", url, host, ec.message()));

    beast::tcp_stream stream(ioc);
    // One absolute deadline for connect, write and read together.
    stream.expires_after(std::chrono::milliseconds(timeout_ms));
    http::request<http::empty_body> request{http::verb::get, path, 11};
    request.set(http::field::host, fmt::format("{}:{}", host, port));
    request.set(http::field::user_agent, "servebench-readiness");
    request.set(http::field::connection, "close");
    beast::flat_buffer buffer;
    http::response_parser<http::string_body> parser;
    parser.body_limit(8u << 20);
    beast::error_code result;
    stream.async_connect(endpoints, [&](beast::error_code e, const asio::ip::tcp::endpoint&) {
      if (e) {
        result = e;
        return;
      }
      http::async_write(stream, request, [&](beast::error_code e2, size_t) {
        if (e2) {
          result = e2;
          return;
        }
        http::async_read(stream, buffer, parser,
                         [&](beast::error_code e3, size_t) { result = e3; });
      });
    });
    ioc.run();
    beast::error_code ignored;
    stream.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    if (result == beast::error::timeout) {
      return Status::DeadlineExceeded(
          fmt::format("GET {}: no answer within {} ms", url, timeout_ms));
    }
    if (result) return Status::Unavailable(fmt::format("GET {}: {}", url, result.message()));
    HttpResponse response;
    response.status = static_cast<int>(parser.get().result_int());
    response.body = std::move(parser.get().body());
    return response;
  } catch (const std::exception& e) {
    return Status::Unavailable(fmt::format("GET {}: {}", url, e.what()));
  }
}

}  // namespace servebench::engine
