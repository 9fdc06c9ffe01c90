// bench_eval_gsm8k: how long servebench eval takes for a full gsm8k-sized run
// (1,319 questions, 5-shot, concurrency 64) against servers that answer at once,
// so the figure is servebench's own cost: prompts, HTTP, scoring, writing files.
//
//   1. the real `servebench sim --time-scale 0 --answer-mode oracle
//      --answer-error-rate 0.1` (a new connection per request: the sim does not
//      yet survive kept-alive non-streaming requests)
//   2. an in-process loopback server answering with the same oracle (keep-alive)
//   bench_eval_gsm8k http://HOST:PORT   instead runs once against that server.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "common/atomic_file.h"
#include "eval/eval.h"
#include "eval/synthetic.h"
#include "net/testing/fake_openai_server.h"
#include "sim/answer_oracle.h"
#include "sim/testing/sim_process.h"

using namespace servebench;

namespace {

constexpr size_t kQuestions = 1319;

bool RunOnce(const std::string& label, eval::EvalSettings s,
             const std::vector<eval::GsmDoc>& test) {
  auto start = std::chrono::steady_clock::now();
  auto result = eval::RunEval(s, nullptr);
  if (!result.ok()) {
    std::fprintf(stderr, "%s: %s\n", label.c_str(), result.status().ToString().c_str());
    return false;
  }
  if (!eval::WriteEvalOutputs(*result, s.output_dir).ok()) return false;
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  size_t expected = 0;
  for (const auto& doc : test) expected += sim::OracleAnswersWrong(77, 0.10, doc.question) ? 0 : 1;
  std::printf(
      "eval gsm8k vs %s: %zu questions, 5-shot, concurrency 64: %.2f s (%.0f questions/s); "
      "flexible-extract %.4f, oracle expects %.4f; failed %zu\n",
      label.c_str(), kQuestions, seconds, static_cast<double>(kQuestions) / seconds,
      result->flexible_extract.value, static_cast<double>(expected) / kQuestions, result->n_failed);
  return result->n_failed == 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = std::filesystem::temp_directory_path() / "servebench_bench_eval";
  std::filesystem::create_directories(dir);
  auto test = eval::MakeSyntheticGsm(2026, kQuestions);
  if (!WriteFileAtomically(dir + "/test.jsonl", eval::GsmJsonl(test)).ok() ||
      !WriteFileAtomically(dir + "/train.jsonl", eval::GsmJsonl(eval::MakeSyntheticGsm(9, 200)))
           .ok()) {
    std::fprintf(stderr, "cannot write %s\n", dir.c_str());
    return 1;
  }
  eval::EvalSettings s;
  s.data_path = dir + "/test.jsonl";
  s.fewshot_data_path = dir + "/train.jsonl";
  s.model = "meta-llama/Llama-3.1-8B-Instruct";  // the sim's default served name
  s.num_concurrent = 64;
  s.output_dir = dir + "/out";
  if (argc > 1) {
    s.base_url = argv[1];
    return RunOnce(argv[1], s, test) ? 0 : 1;
  }
  bool ok = true;
  {
    sim::testing::SimProcess sim({"--host", "127.0.0.1", "--time-scale", "0", "--answer-mode",
                                  "oracle", "--answer-error-rate", "0.1", "--seed", "77"});
    if (!sim.ready()) {
      std::fprintf(stderr, "servebench sim did not start (%s): %s\n", SERVEBENCH_BIN,
                   sim.output().c_str());
      return 1;
    }
    eval::EvalSettings with_sim = s;
    with_sim.base_url = sim.base_url();
    with_sim.keep_alive = false;
    ok &= RunOnce("servebench sim --time-scale 0 (oracle, 10% wrong)", with_sim, test);
  }
  auto oracle = sim::AnswerOracle::Create({.error_rate = 0.10, .seed = 77, .answers_path = ""});
  if (!oracle.ok()) return 1;
  net::testing::FakeOpenAiServer server([&](const std::string& prompt) {
    return net::testing::FakeReply{200, (*oracle)->Answer(prompt).value_or("no idea")};
  });
  s.base_url = server.base_url();
  ok &= RunOnce("in-process loopback oracle server", s, test);
  return ok ? 0 : 1;
}
