// `servebench eval` over https, end to end: the real binary scores the real `servebench
// sim`'s gsm8k answer oracle through a TLS-terminating proxy (net/testing/tls_proxy.h)
// whose certificate is signed by the test CA (net/testdata/tls/). The score must be
// the oracle's expected accuracy, question by question; trust comes from
// --ssl-ca-cert or is skipped with --insecure, and an untrusted certificate fails
// every request with an error naming the fix, never a score.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <memory>
#include <string>

#include "common/atomic_file.h"
#include "common/exit_codes.h"
#include "common/testing/files.h"
#include "common/testing/shell.h"
#include "eval/dataset.h"
#include "net/testing/tls_proxy.h"
#include "sim/answer_oracle.h"
#include "sim/testing/sim_process.h"

namespace servebench::eval {
namespace {

const std::string kTlsDir = std::string(SERVEBENCH_SOURCE_DIR) + "/src/net/testdata/tls/";
constexpr double kErrorRate = 0.10;
constexpr uint64_t kOracleSeed = 77;

class EvalHttpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = servebench::testing::FreshTestDir("eval_https");
    ASSERT_EQ(
        Eval("make-synthetic --count 200 --seed 2026 --output " + dir_ + "/test.jsonl").exit_code,
        kExitOk);
    ASSERT_EQ(
        Eval("make-synthetic --count 30 --seed 9 --output " + dir_ + "/train.jsonl").exit_code,
        kExitOk);
    sim_ = std::make_unique<sim::testing::SimProcess>(std::vector<std::string>{
        "--host", "127.0.0.1", "--time-scale", "0", "--answer-mode", "oracle",
        "--answer-error-rate", std::to_string(kErrorRate), "--seed", std::to_string(kOracleSeed)});
    ASSERT_TRUE(sim_->ready()) << sim_->output();
    proxy_ = std::make_unique<net::testing::TlsProxy>(sim_->port(), kTlsDir + "server.pem",
                                                      kTlsDir + "server.key");
  }
  servebench::testing::ShellResult Eval(const std::string& args) {
    return servebench::testing::RunServebench("eval " + args);
  }
  // `servebench eval` against the proxy; `trust` is --ssl-ca-cert FILE, --insecure or "".
  servebench::testing::ShellResult Run(const std::string& host, const std::string& trust,
                                       const std::string& out) {
    return Eval("--task gsm8k --base-url " + proxy_->base_url(host) +
                "/v1 --model meta-llama/Llama-3.1-8B-Instruct --data " + dir_ +
                "/test.jsonl --fewshot-data " + dir_ + "/train.jsonl --num-concurrent 8" +
                " --no-keep-alive --max-retries 0 " + trust + " --output " + dir_ + "/" + out);
  }
  // The accuracy the oracle must score: the fraction of questions it answers right.
  double ExpectedAccuracy() {
    auto docs = LoadGsmJsonl(dir_ + "/test.jsonl");
    EXPECT_TRUE(docs.ok()) << docs.status().ToString();
    size_t right = 0;
    for (const GsmDoc& doc : *docs) {
      right += sim::OracleAnswersWrong(kOracleSeed, kErrorRate, doc.question) ? 0 : 1;
    }
    return static_cast<double>(right) / static_cast<double>(docs->size());
  }
  double ScoredAccuracy(const std::string& out) {
    auto text = ReadFile(dir_ + "/" + out + "/results.json");
    EXPECT_TRUE(text.ok()) << text.status().ToString();
    return boost::json::parse(*text)
        .at("results")
        .at("gsm8k")
        .at("exact_match,flexible-extract")
        .to_number<double>();
  }

  std::string dir_;
  std::unique_ptr<sim::testing::SimProcess> sim_;
  std::unique_ptr<net::testing::TlsProxy> proxy_;
};

TEST_F(EvalHttpsTest, EvalScoresTheSimOracleThroughAnHttpsProxyWithTheCaTrusted) {
  const double expected = ExpectedAccuracy();
  EXPECT_GT(expected, 0.8);  // ~90%: not degenerate
  EXPECT_LT(expected, 0.97);
  for (const char* host : {"localhost", "127.0.0.1"}) {
    SCOPED_TRACE(host);
    const std::string out = std::string("trusted-") + host;
    auto r = Run(host, "--ssl-ca-cert " + kTlsDir + "ca.pem", out);
    ASSERT_EQ(r.exit_code, kExitOk) << r.output;
    EXPECT_NE(r.output.find("scored 200, failed 0"), std::string::npos) << r.output;
    EXPECT_DOUBLE_EQ(ScoredAccuracy(out), expected);
  }
}

TEST_F(EvalHttpsTest, InsecureScoresWithoutVerifying) {
  auto r = Run("127.0.0.1", "--insecure", "insecure");
  ASSERT_EQ(r.exit_code, kExitOk) << r.output;
  EXPECT_DOUBLE_EQ(ScoredAccuracy("insecure"), ExpectedAccuracy());
}

TEST_F(EvalHttpsTest, UntrustedCertificateScoresNothingAndNamesTheFix) {
  auto r = Run("127.0.0.1", "", "untrusted");
  EXPECT_EQ(r.exit_code, kExitRunFailed) << r.output;
  // The probe before the first question meets the untrusted certificate: nothing is sent.
  EXPECT_NE(r.output.find("is not reachable"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("TLS handshake"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--ssl-ca-cert"), std::string::npos) << r.output;
}

TEST_F(EvalHttpsTest, UnreadableCaFileIsBadInputBeforeAnyRequest) {
  auto r = Run("127.0.0.1", "--ssl-ca-cert " + dir_ + "/no-such-ca.pem", "bad-ca");
  EXPECT_EQ(r.exit_code, kExitInvalidInput) << r.output;
  EXPECT_NE(r.output.find("no-such-ca.pem"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/bad-ca/results.json"));
}

}  // namespace
}  // namespace servebench::eval
