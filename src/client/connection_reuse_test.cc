// Keep-alive connection reuse against the in-test fake server over loopback: a server
// that closes connections after streamed responses without `Connection: close`
// (llama-server does) loses no request; the re-sends are counted; once the client
// has seen it, it uses spare connections instead of racing the close; a request that
// fails on a fresh connection is a failure.
#include <gtest/gtest.h>

#include "client/client.h"
#include "net/testing/fake_openai_server.h"

namespace servebench::client {
namespace {

using net::testing::FakeOpenAiServer;
using net::testing::FakeServerOptions;

BenchSettings Settings(const FakeOpenAiServer& server) {
  BenchSettings s;
  s.base_url = server.base_url();
  s.model = "fake";
  s.num_prompts = 40;
  s.max_concurrency = 4;
  s.random_input_len = 16;
  s.random_output_len = 4;
  s.ignore_eos = true;
  s.request_timeout_s = 10;
  s.client_issue_delay_limit_ms = 1e9;  // shared CI cores: not under test here
  return s;
}

int64_t RecordReconnects(const BenchResult& r) {
  int64_t n = 0;
  for (const metrics::RequestRecord& rec : r.records) n += rec.reconnects;
  return n;
}

TEST(ConnectionReuseTest, KeptAliveConnectionsAreReusedWithoutReconnects) {
  FakeOpenAiServer server(FakeServerOptions{});
  auto r = RunBench(Settings(server));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->summary.completed, 40);
  EXPECT_EQ(r->self.reconnects, 0);
  EXPECT_EQ(r->self.stale_connections, 0);
  EXPECT_EQ(r->self.connections_opened, 4);
}

// Closing 2 ms after the stream ends: the client has already reused the connection
// and written the next request, which the server never reads.
TEST(ConnectionReuseTest, ServerClosingAfterEachStreamLosesNoRequestAndResendsAreCounted) {
  FakeServerOptions o;
  o.close_after_stream_us = 2000;
  FakeOpenAiServer server(o);
  auto r = RunBench(Settings(server));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const metrics::RunSummary& s = r->summary;
  EXPECT_EQ(s.failed, 0) << (s.sample_errors.empty() ? "" : s.sample_errors[0]);
  EXPECT_EQ(s.completed, 40);
  EXPECT_TRUE(s.validity.valid());
  EXPECT_GT(r->self.reconnects, 0);
  EXPECT_EQ(RecordReconnects(*r), r->self.reconnects);
  EXPECT_EQ(server.streams(), 40);
  // Learned from the first re-sends: later requests go out on spare connections,
  // opened while the previous request streamed, not on a closing one.
  EXPECT_LE(r->self.reconnects + r->self.stale_connections, 2 * 4);
  EXPECT_GE(r->self.connections_opened, 40);
  const auto& client = r->result.at("servebench").at("client").as_object();
  EXPECT_EQ(client.at("reconnects").as_int64(), r->self.reconnects);
  EXPECT_EQ(client.at("stale_connections").as_int64(), r->self.stale_connections);
}

// Closing at once: the close either arrives before the reuse (found by the check
// before reuse) or races it (re-sent); either way nothing fails.
TEST(ConnectionReuseTest, ServerClosingRightAfterEachStreamLosesNoRequest) {
  FakeServerOptions o;
  o.close_after_stream_us = 0;
  FakeOpenAiServer server(o);
  auto r = RunBench(Settings(server));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->summary.failed, 0) << (r->summary.sample_errors.empty()
                                          ? ""
                                          : r->summary.sample_errors[0]);
  EXPECT_EQ(r->summary.completed, 40);
  EXPECT_EQ(server.streams(), 40);
  // The close was seen (found before reuse or raced), and from then on every request
  // had a connection of its own.
  EXPECT_GE(r->self.reconnects + r->self.stale_connections, 1);
  EXPECT_GE(server.connections(), 40);
}

// 20 ms between arrivals: the closed connection is back in the pool long before the
// next request takes it, so the check before reuse finds it and nothing is re-sent
// (from then on no streamed connection is offered for reuse).
TEST(ConnectionReuseTest, ConnectionClosedWhileIdleIsDroppedBeforeReuse) {
  FakeServerOptions o;
  o.close_after_stream_us = 0;
  FakeOpenAiServer server(o);
  BenchSettings b = Settings(server);
  b.num_prompts = 10;
  b.max_concurrency = 0;
  b.request_rate_per_s = 50;
  b.arrival = ArrivalProcess::kConstant;
  auto r = RunBench(b);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->summary.failed, 0);
  EXPECT_EQ(r->self.reconnects, 0);
  EXPECT_GE(r->self.stale_connections, 1);
}

// A fresh connection that ends with no response is the request's own failure: it is
// sent at most twice (once more only if it first went out on a pooled connection).
TEST(ConnectionReuseTest, RequestFailingOnAFreshConnectionIsAFailure) {
  FakeServerOptions o;
  o.disconnect_after_events = 0;
  FakeOpenAiServer server(o);
  BenchSettings b = Settings(server);
  b.num_prompts = 8;
  auto r = RunBench(b);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->summary.failed, 8);
  EXPECT_EQ(r->summary.failures.at("read"), 8);
  EXPECT_LE(server.requests(), 2 * 8);
  EXPECT_LE(r->self.reconnects, 8);
}

}  // namespace
}  // namespace servebench::client
