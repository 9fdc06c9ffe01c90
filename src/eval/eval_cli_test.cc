// The real `servebench eval` binary end to end: make-synthetic, a run against a
// loopback server answering with the sim's oracle, the written files, and each
// gate subcommand's verdict and exit code.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "common/atomic_file.h"
#include "common/exit_codes.h"
#include "common/testing/files.h"
#include "common/testing/shell.h"
#include "eval/eval.h"
#include "net/testing/fake_openai_server.h"
#include "sim/answer_oracle.h"

namespace servebench::eval {
namespace {

int RunCli(const std::string& args) { return servebench::testing::RunServebench(args).exit_code; }

class EvalCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // One folder per test: ctest runs the tests of this file in parallel.
    dir_ = servebench::testing::FreshTestDir("eval_cli");
    ASSERT_EQ(RunCli("eval make-synthetic --count 120 --seed 5 --output " + dir_ + "/test.jsonl"),
              0);
    ASSERT_EQ(RunCli("eval make-synthetic --count 30 --seed 6 --output " + dir_ + "/train.jsonl"),
              0);
  }
  std::string RunArgs(const std::string& url, const std::string& out) {
    return "eval --task gsm8k --base-url " + url + " --model dsr1-sim --data " + dir_ +
           "/test.jsonl --fewshot-data " + dir_ + "/train.jsonl --num-concurrent 8 --output " +
           dir_ + "/" + out;
  }
  std::string dir_;
};

TEST_F(EvalCliTest, RunWritesFilesAndGatesJudgeThem) {
  auto good = sim::AnswerOracle::Create({.error_rate = 0.02, .seed = 1, .answers_path = ""});
  auto bad = sim::AnswerOracle::Create({.error_rate = 0.50, .seed = 1, .answers_path = ""});
  ASSERT_TRUE(good.ok() && bad.ok());
  net::testing::FakeOpenAiServer good_server([&](const std::string& p) {
    return net::testing::FakeReply{200, *(*good)->Answer(p)};
  });
  net::testing::FakeOpenAiServer bad_server([&](const std::string& p) {
    return net::testing::FakeReply{200, *(*bad)->Answer(p)};
  });
  const std::string thresholds = std::string(SERVEBENCH_SOURCE_DIR) + "/data/evals/thresholds.yaml";

  ASSERT_EQ(RunCli(RunArgs(good_server.base_url(), "base")), kExitOk);
  ASSERT_TRUE(ReadFile(dir_ + "/base/results.json").ok());
  ASSERT_TRUE(ReadFile(dir_ + "/base/samples.jsonl").ok());
  // Inline floor gate: dsr1's floor is 0.91; 2% errors pass, 50% fail.
  EXPECT_EQ(RunCli(RunArgs(good_server.base_url(), "good") + " --thresholds " + thresholds),
            kExitOk);
  EXPECT_EQ(RunCli(RunArgs(bad_server.base_url(), "bad") + " --thresholds " + thresholds),
            kExitGateFailed);
  EXPECT_TRUE(ReadFile(dir_ + "/bad/gates.json").ok());

  EXPECT_EQ(RunCli("eval gate floor --results " + dir_ + "/good --thresholds " + thresholds),
            kExitOk);
  EXPECT_EQ(RunCli("eval gate floor --results " + dir_ + "/bad --thresholds " + thresholds),
            kExitGateFailed);
  EXPECT_EQ(RunCli("eval gate mcnemar --baseline " + dir_ + "/base --candidate " + dir_ + "/good"),
            kExitOk);
  EXPECT_EQ(RunCli("eval gate mcnemar --baseline " + dir_ + "/base --candidate " + dir_ + "/bad"),
            kExitGateFailed);
  EXPECT_EQ(
      RunCli("eval gate equivalence --reference " + dir_ + "/base --candidate " + dir_ + "/good"),
      kExitOk);
  // A run with other shots has another task hash: not comparable (INVALID).
  ASSERT_EQ(RunCli(RunArgs(good_server.base_url(), "three") + " --num-fewshot 3"), kExitOk);
  EXPECT_EQ(RunCli("eval gate mcnemar --baseline " + dir_ + "/base --candidate " + dir_ + "/three"),
            kExitInvalidInput);
  EXPECT_EQ(
      RunCli("eval gate equivalence --reference " + dir_ + "/base --candidate " + dir_ + "/bad"),
      kExitGateFailed);
}

TEST_F(EvalCliTest, BadInputAndUnreachableServerHaveTheirOwnExitCodes) {
  EXPECT_EQ(RunCli("eval --base-url http://127.0.0.1:9 --data " + dir_ + "/missing.jsonl"),
            kExitInvalidInput);
  EXPECT_EQ(RunCli("eval --base-url ftp://x --data " + dir_ + "/test.jsonl --num-fewshot 0"),
            kExitInvalidInput);
  EXPECT_EQ(RunCli("eval --no-such-flag"), kExitUsage);
  std::string url;
  {
    net::testing::FakeOpenAiServer closed(
        [](const std::string&) { return net::testing::FakeReply{}; });
    url = closed.base_url();
  }
  EXPECT_EQ(RunCli("eval --base-url " + url + " --data " + dir_ +
                   "/test.jsonl --num-fewshot 0 --limit 3 --max-retries 0"),
            kExitRunFailed);  // the probe: nothing listens
}

}  // namespace
}  // namespace servebench::eval
