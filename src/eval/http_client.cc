#include "eval/http_client.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <optional>
#include <thread>

namespace servebench::eval {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

// One attempt's outcome: a status code and body, or a transport error.
struct Attempt {
  int status = 0;  // 0: transport failure (see error)
  std::string body;
  Status error;
  bool reused_connection = false;  // sent on a keep-alive connection from before
};

bool Retryable(const Attempt& attempt) {
  if (attempt.status == 0) return attempt.error.code() != StatusCode::kCancelled;
  return attempt.status == 408 || attempt.status == 429 || attempt.status >= 500;
}

}  // namespace

StatusOr<HttpTarget> ParseBaseUrl(std::string_view url) {
  constexpr std::string_view kScheme = "http://";
  if (!url.starts_with(kScheme)) {
    return Status::InvalidArgument(fmt::format(
        "base URL '{}' must start with http:// (https is not supported by the eval client)", url));
  }
  std::string_view rest = url.substr(kScheme.size());
  size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string path = slash == std::string_view::npos ? "" : std::string(rest.substr(slash));
  while (!path.empty() && path.back() == '/') path.pop_back();
  if (path.ends_with("/v1")) path.resize(path.size() - 3);
  HttpTarget target;
  size_t colon = authority.rfind(':');
  target.host = std::string(authority.substr(0, colon));
  target.port = colon == std::string_view::npos ? "80" : std::string(authority.substr(colon + 1));
  target.path_prefix = path;
  if (target.host.empty() || target.port.empty() ||
      target.port.find_first_not_of("0123456789") != std::string::npos) {
    return Status::InvalidArgument(
        fmt::format("base URL '{}' is not http://HOST[:PORT][/PATH]", url));
  }
  return target;
}

// The keep-alive connection and the io_context that drives it. Operations are
// asynchronous only so that a deadline and the cancel flag can interrupt them;
// Exchange() runs the context until the attempt completes.
class HttpClient::Connection {
 public:
  Connection(const HttpTarget& target, bool keep_alive)
      : target_(target), keep_alive_(keep_alive), stream_(ioc_) {}

  Attempt Exchange(const std::string& target_path, std::string_view body, uint64_t timeout_ms,
                   const std::atomic<bool>* cancel) {
    Attempt attempt;
    bool done = false;
    auto fail = [&](const beast::error_code& ec, std::string_view what) {
      attempt.status = 0;
      attempt.error =
          ec == beast::error::timeout
              ? Status::DeadlineExceeded(fmt::format("{} timed out after {} ms", what, timeout_ms))
              : Status::Unavailable(
                    fmt::format("{} {}:{}: {}", what, target_.host, target_.port, ec.message()));
      connected_ = false;
      beast::error_code ignored;
      stream_.socket().close(ignored);
      done = true;
    };

    attempt.reused_connection = connected_;
    request_ = {};
    request_.method(http::verb::post);
    request_.target(target_path);
    request_.version(11);
    request_.set(http::field::host, target_.host + ":" + target_.port);
    request_.set(http::field::content_type, "application/json");
    request_.keep_alive(keep_alive_);
    request_.body() = std::string(body);
    request_.prepare_payload();
    response_.emplace();
    response_->body_limit(64 * 1024 * 1024);
    buffer_.clear();

    auto on_read = [&](beast::error_code ec, size_t) {
      if (ec) return fail(ec, "read reply from");
      attempt.status = static_cast<int>(response_->get().result_int());
      attempt.body = std::move(response_->get().body());
      if (!keep_alive_ || !response_->get().keep_alive()) {
        connected_ = false;
        beast::error_code ignored;
        stream_.socket().close(ignored);
      }
      done = true;
    };
    auto on_write = [&](beast::error_code ec, size_t) {
      if (ec) return fail(ec, "send request to");
      http::async_read(stream_, buffer_, *response_, on_read);
    };
    auto send = [&] { http::async_write(stream_, request_, on_write); };

    stream_.expires_after(std::chrono::milliseconds(timeout_ms));
    if (connected_) {
      send();
    } else {
      tcp::resolver resolver(ioc_);
      beast::error_code ec;
      auto endpoints = resolver.resolve(target_.host, target_.port, ec);
      if (ec) {
        fail(ec, "resolve");
        return attempt;
      }
      stream_.async_connect(endpoints, [&](beast::error_code ec2, const tcp::endpoint&) {
        if (ec2) return fail(ec2, "connect to");
        connected_ = true;
        send();
      });
    }
    ioc_.restart();
    while (!done) {
      ioc_.run_for(std::chrono::milliseconds(50));
      if (!done && cancel != nullptr && cancel->load()) {
        stream_.cancel();  // handlers run with operation_aborted, closing the socket
        ioc_.restart();
        ioc_.run();
        attempt.status = 0;
        attempt.error = Status::Cancelled("request cancelled (interrupted)");
        connected_ = false;
        return attempt;
      }
    }
    return attempt;
  }

 private:
  HttpTarget target_;
  bool keep_alive_;
  asio::io_context ioc_;
  beast::tcp_stream stream_;
  bool connected_ = false;
  beast::flat_buffer buffer_;
  http::request<http::string_body> request_;
  std::optional<http::response_parser<http::string_body>> response_;  // fresh per attempt
};

HttpClient::HttpClient(HttpTarget target, HttpClientSettings settings)
    : target_(std::move(target)),
      settings_(settings),
      connection_(std::make_unique<Connection>(target_, settings.keep_alive)) {}

HttpClient::~HttpClient() = default;

StatusOr<HttpReply> HttpClient::Post(std::string_view path, std::string_view body,
                                     const std::atomic<bool>* cancel, uint32_t* attempts_out) {
  std::string full_path = target_.path_prefix + std::string(path);
  uint64_t backoff_ms = settings_.retry_backoff_ms;
  Attempt last;
  uint32_t attempts = 0;
  auto cancelled = [cancel] { return cancel != nullptr && cancel->load(); };
  for (uint32_t i = 0; i <= settings_.max_retries; ++i) {
    if (cancelled()) break;
    if (i > 0) {
      // Sleep in slices so Ctrl-C is honoured during a long backoff.
      auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(backoff_ms);
      while (std::chrono::steady_clock::now() < until && !cancelled()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      if (cancelled()) break;
      backoff_ms = std::min<uint64_t>(backoff_ms * 2, 8000);
    }
    ++attempts;
    last = connection_->Exchange(full_path, body, settings_.timeout_ms, cancel);
    // A keep-alive connection the server closed while idle fails on first use;
    // that is not the server failing this request, so reconnect once for free.
    if (last.status == 0 && last.reused_connection &&
        last.error.code() == StatusCode::kUnavailable) {
      last = connection_->Exchange(full_path, body, settings_.timeout_ms, cancel);
    }
    if (last.status == 200) {
      if (attempts_out) *attempts_out = attempts;
      return HttpReply{std::move(last.body), attempts};
    }
    if (!Retryable(last)) break;
  }
  if (attempts_out) *attempts_out = attempts;
  if (cancelled() && last.status != 200)
    return Status::Cancelled("request cancelled (interrupted)");
  if (last.status == 0) {
    return Status(last.error.code(),
                  fmt::format("{} (after {} attempts)", last.error.message(), attempts));
  }
  std::string snippet = last.body.substr(0, 300);
  return Status(last.status >= 500 || last.status == 429 || last.status == 408
                    ? StatusCode::kUnavailable
                    : StatusCode::kInvalidArgument,
                fmt::format("POST {} answered HTTP {} (after {} attempts): {}", full_path,
                            last.status, attempts, snippet));
}

}  // namespace servebench::eval
