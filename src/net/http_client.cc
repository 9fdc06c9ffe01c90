// HttpClient drives one Transport on its own io_context. Operations are
// asynchronous only so that the attempt deadline and the cancel flag can interrupt
// them: Exchange() runs the context in 50 ms slices until the attempt is over, and
// after an interrupted attempt drains the aborted handlers before it returns (they
// refer to its locals).
#include "net/http_client.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <chrono>
#include <functional>
#include <optional>
#include <thread>

#include "common/version.h"
#include "net/http_response_parser.h"
#include "net/retry_policy.h"
#include "net/transport.h"

namespace servebench::net {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using Clock = std::chrono::steady_clock;

constexpr auto kSlice = std::chrono::milliseconds(50);

bool Cancelled(const std::atomic<bool>* cancel) { return cancel != nullptr && cancel->load(); }

// One attempt's outcome: a complete reply, or an error and whether to try again.
struct Attempt {
  bool replied = false;
  int status = 0;
  std::string body;
  Status error;
  bool retryable = true;
  bool stale = false;  // IsStaleConnection: re-send once on a fresh connection
};

}  // namespace

class HttpClient::Connection {
 public:
  Connection(Url base, FetchSettings settings, std::unique_ptr<asio::ssl::context> tls)
      : base_(std::move(base)), settings_(std::move(settings)), tls_(std::move(tls)) {}
  ~Connection() { Drop(); }

  const Url& base() const { return base_; }
  const FetchSettings& settings() const { return settings_; }
  int64_t connections_opened() const { return connections_opened_; }

  // Sends `wire` (a whole request) and reads one response within timeout_ms.
  Attempt Exchange(const std::string& wire, const std::atomic<bool>* cancel);

 private:
  // Closes the connection; the next Exchange() connects afresh.
  void Drop() {
    if (transport_) transport_->Close();
    connected_ = false;
  }
  Status ResolveOnce();

  Url base_;
  FetchSettings settings_;
  std::unique_ptr<asio::ssl::context> tls_;  // null for http://
  asio::io_context io_;
  std::optional<tcp::resolver::results_type> endpoints_;
  std::optional<Transport> transport_;
  bool connected_ = false;  // transport_ is open and has carried a whole response
  int64_t connections_opened_ = 0;
  std::vector<char> buffer_ = std::vector<char>(64 * 1024);
};

Status HttpClient::Connection::ResolveOnce() {
  if (endpoints_) return Status::Ok();
  tcp::resolver resolver(io_);
  boost::system::error_code ec;
  auto endpoints = resolver.resolve(base_.host, base_.port, ec);
  if (ec) {
    return Status::Unavailable(fmt::format("cannot resolve {}: {}", base_.host, ec.message()));
  }
  endpoints_ = std::move(endpoints);
  return Status::Ok();
}

Attempt HttpClient::Connection::Exchange(const std::string& wire, const std::atomic<bool>* cancel) {
  Attempt attempt;
  if (Status resolved = ResolveOnce(); !resolved.ok()) {
    attempt.error = resolved;
    return attempt;
  }
  const bool reused = connected_;
  uint64_t received = 0;
  bool done = false;
  bool body_too_large = false;
  HttpResponseParser parser([&](std::string_view bytes) {
    if (attempt.body.size() + bytes.size() > settings_.max_body_bytes) {
      body_too_large = true;
      return;
    }
    attempt.body.append(bytes);
  });
  auto fail = [&](std::string what, bool retryable) {
    attempt.error = Status::Unavailable(std::move(what));
    attempt.retryable = retryable;
    done = true;
  };
  std::function<void()> read_more = [&] {
    transport_->AsyncReadSome(
        buffer_.data(), buffer_.size(), [&](const boost::system::error_code& ec, size_t n) {
          if (done) return;
          if (n > 0) {
            received += n;
            if (Status fed = parser.Feed(std::string_view(buffer_.data(), n)); !fed.ok()) {
              return fail("bad HTTP response: " + fed.message(), false);
            }
            if (body_too_large) {
              return fail(fmt::format("response body exceeds {} bytes", settings_.max_body_bytes),
                          false);
            }
            if (parser.complete()) {
              done = true;
              return;
            }
          }
          if (ec) {
            parser.OnEof();
            if (parser.complete()) {  // a body that runs to the close
              done = true;
              return;
            }
            attempt.stale = IsStaleConnection(reused, received, ec);
            return fail(received == 0 ? "connection closed before any response: " + ec.message()
                                      : "connection closed mid-response: " + ec.message(),
                        true);
          }
          read_more();
        });
  };
  auto send = [&] {
    transport_->AsyncWriteAll(wire, [&](const boost::system::error_code& ec, size_t) {
      if (done) return;
      if (ec) {
        attempt.stale = IsStaleConnection(reused, 0, ec);
        return fail("write: " + ec.message(), true);
      }
      read_more();
    });
  };

  if (connected_) {
    send();
  } else {
    transport_.emplace(io_, tls_.get(), base_.host);
    ++connections_opened_;
    transport_->AsyncConnect(*endpoints_, [&](const boost::system::error_code& ec) {
      if (done) return;
      if (ec) return fail(DescribeConnectError(ec), !IsCertificateError(ec));
      connected_ = true;
      send();
    });
  }

  io_.restart();
  const auto deadline = Clock::now() + std::chrono::milliseconds(settings_.timeout_ms);
  bool timed_out = false, cancelled = false;
  while (!done) {
    const auto now = Clock::now();
    if (now >= deadline) {
      timed_out = true;
      break;
    }
    io_.run_for(std::min<Clock::duration>(kSlice, deadline - now));
    if (!done && Cancelled(cancel)) cancelled = true;
    if (cancelled) break;
  }
  if (!done) {
    // Abort what is pending and run the aborted handlers while their locals live.
    done = true;
    Drop();
    io_.restart();
    io_.run();
    attempt = Attempt{};
    if (cancelled) {
      attempt.error = Status::Cancelled("request cancelled (interrupted)");
      attempt.retryable = false;
    } else if (timed_out) {
      attempt.error = Status::DeadlineExceeded(
          fmt::format("no complete response within {} ms", settings_.timeout_ms));
    }
    return attempt;
  }
  if (!attempt.error.ok()) {
    Drop();
    return attempt;
  }
  attempt.replied = true;
  attempt.status = parser.status();
  if (!settings_.keep_alive || parser.connection_close() || !transport_->is_open()) Drop();
  return attempt;
}

StatusOr<HttpClient> HttpClient::Create(Url base, FetchSettings settings) {
  SB_RETURN_IF_ERROR(Validate(settings));
  std::unique_ptr<asio::ssl::context> tls;
  if (base.tls) {
    SB_ASSIGN_OR_RETURN(tls, MakeTlsContext(settings.tls));
  }
  return HttpClient(
      std::make_unique<Connection>(std::move(base), std::move(settings), std::move(tls)));
}

HttpClient::HttpClient(std::unique_ptr<Connection> connection)
    : connection_(std::move(connection)) {}
HttpClient::HttpClient(HttpClient&&) noexcept = default;
HttpClient& HttpClient::operator=(HttpClient&&) noexcept = default;
HttpClient::~HttpClient() = default;

const Url& HttpClient::base() const { return connection_->base(); }
int64_t HttpClient::connections_opened() const { return connection_->connections_opened(); }

StatusOr<HttpReply> HttpClient::Send(const HttpRequest& request, const std::atomic<bool>* cancel) {
  const FetchSettings& settings = connection_->settings();
  const Url& base = connection_->base();
  const std::string target = base.path + request.path;
  std::string wire = fmt::format("{} {} HTTP/1.1\r\nHost: {}\r\nUser-Agent: servebench/{}\r\n",
                                 request.method, target, base.HostHeader(), kVersion);
  if (!settings.keep_alive) wire += "Connection: close\r\n";
  for (const auto& [name, value] : request.headers) wire += name + ": " + value + "\r\n";
  if (!request.body.empty() || request.method == "POST") {
    wire += fmt::format("Content-Type: application/json\r\nContent-Length: {}\r\n",
                        request.body.size());
  }
  wire += "\r\n";
  wire += request.body;

  auto where = [&] {
    return fmt::format("{} {}{}", request.method, base.ToString(), request.path);
  };
  auto after = [&](uint32_t attempts) {
    return settings.max_retries == 0
               ? std::string()
               : fmt::format(" (after {} attempt{})", attempts, attempts == 1 ? "" : "s");
  };
  Attempt last;
  uint32_t& attempts = last_attempts_;
  attempts = 0;
  uint32_t timeouts = 0;
  for (;;) {
    if (Cancelled(cancel)) return Status::Cancelled("request cancelled (interrupted)");
    if (attempts > 0) {
      // Sleep in slices so that a cancel is honoured during a long backoff.
      const auto until = Clock::now() + std::chrono::milliseconds(
                                            RetryBackoffMs(settings.retry_backoff_ms, attempts));
      while (Clock::now() < until && !Cancelled(cancel)) {
        std::this_thread::sleep_for(std::min<Clock::duration>(kSlice, until - Clock::now()));
      }
      if (Cancelled(cancel)) return Status::Cancelled("request cancelled (interrupted)");
    }
    ++attempts;
    last = connection_->Exchange(wire, cancel);
    if (last.stale) last = connection_->Exchange(wire, cancel);
    if (last.error.code() == StatusCode::kCancelled) return last.error;
    const bool final_attempt = attempts > settings.max_retries;
    if (last.replied) {
      if (final_attempt || !IsRetryableStatus(last.status)) {
        return HttpReply{last.status, std::move(last.body), attempts};
      }
    } else if (final_attempt || !last.retryable ||
               (last.error.code() == StatusCode::kDeadlineExceeded &&
                ++timeouts > settings.max_timeout_retries)) {
      return Status(last.error.code(),
                    fmt::format("{}: {}{}", where(), last.error.message(), after(attempts)));
    }
  }
}

StatusOr<HttpReply> HttpClient::Get(std::string path) {
  HttpRequest request;
  request.path = std::move(path);
  return Send(request);
}

StatusOr<HttpReply> HttpClient::Post(std::string path, std::string json_body,
                                     const std::atomic<bool>* cancel) {
  HttpRequest request;
  request.method = "POST";
  request.path = std::move(path);
  request.body = std::move(json_body);
  return Send(request, cancel);
}

}  // namespace servebench::net
