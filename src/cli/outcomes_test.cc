// Outcomes told plainly: an engine that dies at startup is explained by the log line
// that explains it (not the usage hint after it), each fact is printed once, and the
// canary's failure is not repeated line after line. The engine is a stand-in `vllm`
// on PATH that fails as vLLM's argument parser does.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>

#include "cli/cli_test_util.h"

namespace servebench::cli::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class OutcomesTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    std::string vllm = Write("bin/vllm",
                             "#!/bin/sh\n"
                             "echo 'INFO starting vllm serve'\n"
                             "echo \"vllm: error: argument --max-num-seqs: invalid int value: "
                             "'lots'\" >&2\n"
                             "echo 'Run with --help for more information.' >&2\n"
                             "exit 2\n");
    ::chmod(vllm.c_str(), 0755);
    recipe_ = Write("recipe.yaml",
                    "servebench: 1\nrecipes:\n  door-vllm:\n    engine: vllm\n    model: org/m\n"
                    "    hardware: h200\n    readiness_timeout_s: 20\n"
                    "    scenarios:\n      - isl: 32\n        osl: 8\n"
                    "        search_space:\n          - tp: 1\n"
                    "            concurrency: [1, 2, 4]\n");
  }
  ShellResult RunWithStandIn() {
    return Servebench("run " + recipe_ + RunFlags(), "PATH=" + Path("bin") + ":$PATH");
  }
  std::string recipe_;
};

TEST_F(OutcomesTest, EngineStartFailureQuotesTheErrorLineNotTheHintAfterIt) {
  ShellResult r = RunWithStandIn();
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_THAT(r.output, HasSubstr("\"vllm: error: argument --max-num-seqs: invalid int value: "
                                  "'lots'\""));
  EXPECT_THAT(r.output, Not(HasSubstr("\"Run with --help for more information.\"")));
}

TEST_F(OutcomesTest, EachFactIsPrintedOnce) {
  ShellResult r = RunWithStandIn();
  // The failure class once where the engine failed, once in the report's summary.
  EXPECT_EQ(Count(r.output, "server.died_before_ready: engine exited"), 2u) << r.output;
  // Never "class: class: ...".
  EXPECT_EQ(Count(r.output, "server.died_before_ready: server.died_before_ready"), 0u);
  // The quoted line: where the engine failed and in the report summary, not per point.
  EXPECT_EQ(Count(r.output, "invalid int value: 'lots'"), 2u) << r.output;
  // Skipped points: one line for all of them.
  EXPECT_EQ(Count(r.output, "recorded as skipped"), 1u) << r.output;
  EXPECT_THAT(r.output, HasSubstr("the other 2 point(s) are recorded as skipped"));
}

}  // namespace
}  // namespace servebench::cli::testing
