// The required end-to-end check against the real simulated engine: `servebench sim
// --answer-mode oracle --answer-error-rate 0.1` on 127.0.0.1, 500 synthetic
// questions over HTTP, and the score must equal the oracle's expected accuracy
// exactly (computed here with sim::OracleAnswersWrong, question by question).
//
// keep_alive is off: the sim (as of this writing) crashes on a second
// non-streaming request over one kept-alive connection; see docs/eval.md.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "common/atomic_file.h"
#include "eval/eval.h"
#include "eval/synthetic.h"
#include "sim/answer_oracle.h"
#include "sim/testing/sim_process.h"

namespace servebench::eval {
namespace {

TEST(EvalSimTest, FiveHundredQuestionsAgainstTheSimOracleScoreExactlyTheExpectedAccuracy) {
  sim::testing::SimProcess sim({"--host", "127.0.0.1", "--time-scale", "0", "--answer-mode",
                                "oracle", "--answer-error-rate", "0.1", "--seed", "77"});
  ASSERT_TRUE(sim.ready()) << sim.output();
  std::string dir = ::testing::TempDir() + "/eval_sim";
  std::filesystem::create_directories(dir);
  auto test = MakeSyntheticGsm(2026, 500);
  ASSERT_TRUE(WriteFileAtomically(dir + "/test.jsonl", GsmJsonl(test)).ok());
  ASSERT_TRUE(WriteFileAtomically(dir + "/train.jsonl", GsmJsonl(MakeSyntheticGsm(9, 50))).ok());
  size_t expected_right = 0;
  for (const GsmDoc& doc : test)
    expected_right += sim::OracleAnswersWrong(77, 0.10, doc.question) ? 0 : 1;
  const double expected = static_cast<double>(expected_right) / 500.0;

  for (Endpoint endpoint : {Endpoint::kCompletions, Endpoint::kChat}) {
    SCOPED_TRACE(std::string(EndpointName(endpoint)));
    EvalSettings s;
    s.data_path = dir + "/test.jsonl";
    s.fewshot_data_path = dir + "/train.jsonl";
    s.base_url = sim.base_url();
    s.model = "meta-llama/Llama-3.1-8B-Instruct";  // the sim's default served name
    s.endpoint = endpoint;
    s.num_concurrent = 32;
    s.keep_alive = false;
    s.max_retries = 0;
    auto result = RunEval(s, nullptr);
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    EXPECT_EQ(result->n_failed, 0u);
    EXPECT_EQ(result->n_scored, 500u);
    EXPECT_DOUBLE_EQ(result->strict_match.value, expected);
    EXPECT_DOUBLE_EQ(result->flexible_extract.value, expected);
    boost::json::object results = ToResultsJson(*result);
    EXPECT_DOUBLE_EQ(
        results.at("results").at("gsm8k").at("exact_match,flexible-extract").to_number<double>(),
        expected);
  }
}

}  // namespace
}  // namespace servebench::eval
