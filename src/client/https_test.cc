// https:// end to end: RunBench and `servebench bench` against the real
// `servebench sim` behind a real TLS server (testing/tls_proxy.h) with a test CA
// (testdata/tls/). Trust comes from --ssl-ca-cert or is skipped with --insecure; an
// untrusted certificate fails before any load is sent, with an error that names it.
#include <gtest/gtest.h>

#include "client/client.h"
#include "common/exit_codes.h"
#include "common/testing/shell.h"
#include "net/testing/tls_proxy.h"
#include "sim/testing/sim_process.h"

namespace servebench::client {
namespace {

using net::testing::TlsProxy;
using servebench::testing::ProcessResult;
using servebench::testing::RunProcess;
using sim::testing::SimProcess;

const std::string kTlsDir = std::string(SERVEBENCH_SOURCE_DIR) + "/src/net/testdata/tls/";

class HttpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sim_ = std::make_unique<SimProcess>(std::vector<std::string>{"--time-scale", "0.1"});
    ASSERT_TRUE(sim_->ready()) << sim_->output();
    proxy_ =
        std::make_unique<TlsProxy>(sim_->port(), kTlsDir + "server.pem", kTlsDir + "server.key");
  }
  BenchSettings Settings(const std::string& host) const {
    BenchSettings s;
    s.base_url = proxy_->base_url(host);
    s.model = "meta-llama/Llama-3.1-8B-Instruct";
    s.num_prompts = 12;
    s.max_concurrency = 4;
    s.random_input_len = 32;
    s.random_output_len = 16;
    s.ignore_eos = true;
    s.request_timeout_s = 30;
    s.client_issue_delay_limit_ms = 1e9;  // shared CI cores: not under test here
    s.server_lag_limit_ms = 1e9;
    return s;
  }
  std::unique_ptr<SimProcess> sim_;
  std::unique_ptr<TlsProxy> proxy_;
};

TEST_F(HttpsTest, StreamsOverTlsWithTheTestCaTrusted) {
  for (const char* host : {"127.0.0.1", "localhost"}) {
    BenchSettings s = Settings(host);
    s.tls.ca_cert_file = kTlsDir + "ca.pem";
    auto r = RunBench(s);
    ASSERT_TRUE(r.ok()) << host << ": " << r.status().ToString();
    EXPECT_EQ(r->summary.completed, 12)
        << host << ": " << (r->summary.sample_errors.empty() ? "" : r->summary.sample_errors[0]);
    EXPECT_EQ(r->summary.failed, 0);
    EXPECT_EQ(r->summary.total_output_tokens, 12 * 16);
    const boost::json::object& client =
        r->result.at("servebench").as_object().at("client").as_object();
    // TLS reads carry no kernel receive stamp: every event has its read's time.
    EXPECT_GT(client.at("reads").as_int64(), 0);
    EXPECT_EQ(client.at("kernel_stamped_reads").as_int64(), 0);
    EXPECT_EQ(client.at("event_timestamps").as_string(), "read");
    std::string base = r->result.at("servebench")
                           .as_object()
                           .at("run")
                           .as_object()
                           .at("base_url")
                           .as_string()
                           .c_str();
    EXPECT_EQ(base.rfind("https://", 0), 0u) << base;
  }
}

TEST_F(HttpsTest, InsecureSkipsVerification) {
  BenchSettings s = Settings("127.0.0.1");
  s.tls.insecure = true;
  auto r = RunBench(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->summary.completed, 12);
}

TEST_F(HttpsTest, UntrustedCertificateFailsUpFrontNamingTheFix) {
  ProcessResult p =
      RunProcess({SERVEBENCH_BIN, "bench", "--base-url", proxy_->base_url(), "--model",
                  "meta-llama/Llama-3.1-8B-Instruct", "--num-prompts", "2", "--no-progress"},
                 60);
  EXPECT_EQ(p.exit_code, kExitRunFailed) << p.out << p.err;
  EXPECT_NE(p.err.find("TLS handshake"), std::string::npos) << p.err;
  EXPECT_NE(p.err.find("--ssl-ca-cert"), std::string::npos) << p.err;
  EXPECT_EQ(p.err.find("is it running"), std::string::npos) << p.err;
}

TEST_F(HttpsTest, UnreadableCaFileIsInvalidInput) {
  BenchSettings s = Settings("127.0.0.1");
  s.tls.ca_cert_file = kTlsDir + "no-such-ca.pem";
  auto r = RunBench(s);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("no-such-ca.pem"), std::string::npos)
      << r.status().ToString();
}

TEST_F(HttpsTest, BenchCommandTakesTheCaFlag) {
  std::string out = ::testing::TempDir() + "/https-bench.json";
  ProcessResult p = RunProcess({SERVEBENCH_BIN,
                                "bench",
                                "--base-url",
                                proxy_->base_url("localhost"),
                                "--model",
                                "meta-llama/Llama-3.1-8B-Instruct",
                                "--num-prompts",
                                "4",
                                "--max-concurrency",
                                "2",
                                "--random-input-len",
                                "16",
                                "--random-output-len",
                                "8",
                                "--ignore-eos",
                                "--ssl-ca-cert",
                                kTlsDir + "ca.pem",
                                "--issue-delay-limit-ms",
                                "100000",
                                "--server-lag-limit-ms",
                                "100000",
                                "--no-progress",
                                "--result-filename",
                                out},
                               60);
  EXPECT_EQ(p.exit_code, kExitOk) << p.out << p.err;
  EXPECT_NE(p.out.find("Successful requests:"), std::string::npos) << p.out;
}

}  // namespace
}  // namespace servebench::client
