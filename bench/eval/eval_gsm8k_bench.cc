// bench_eval_gsm8k: how long servebench eval takes for a full gsm8k-sized run
// (1,319 questions, 5-shot, concurrency 64) against a server that answers at once,
// so the figure is servebench's own cost: prompt building, HTTP, scoring, writing.
//
//   bench_eval_gsm8k                       loopback test server using the sim's
//                                          AnswerOracle (10% error rate) in-process
//   bench_eval_gsm8k http://127.0.0.1:PORT  a running server instead, e.g.
//                                          `servebench sim --time-scale 0 --answer-mode oracle`
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "common/atomic_file.h"
#include "eval/eval.h"
#include "eval/synthetic.h"
#include "eval/testing/fake_openai_server.h"
#include "sim/answer_oracle.h"

using namespace servebench;

int main(int argc, char** argv) {
  const size_t kQuestions = 1319;
  std::string dir = std::filesystem::temp_directory_path() / "servebench_bench_eval";
  std::filesystem::create_directories(dir);
  auto test = eval::MakeSyntheticGsm(2026, kQuestions);
  if (!WriteFileAtomically(dir + "/test.jsonl", eval::GsmJsonl(test)).ok() ||
      !WriteFileAtomically(dir + "/train.jsonl", eval::GsmJsonl(eval::MakeSyntheticGsm(9, 200)))
           .ok()) {
    std::fprintf(stderr, "cannot write %s\n", dir.c_str());
    return 1;
  }
  auto oracle = sim::AnswerOracle::Create({.error_rate = 0.10, .seed = 77, .answers_path = ""});
  if (!oracle.ok()) return 1;
  std::unique_ptr<eval::testing::FakeOpenAiServer> server;
  std::string base_url;
  if (argc > 1) {
    base_url = argv[1];
  } else {
    server = std::make_unique<eval::testing::FakeOpenAiServer>([&](const std::string& prompt) {
      return eval::testing::FakeReply{200, (*oracle)->Answer(prompt).value_or("no idea")};
    });
    base_url = server->base_url();
  }
  eval::EvalSettings s;
  s.data_path = dir + "/test.jsonl";
  s.fewshot_data_path = dir + "/train.jsonl";
  s.base_url = base_url;
  s.model = "sim";
  s.num_concurrent = 64;
  s.output_dir = dir + "/out";
  auto start = std::chrono::steady_clock::now();
  auto result = eval::RunEval(s, nullptr);
  if (!result.ok()) {
    std::fprintf(stderr, "%s\n", result.status().ToString().c_str());
    return 1;
  }
  if (!eval::WriteEvalOutputs(*result, s.output_dir).ok()) return 1;
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  size_t expected = 0;
  for (const auto& doc : test) expected += sim::OracleAnswersWrong(77, 0.10, doc.question) ? 0 : 1;
  std::printf("eval gsm8k: %zu questions, 5-shot, concurrency 64, server %s: %.2f s "
              "(%.0f questions/s); flexible-extract %.4f (oracle expects %.4f), failed %zu\n",
              kQuestions, argc > 1 ? base_url.c_str() : "loopback oracle (in-process)", seconds,
              static_cast<double>(kQuestions) / seconds, result->flexible_extract.value,
              static_cast<double>(expected) / kQuestions, result->n_failed);
  return result->n_failed == 0 ? 0 : 1;
}
