// HttpClient over real loopback sockets against the fake OpenAI server: keep-alive
// reuse, stale connections, retries, deadlines, cancel, TLS through the TLS proxy.
#include "net/http_client.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "net/testing/fake_openai_server.h"
#include "net/testing/tls_proxy.h"

namespace servebench::net {
namespace {

using testing::FakeOpenAiServer;
using testing::FakeReply;
using testing::FakeServerOptions;

const std::string kTlsDir = std::string(SERVEBENCH_SOURCE_DIR) + "/src/net/testdata/tls/";
const std::string kCompletion = R"({"model":"fake","prompt":"2+2=","max_tokens":4})";
const std::string kStreamed = R"({"model":"fake","prompt":"2+2=","max_tokens":4,"stream":true})";

HttpClient MakeClient(const std::string& url, FetchSettings settings = {}) {
  StatusOr<Url> base = ParseUrl(url);
  EXPECT_TRUE(base.ok()) << base.status().ToString();
  StatusOr<HttpClient> client = HttpClient::Create(*base, settings);
  EXPECT_TRUE(client.ok()) << client.status().ToString();
  return std::move(client).value();
}

// A responder that answers after `delay`.
testing::Respond Slow(std::chrono::milliseconds delay) {
  return [delay](const std::string&) {
    std::this_thread::sleep_for(delay);
    return FakeReply{200, "4"};
  };
}

// A responder that fails the first `failures` requests with `status`.
testing::Respond FailFirst(int failures, int status) {
  auto left = std::make_shared<std::atomic<int>>(failures);
  return [left, status](const std::string&) {
    return left->fetch_sub(1) > 0 ? FakeReply{status, ""} : FakeReply{200, "4"};
  };
}

TEST(HttpClientTest, KeepAliveCarriesManyRequestsOnOneConnection) {
  FakeOpenAiServer server;
  HttpClient client = MakeClient(server.base_url());
  for (int i = 0; i < 5; ++i) {
    auto reply = client.Get("/v1/models");
    ASSERT_TRUE(reply.ok()) << reply.status().ToString();
    EXPECT_EQ(reply->status, 200);
    EXPECT_NE(reply->body.find("fake"), std::string::npos);
    EXPECT_EQ(reply->attempts, 1u);
  }
  EXPECT_EQ(client.connections_opened(), 1);
  EXPECT_EQ(server.connections(), 1);
}

TEST(HttpClientTest, WithoutKeepAliveEveryRequestHasItsOwnConnection) {
  FakeOpenAiServer server;
  FetchSettings settings;
  settings.keep_alive = false;
  HttpClient client = MakeClient(server.base_url(), settings);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(client.Post("/v1/completions", kCompletion).ok());
  EXPECT_EQ(server.connections(), 3);
  EXPECT_EQ(server.requests(), 3);
}

TEST(HttpClientTest, ConnectionClosedSilentlyAfterEachStreamIsResentOnAFreshOne) {
  FakeServerOptions options;
  options.close_after_stream_us = 0;  // llama-server: no "Connection: close" header
  FakeOpenAiServer server(options);
  HttpClient client = MakeClient(server.base_url());
  for (int i = 0; i < 4; ++i) {
    auto reply = client.Post("/v1/completions", kStreamed);
    ASSERT_TRUE(reply.ok()) << i << ": " << reply.status().ToString();
    EXPECT_EQ(reply->status, 200);
    EXPECT_NE(reply->body.find("[DONE]"), std::string::npos);
    EXPECT_EQ(reply->attempts, 1u) << "a stale connection is not a failed attempt";
  }
  EXPECT_EQ(server.requests(), 4);  // each request reached the server exactly once
  EXPECT_EQ(client.connections_opened(), 4);
}

TEST(HttpClientTest, RetryableStatusIsRetriedUntilItSucceeds) {
  FakeOpenAiServer server(FailFirst(2, 503));
  FetchSettings settings;
  settings.max_retries = 3;
  settings.retry_backoff_ms = 1;
  HttpClient client = MakeClient(server.base_url(), settings);
  auto reply = client.Post("/v1/completions", kCompletion);
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_EQ(reply->status, 200);
  EXPECT_EQ(reply->attempts, 3u);
}

TEST(HttpClientTest, RetryableStatusThatOutlastsTheRetriesIsTheReply) {
  FakeOpenAiServer server(FailFirst(100, 503));
  FetchSettings settings;
  settings.max_retries = 1;
  settings.retry_backoff_ms = 1;
  HttpClient client = MakeClient(server.base_url(), settings);
  auto reply = client.Post("/v1/completions", kCompletion);
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_EQ(reply->status, 503);
  EXPECT_FALSE(reply->ok());
  EXPECT_EQ(reply->attempts, 2u);
}

TEST(HttpClientTest, ClientErrorIsNotRetried) {
  FakeOpenAiServer server(FailFirst(100, 400));
  FetchSettings settings;
  settings.max_retries = 3;
  HttpClient client = MakeClient(server.base_url(), settings);
  auto reply = client.Post("/v1/completions", kCompletion);
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->status, 400);
  EXPECT_EQ(reply->attempts, 1u);
  EXPECT_EQ(server.requests(), 1);
}

TEST(HttpClientTest, RefusedConnectionIsUnavailableAndNamesTheUrl) {
  std::string url;
  {
    FakeOpenAiServer gone;
    url = gone.base_url();
  }
  FetchSettings settings;
  settings.max_retries = 1;
  settings.retry_backoff_ms = 1;
  HttpClient client = MakeClient(url, settings);
  auto reply = client.Get("/health");
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(reply.status().message().find("GET " + url + "/health"), std::string::npos)
      << reply.status().message();
  EXPECT_NE(reply.status().message().find("is the server running"), std::string::npos);
  EXPECT_NE(reply.status().message().find("after 2 attempts"), std::string::npos);
}

TEST(HttpClientTest, SlowServerMeetsTheAttemptDeadline) {
  FakeOpenAiServer server(Slow(std::chrono::milliseconds(1000)));
  FetchSettings settings;
  settings.timeout_ms = 100;
  HttpClient client = MakeClient(server.base_url(), settings);
  auto reply = client.Post("/v1/completions", kCompletion);
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_NE(reply.status().message().find("within 100 ms"), std::string::npos)
      << reply.status().message();
}

TEST(HttpClientTest, CancelEndsARequestInFlight) {
  FakeOpenAiServer server(Slow(std::chrono::milliseconds(1000)));
  FetchSettings settings;
  settings.timeout_ms = 60'000;
  settings.max_retries = 5;
  HttpClient client = MakeClient(server.base_url(), settings);
  std::atomic<bool> cancel{false};
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    cancel = true;
  });
  auto reply = client.Post("/v1/completions", kCompletion, &cancel);
  canceller.join();
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), StatusCode::kCancelled);
}

TEST(HttpClientTest, BodyOverTheLimitFailsWithoutRetrying) {
  FakeOpenAiServer server;
  FetchSettings settings;
  settings.max_body_bytes = 16;
  settings.max_retries = 3;
  HttpClient client = MakeClient(server.base_url(), settings);
  auto reply = client.Post("/v1/completions", kCompletion);
  ASSERT_FALSE(reply.ok());
  EXPECT_NE(reply.status().message().find("exceeds 16 bytes"), std::string::npos)
      << reply.status().message();
  EXPECT_EQ(server.requests(), 1);
}

TEST(HttpClientTest, GarbageReplyIsUnavailableAndNotRetried) {
  FakeServerOptions options;
  options.garbage = true;
  FakeOpenAiServer server(options);
  FetchSettings settings;
  settings.max_retries = 3;
  HttpClient client = MakeClient(server.base_url(), settings);
  auto reply = client.Post("/v1/completions", kCompletion);
  ASSERT_FALSE(reply.ok());
  EXPECT_NE(reply.status().message().find("bad HTTP response"), std::string::npos);
  EXPECT_EQ(server.requests(), 1);
}

TEST(HttpClientTest, InvalidSettingsFailBeforeConnecting) {
  FetchSettings settings;
  settings.timeout_ms = 0;
  auto client = HttpClient::Create(*ParseUrl("http://127.0.0.1:1"), settings);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(client.status().message().find("timeout_ms"), std::string::npos);
}

class HttpClientTlsTest : public ::testing::Test {
 protected:
  FakeOpenAiServer server_;
  testing::TlsProxy proxy_{server_.port(), kTlsDir + "server.pem", kTlsDir + "server.key"};
};

TEST_F(HttpClientTlsTest, TrustedCaReachesTheServerBehindTheProxy) {
  for (const char* host : {"127.0.0.1", "localhost"}) {
    FetchSettings settings;
    settings.tls.ca_cert_file = kTlsDir + "ca.pem";
    HttpClient client = MakeClient(proxy_.base_url(host), settings);
    for (int i = 0; i < 2; ++i) {
      auto reply = client.Post("/v1/completions", kCompletion);
      ASSERT_TRUE(reply.ok()) << host << ": " << reply.status().ToString();
      EXPECT_EQ(reply->status, 200);
    }
    EXPECT_EQ(client.connections_opened(), 1) << host;
  }
}

TEST_F(HttpClientTlsTest, UntrustedCertificateNamesTheFlagsAndIsNotRetried) {
  FetchSettings settings;
  settings.max_retries = 3;
  HttpClient client = MakeClient(proxy_.base_url(), settings);
  auto reply = client.Get("/v1/models");
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(reply.status().message().find("--ssl-ca-cert"), std::string::npos)
      << reply.status().message();
  EXPECT_NE(reply.status().message().find("after 1 attempt"), std::string::npos);
}

TEST_F(HttpClientTlsTest, InsecureSkipsVerification) {
  FetchSettings settings;
  settings.tls.insecure = true;
  HttpClient client = MakeClient(proxy_.base_url(), settings);
  auto reply = client.Get("/v1/models");
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_EQ(reply->status, 200);
}

TEST_F(HttpClientTlsTest, UnreadableCaFileIsInvalidInputBeforeConnecting) {
  FetchSettings settings;
  settings.tls.ca_cert_file = kTlsDir + "no-such-ca.pem";
  auto client = HttpClient::Create(*ParseUrl(proxy_.base_url()), settings);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(client.status().message().find("no-such-ca.pem"), std::string::npos);
  EXPECT_EQ(server_.requests(), 0);
}

}  // namespace
}  // namespace servebench::net
