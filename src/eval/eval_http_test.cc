// End-to-end over real HTTP on 127.0.0.1: synthetic gsm8k -> prompts -> worker
// threads -> a loopback OpenAI-compatible server answering with the sim's
// AnswerOracle -> extraction -> lm-eval-shaped outputs -> gates.
//
// The server here is a small test server (testing/fake_openai_server.h) calling
// sim::AnswerOracle directly, so faults (5xx, refused connections, divergent
// outputs, Ctrl-C mid-run) can be injected per question. eval_sim_test.cc runs
// the same 500-question check against the real `servebench sim --answer-mode oracle`.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

#include "common/atomic_file.h"
#include "eval/eval.h"
#include "eval/synthetic.h"
#include "net/testing/fake_openai_server.h"
#include "sim/answer_oracle.h"

namespace servebench::eval {
namespace {

namespace json = boost::json;
using net::testing::FakeOpenAiServer;
using net::testing::FakeReply;

struct Fixture {
  std::string dir;
  std::string test_path;
  std::string train_path;
  std::vector<GsmDoc> test;
};

Fixture MakeData(const std::string& name, size_t count) {
  Fixture f;
  f.dir = ::testing::TempDir() + "/eval_http_" + name;
  std::filesystem::create_directories(f.dir);
  f.test = MakeSyntheticGsm(2026, count);
  f.test_path = f.dir + "/test.jsonl";
  f.train_path = f.dir + "/train.jsonl";
  EXPECT_TRUE(WriteFileAtomically(f.test_path, GsmJsonl(f.test)).ok());
  EXPECT_TRUE(WriteFileAtomically(f.train_path, GsmJsonl(MakeSyntheticGsm(9, 50))).ok());
  return f;
}

EvalSettings Settings(const Fixture& f, const std::string& base_url) {
  EvalSettings s;
  s.data_path = f.test_path;
  s.fewshot_data_path = f.train_path;
  s.base_url = base_url;
  s.model = "sim";
  s.num_concurrent = 16;
  s.retry_backoff_ms = 1;
  s.timeout_ms = 10'000;
  s.output_dir = f.dir + "/out";
  return s;
}

net::testing::Respond OracleResponder(const sim::AnswerOracle& oracle) {
  return [&oracle](const std::string& prompt) {
    auto answer = oracle.Answer(prompt);
    return FakeReply{200, answer.value_or("I do not know.")};
  };
}

TEST(EvalHttpTest, FiveHundredQuestionsAtTenPercentErrorScoreExactlyTheExpectedAccuracy) {
  Fixture f = MakeData("oracle", 500);
  auto oracle = sim::AnswerOracle::Create({.error_rate = 0.10, .seed = 77, .answers_path = ""});
  ASSERT_TRUE(oracle.ok());
  FakeOpenAiServer server(OracleResponder(**oracle));

  size_t expected_right = 0;
  for (const GsmDoc& doc : f.test)
    expected_right += sim::OracleAnswersWrong(77, 0.10, doc.question) ? 0 : 1;
  const double expected = static_cast<double>(expected_right) / 500.0;
  EXPECT_GT(expected_right, 430u);  // ~90%, not degenerate
  EXPECT_LT(expected_right, 470u);

  for (Protocol protocol : {Protocol::kLmEval, Protocol::kInferenceX}) {
    for (Endpoint endpoint : {Endpoint::kCompletions, Endpoint::kChat}) {
      SCOPED_TRACE(std::string(ProtocolName(protocol)) + "/" + std::string(EndpointName(endpoint)));
      EvalSettings s = Settings(f, server.base_url());
      s.protocol = protocol;
      s.endpoint = endpoint;
      auto result = RunEval(s, nullptr);
      ASSERT_TRUE(result.ok()) << result.status().ToString();
      EXPECT_EQ(result->n_scored, 500u);
      EXPECT_EQ(result->n_failed, 0u);
      EXPECT_DOUBLE_EQ(result->strict_match.value, expected);
      EXPECT_DOUBLE_EQ(result->flexible_extract.value, expected);
    }
  }

  // Outputs in lm-eval's shape, readable by the gates.
  EvalSettings s = Settings(f, server.base_url());
  auto result = RunEval(s, nullptr);
  ASSERT_TRUE(result.ok());
  ASSERT_TRUE(WriteEvalOutputs(*result, s.output_dir).ok());
  auto text = ReadFile(s.output_dir + "/results.json");
  ASSERT_TRUE(text.ok());
  json::object results = json::parse(*text).as_object();
  const json::object& gsm8k = results.at("results").at("gsm8k").as_object();
  EXPECT_DOUBLE_EQ(gsm8k.at("exact_match,strict-match").to_number<double>(), expected);
  EXPECT_DOUBLE_EQ(gsm8k.at("exact_match,flexible-extract").to_number<double>(), expected);
  double se = std::sqrt(expected * (1 - expected) / 499.0);  // lm-eval mean_stderr
  EXPECT_NEAR(gsm8k.at("exact_match_stderr,strict-match").to_number<double>(), se, 1e-12);
  EXPECT_EQ(results.at("n-samples").at("gsm8k").at("effective").to_number<int64_t>(), 500);
  EXPECT_EQ(results.at("n-shot").at("gsm8k").to_number<int64_t>(), 5);
  EXPECT_TRUE(results.at("versions").at("gsm8k").is_double());
  auto correct = CorrectnessFromSamples(s.output_dir + "/samples.jsonl", "flexible-extract");
  ASSERT_TRUE(correct.ok()) << correct.status().ToString();
  EXPECT_EQ(correct->size(), 500u);
  for (size_t i = 0; i < 500; ++i) {
    EXPECT_EQ(correct->at(i), !sim::OracleAnswersWrong(77, 0.10, f.test[i].question));
  }
  auto floor = FloorGate(results, Thresholds{{{"gsm8k", 0.85}}, {}}, "sim", "gsm8k");
  EXPECT_EQ(floor.verdict, Verdict::kPass);
}

TEST(EvalHttpTest, ServerErrorsAreRetriedThenCountedFailedNeverScoredWrong) {
  Fixture f = MakeData("errors", 60);
  auto oracle = sim::AnswerOracle::Create({});
  ASSERT_TRUE(oracle.ok());
  std::mutex mu;
  std::set<std::string> seen;  // prompts that already failed once
  const std::string doomed = f.test[7].question;
  FakeOpenAiServer server([&](const std::string& prompt) {
    if (prompt.find(doomed) != std::string::npos) return FakeReply{503, ""};
    std::lock_guard lock(mu);
    if (seen.insert(prompt).second) return FakeReply{500, ""};  // first try of each fails
    return FakeReply{200, *(*oracle)->Answer(prompt)};
  });
  EvalSettings s = Settings(f, server.base_url());
  s.max_retries = 2;
  auto result = RunEval(s, nullptr);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->n_failed, 1u);
  EXPECT_EQ(result->n_scored, 59u);
  EXPECT_DOUBLE_EQ(result->flexible_extract.value, 1.0);  // the failure is not a wrong answer
  EXPECT_EQ(result->samples[7].state, SampleResult::State::kFailed);
  EXPECT_EQ(result->samples[7].attempts, 3u);
  EXPECT_NE(result->samples[7].error.find("503"), std::string::npos) << result->samples[7].error;
  EXPECT_EQ(result->samples[0].attempts, 2u);
  json::object results = ToResultsJson(*result);
  EXPECT_EQ(results.at("servebench").at("n_failed").to_number<int64_t>(), 1);
  EXPECT_EQ(FloorGate(results, Thresholds{{{"gsm8k", 0.5}}, {}}, "sim", "gsm8k").verdict,
            Verdict::kFail);
}

TEST(EvalHttpTest, UnreachableServerFailsAtTheProbeBeforeAnyQuestion) {
  Fixture f = MakeData("down", 3);
  std::string url;
  {
    FakeOpenAiServer server([](const std::string&) { return FakeReply{}; });
    url = server.base_url();
  }  // stopped: the port refuses connections now
  EvalSettings s = Settings(f, url);
  s.num_fewshot = 0;
  s.max_retries = 1;
  auto result = RunEval(s, nullptr);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(result.status().message().find("server at " + url + " is not reachable"),
            std::string::npos)
      << result.status().message();
}

TEST(EvalHttpTest, ServerThatStopsAnsweringEndsTheEvalInsteadOfHangingOnEveryQuestion) {
  Fixture f = MakeData("hang", 40);
  std::atomic<int> answered{0};
  // Answers two questions, then holds every request past its deadline.
  FakeOpenAiServer server([&](const std::string&) {
    if (answered.fetch_add(1) >= 2) std::this_thread::sleep_for(std::chrono::milliseconds(400));
    return FakeReply{200, "#### 1"};
  });
  EvalSettings s = Settings(f, server.base_url());
  s.num_fewshot = 0;
  s.num_concurrent = 2;
  s.timeout_ms = 100;
  s.max_retries = 3;
  s.retry_backoff_ms = 1;
  auto start = std::chrono::steady_clock::now();
  auto result = RunEval(s, nullptr);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_NE(result->stopped_reason.find("the server stopped answering"), std::string::npos);
  EXPECT_GT(result->n_not_run, 30u) << "the rest were left, not each waited out";
  EXPECT_LT(seconds, 5.0);
}

TEST(EvalHttpTest, CancelKeepsWhatWasScored) {
  Fixture f = MakeData("cancel", 200);
  auto oracle = sim::AnswerOracle::Create({});
  ASSERT_TRUE(oracle.ok());
  std::atomic<bool> cancel{false};
  std::atomic<int> answered{0};
  FakeOpenAiServer server([&](const std::string& prompt) {
    if (++answered >= 50) cancel = true;  // Ctrl-C arrives mid-run
    return FakeReply{200, *(*oracle)->Answer(prompt)};
  });
  EvalSettings s = Settings(f, server.base_url());
  s.num_concurrent = 4;
  auto result = RunEval(s, &cancel);
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(result->interrupted);
  EXPECT_GE(result->n_scored, 45u);
  EXPECT_LT(result->n_scored, 200u);
  EXPECT_EQ(result->n_scored + result->n_failed + result->n_not_run, 200u);
  EXPECT_EQ(result->n_failed, 0u);
  EXPECT_DOUBLE_EQ(result->flexible_extract.value, 1.0);
  // The samples file holds exactly the scored documents.
  std::string samples = SamplesJsonl(*result);
  EXPECT_EQ(std::count(samples.begin(), samples.end(), '\n'),
            static_cast<long>(2 * result->n_scored));
}

TEST(EvalHttpTest, EquivalenceOfTwoServersFindsTheDivergentDocument) {
  Fixture f = MakeData("equiv", 100);
  auto oracle = sim::AnswerOracle::Create({});
  ASSERT_TRUE(oracle.ok());
  const std::string target = f.test[42].question;
  FakeOpenAiServer reference(OracleResponder(**oracle));
  FakeOpenAiServer candidate([&](const std::string& prompt) {
    std::string text = *(*oracle)->Answer(prompt);
    if (prompt.find(target) != std::string::npos) text[5] = '#';  // injected at byte 5
    return FakeReply{200, text};
  });
  EvalSettings s = Settings(f, reference.base_url());
  s.output_dir = f.dir + "/ref";
  auto ref = RunEval(s, nullptr);
  ASSERT_TRUE(ref.ok());
  ASSERT_TRUE(WriteEvalOutputs(*ref, s.output_dir).ok());
  s.base_url = candidate.base_url();
  s.output_dir = f.dir + "/cand";
  auto cand = RunEval(s, nullptr);
  ASSERT_TRUE(cand.ok());
  ASSERT_TRUE(WriteEvalOutputs(*cand, s.output_dir).ok());
  auto a = ResponsesFromSamples(f.dir + "/ref/samples.jsonl");
  auto b = ResponsesFromSamples(f.dir + "/cand/samples.jsonl");
  ASSERT_TRUE(a.ok() && b.ok());
  EquivalenceReport report = EquivalenceGate(*a, *b);
  EXPECT_EQ(report.n, 100u);
  EXPECT_EQ(report.identical, 99u);
  ASSERT_EQ(report.divergent.size(), 1u);
  EXPECT_EQ(report.divergent[0].doc_id, 42u);
  EXPECT_EQ(report.divergent[0].first_divergence, 5u);
  EXPECT_EQ(report.verdict, Verdict::kPass);
}

TEST(EvalHttpTest, BadDataLineStopsBeforeAnyRequest) {
  Fixture f = MakeData("bad", 5);
  {
    std::ofstream out(f.test_path, std::ios::app);
    out << "not json\n";
  }
  FakeOpenAiServer server([](const std::string&) { return FakeReply{200, "#### 1"}; });
  auto result = RunEval(Settings(f, server.base_url()), nullptr);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find(f.test_path + ":6:"), std::string::npos)
      << result.status().message();
  EXPECT_EQ(server.requests(), 0);
}

}  // namespace
}  // namespace servebench::eval
