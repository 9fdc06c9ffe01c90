// `servebench run` of native llamacpp recipes against the real, unpatched
// llama-server (label realengine): a session of three concurrencies stores its
// records and prints the Pareto table; a prompt longer than the context is
// classified from the engine's log; Ctrl-C and kill -9 of servebench leave no
// llama-server behind and --resume finishes the sweep; `eval --task gsm8k` runs
// through (a random model scores ~0: the pipeline is under test, not the score).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/testing/shell.h"
#include "engine/testing/real_llama.h"

namespace servebench::run {
namespace {

namespace fs = std::filesystem;
using servebench::testing::RunShell;
using servebench::testing::ShellResult;

class LlamacppRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto llama = engine::testing::LoadRealLlama();
    ASSERT_TRUE(llama.ok()) << llama.status().ToString();
    llama_ = *llama;
    dir_ = fs::temp_directory_path() /
           ("sb_llamacpp_run_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // The served name is on each engine's command line: it finds this test's engines.
    alias_ = "tiny-" + std::to_string(::getpid());
  }
  void TearDown() override {
    for (pid_t p : MarkedEngines()) ::kill(p, SIGKILL);
    fs::remove_all(dir_);
  }

  std::string WriteRecipe(const std::string& concurrency, int isl = 128, int osl = 32,
                          const std::string& extra = "") {
    std::ostringstream y;
    y << "servebench: 1\nrecipes:\n  llamacpp-tiny:\n    engine: llamacpp\n"
      << "    model: " << llama_.Model("tiny") << "\n    served_model_name: " << alias_ << "\n"
      << "    hardware: cpu\n    precision: f16\n    readiness_timeout_s: 60\n"
      << "    max_model_len: auto\n    extra_args: [-t, \"1\", -td, \"1\"]\n"
      << extra << "    load:\n      dataset: random\n      prompts_per_concurrency: 4\n"
      << "    scenarios:\n      - isl: " << isl << "\n        osl: " << osl << "\n"
      << "        search_space:\n          - tp: 1\n            concurrency: " << concurrency
      << "\n";
    std::string path = (dir_ / "recipe.yaml").string();
    std::ofstream(path) << y.str();
    return path;
  }
  std::string RunArgs(const std::string& recipe, const std::string& more = "") const {
    return std::string(SERVEBENCH_BIN) + " run " + recipe + " --out " + (dir_ / "out").string() +
           " --db " + (dir_ / "sb.db").string() + " --issue-delay-limit-ms 200 " + more;
  }
  pid_t Spawn(const std::string& args) {
    pid_t pid = fork();
    if (pid == 0) {
      std::string cmd = "exec " + args + " > " + (dir_ / "spawned.log").string() + " 2>&1";
      execl("/bin/sh", "sh", "-c", cmd.c_str(), nullptr);
      _exit(127);
    }
    return pid;
  }
  std::string SpawnedLog() const {
    std::ifstream in(dir_ / "spawned.log");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  bool WaitForLog(const std::string& text, double seconds) const {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (SpawnedLog().find(text) == std::string::npos) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
  }
  // Live llama-server processes started for this test.
  std::vector<pid_t> MarkedEngines() const {
    std::vector<pid_t> pids;
    for (const auto& entry : fs::directory_iterator("/proc")) {
      std::string name = entry.path().filename();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      std::ifstream in(entry.path() / "cmdline");
      std::string cmd(std::istreambuf_iterator<char>(in), {});
      for (char& c : cmd) c = c == '\0' ? ' ' : c;
      if (cmd.find("llama-server") == std::string::npos || cmd.find(alias_) == std::string::npos)
        continue;
      std::ifstream stat(entry.path() / "stat");
      std::string s(std::istreambuf_iterator<char>(stat), {});
      if (s.find(") Z") != std::string::npos) continue;
      pids.push_back(std::stoi(name));
    }
    return pids;
  }
  bool WaitForNoEngines(double seconds) const {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!MarkedEngines().empty()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return true;
  }
  std::vector<boost::json::object> Records() const {
    std::vector<boost::json::object> out;
    fs::path records = dir_ / "out" / "records";
    if (!fs::exists(records)) return out;
    for (const auto& e : fs::directory_iterator(records)) {
      std::ifstream in(e.path());
      out.push_back(
          boost::json::parse(std::string(std::istreambuf_iterator<char>(in), {})).as_object());
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
      return a.at("concurrency").as_int64() < b.at("concurrency").as_int64();
    });
    return out;
  }
  // Waits for the spawned run to exit; its exit code.
  static int Reap(pid_t pid) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  engine::testing::RealLlama llama_;
  fs::path dir_;
  std::string alias_;
};

TEST_F(LlamacppRunTest, SessionOfThreeConcurrenciesStoresEveryPointOkAndPrintsThePareto) {
  ShellResult r = RunShell(RunArgs(WriteRecipe("[1, 2, 4]")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("3 point(s): 3 ok"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1 server start(s) for 1 session(s)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Pareto frontier"), std::string::npos) << r.output;
  auto records = Records();
  ASSERT_EQ(records.size(), 3u) << r.output;
  for (const auto& rec : records) {
    EXPECT_EQ(rec.at("status").as_string(), "ok") << boost::json::serialize(rec).substr(0, 2000);
    EXPECT_NE(std::string(rec.at("provenance").at("engine_version").as_string()).find("80fb11a"),
              std::string::npos);
    EXPECT_EQ(rec.at("summary").at("failed").as_int64(), 0);
    EXPECT_GT(rec.at("summary").at("output_throughput").as_double(), 0);
  }
  // The session's one server has a slot per request of its highest concurrency.
  std::ifstream log(
      dir_ / "out" / "logs" /
      (std::string(records[0].at("session_id").as_string()).substr(0, 12) + "-0.log"));
  std::string text(std::istreambuf_iterator<char>(log), {});
  EXPECT_NE(text.find("n_slots = 4"), std::string::npos) << text.substr(0, 3000);
  EXPECT_TRUE(fs::exists(dir_ / "out" / "report.md"));
  EXPECT_TRUE(WaitForNoEngines(10));
}

// Prompts longer than the model's context: every request is refused, and the point
// is classified from the engine's own log line, with the requests' failure in words.
// max_model_len `auto` leaves the context to the model (8192 tokens, which the recipe
// does not know), so `run`'s checks at the door cannot see it coming (a stated
// max_model_len below isl + osl is refused before launch: cli/preflight).
TEST_F(LlamacppRunTest, PromptsLongerThanTheContextAreClassifiedFromTheEngineLog) {
  ShellResult r = RunShell(RunArgs(WriteRecipe("[2]", 9000, 16)));
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("server.context_exceeded"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("8 of 8 requests failed: 8 http_status (HTTP 400"), std::string::npos)
      << r.output;
  auto records = Records();
  ASSERT_EQ(records.size(), 1u) << r.output;
  EXPECT_EQ(records[0].at("failure_class").as_string(), "server.context_exceeded");
}

TEST_F(LlamacppRunTest, CtrlCLeavesNoLlamaServerAndResumeFinishesTheSweep) {
  std::string recipe = WriteRecipe("[1, 2]", 128, 96);
  pid_t run = Spawn(RunArgs(recipe));
  ASSERT_TRUE(WaitForLog("concurrency 2 ...", 120)) << SpawnedLog();
  ASSERT_FALSE(MarkedEngines().empty()) << SpawnedLog();
  ::kill(run, SIGINT);
  EXPECT_EQ(Reap(run), 130) << SpawnedLog();
  EXPECT_TRUE(WaitForNoEngines(15)) << "a llama-server outlived servebench";

  ShellResult r = RunShell(RunArgs(recipe, "--resume"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("1 already ok (resumed)"), std::string::npos) << r.output;
  EXPECT_TRUE(WaitForNoEngines(10));
}

TEST_F(LlamacppRunTest, KillDashNineLeavesNoLlamaServer) {
  std::string recipe = WriteRecipe("[1, 2]", 128, 96);
  pid_t run = Spawn(RunArgs(recipe));
  ASSERT_TRUE(WaitForLog("concurrency 1 ...", 120)) << SpawnedLog();
  ASSERT_FALSE(MarkedEngines().empty()) << SpawnedLog();
  ::kill(run, SIGKILL);
  Reap(run);
  EXPECT_TRUE(WaitForNoEngines(15)) << "a llama-server outlived servebench";
}

// gsm8k end to end on synthetic problems: prompts, generation, extraction, scoring
// and the lm-eval-shaped files. A random model's answers are noise.
TEST_F(LlamacppRunTest, EvalGsm8kRunsThroughAgainstTheRealServer) {
  engine::testing::LlamaServerOptions o;
  o.slots = 4;
  auto server = engine::testing::LlamaServer::Start(llama_, o, (dir_ / "eval-engine.log").string());
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  std::string bin = SERVEBENCH_BIN;
  std::string test = (dir_ / "test.jsonl").string(), train = (dir_ / "train.jsonl").string();
  ASSERT_EQ(RunShell(bin + " eval make-synthetic --count 16 --seed 1 --output " + test).exit_code,
            0);
  ASSERT_EQ(RunShell(bin + " eval make-synthetic --count 8 --seed 2 --output " + train).exit_code,
            0);
  ShellResult r = RunShell(bin + " eval --task gsm8k --base-url " + (*server)->base_url() +
                           " --model tiny --data " + test + " --fewshot-data " + train +
                           " --num-fewshot 2 --endpoint completions --num-concurrent 4" +
                           " --max-tokens 32 --output " + (dir_ / "eval").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(dir_ / "eval" / "results.json");
  ASSERT_TRUE(in.good()) << r.output;
  boost::json::value v = boost::json::parse(std::string(std::istreambuf_iterator<char>(in), {}));
  const auto& gsm = v.at("results").at("gsm8k").as_object();
  double score = gsm.at("exact_match,strict-match").to_number<double>();
  EXPECT_GE(score, 0.0);
  EXPECT_LE(score, 1.0);
}

}  // namespace
}  // namespace servebench::run
