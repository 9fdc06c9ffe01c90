#include "net/http_fetch.h"

#include <fmt/format.h>

#include <chrono>

#include "net/http_response_parser.h"
#include "net/transport.h"

namespace servebench::net {

namespace asio = boost::asio;
using asio::ip::tcp;

StatusOr<HttpReply> HttpFetch(const Url& url, const std::string& path, const std::string& body,
                              double timeout_s,
                              const std::vector<std::pair<std::string, std::string>>& headers,
                              const TlsOptions& tls_options) {
  try {
    asio::io_context io;
    std::unique_ptr<asio::ssl::context> tls;
    if (url.tls) {
      SB_ASSIGN_OR_RETURN(tls, MakeTlsContext(tls_options));
    }
    tcp::resolver resolver(io);
    boost::system::error_code ec;
    auto endpoints = resolver.resolve(url.host, url.port, ec);
    if (ec) {
      return Status::Unavailable(
          fmt::format("{}:{}: cannot resolve: {}", url.host, url.port, ec.message()));
    }
    Transport t(io, tls.get(), url.host);
    HttpReply reply;
    HttpResponseParser parser([&](std::string_view b) { reply.body.append(b); });
    std::string request =
        fmt::format("{} {}{} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n",
                    body.empty() ? "GET" : "POST", url.path, path, url.HostHeader());
    for (const auto& [k, v] : headers) request += k + ": " + v + "\r\n";
    if (!body.empty()) {
      request +=
          fmt::format("Content-Type: application/json\r\nContent-Length: {}\r\n", body.size());
    }
    request += "\r\n" + body;
    std::string error;
    std::vector<char> buf(64 * 1024);
    std::function<void()> read_more = [&] {
      t.AsyncReadSome(buf.data(), buf.size(), [&](const boost::system::error_code& rec, size_t n) {
        if (n > 0) {
          Status s = parser.Feed(std::string_view(buf.data(), n));
          if (!s.ok()) {
            error = s.message();
            return;
          }
        }
        if (parser.complete()) return t.Close();
        if (rec) {
          parser.OnEof();
          if (!parser.complete()) error = "connection closed early: " + rec.message();
          return;
        }
        read_more();
      });
    };
    t.AsyncConnect(endpoints, [&](const boost::system::error_code& cec) {
      if (cec) {
        error = DescribeConnectError(cec);
        return;
      }
      t.AsyncWriteAll(request, [&](const boost::system::error_code& wec, size_t) {
        if (wec) {
          error = "write: " + wec.message();
          return;
        }
        read_more();
      });
    });
    io.run_for(std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::duration<double>(timeout_s)));
    if (!io.stopped()) {
      t.Close();
      io.run_for(std::chrono::milliseconds(100));
      return Status::DeadlineExceeded(
          fmt::format("{}{}: no complete reply within {} s", url.HostHeader(), path, timeout_s));
    }
    if (!error.empty()) {
      return Status::Unavailable(
          fmt::format("{}{}{}: {}", url.HostHeader(), url.path, path, error));
    }
    if (!parser.complete()) {
      return Status::Unavailable(fmt::format("{}{}: incomplete reply", url.HostHeader(), path));
    }
    reply.status = parser.status();
    return reply;
  } catch (const std::exception& e) {
    return Status::Unavailable(fmt::format("{}{}: {}", url.HostHeader(), path, e.what()));
  }
}

}  // namespace servebench::net
