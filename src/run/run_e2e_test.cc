// End-to-end: the real `servebench run` binary against real `servebench sim`
// engines on loopback, with a real SQLite store. Each test writes a small native
// recipe into its own temporary folder.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/testing/files.h"
#include "common/testing/shell.h"

namespace {

namespace fs = std::filesystem;

using Result = servebench::testing::ShellResult;

class RunE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = servebench::testing::FreshTestDir("run_e2e");
    // A marker no other process has: finds this test's engines in /proc.
    marker_ = std::to_string(1000000 + ::getpid() % 1000000);
  }
  void TearDown() override {
    KillMarked();
    fs::remove_all(dir_);
  }

  // A sim recipe: llama-3.1-8b on h200; `extra` is appended inside the recipe.
  std::string WriteRecipe(const std::string& concurrency, const std::string& extra,
                          double time_scale = 0, int osl = 16) {
    std::ostringstream y;
    y << "servebench: 1\nrecipes:\n  e2e-sim:\n    engine: sim\n    model: llama-3.1-8b\n"
      << "    hardware: h200\n    precision: bf16\n    readiness_timeout_s: 30\n"
      << "    sim:\n      time_scale: " << time_scale << "\n      seed: " << marker_ << "\n"
      << extra << "    load:\n      dataset: random\n      prompts_per_concurrency: 4\n"
      << "    scenarios:\n      - isl: 64\n        osl: " << osl << "\n"
      << "        search_space:\n          - tp: 1\n            concurrency: " << concurrency
      << "\n";
    std::string path = (dir_ / "recipe.yaml").string();
    std::ofstream(path) << y.str();
    return path;
  }

  // Puts `faults` (flag: "value" lines, two-space indented by the caller's map) into
  // the sim block of the recipe WriteRecipe wrote at `recipe`.
  void AddSimFaults(const std::string& recipe, const std::string& faults) {
    std::ifstream in(recipe);
    std::string text(std::istreambuf_iterator<char>(in), {});
    in.close();
    text.insert(text.find("      seed:"), "      faults:\n" + faults);
    std::ofstream(recipe) << text;
  }

  std::string RunArgs(const std::string& recipe, const std::string& more = "") {
    return std::string(SERVEBENCH_BIN) + " run " + recipe + " --out " + (dir_ / "out").string() +
           " --db " + (dir_ / "sb.db").string() +
           // The suite shares two cores with other tests, and compressed time magnifies
           // a host's hiccup by 1/time scale in simulated time: lateness is not what
           // these tests are about (bench/ measures the client, sim_rehearsal_e2e_test
           // the busy host).
           " --issue-delay-limit-ms 100000 --server-lag-limit-ms 100000 " + more;
  }

  Result Run(const std::string& args) { return servebench::testing::RunShell(args); }

  // Starts `args` in the background with output to a file; returns its pid.
  pid_t Spawn(const std::string& args) {
    pid_t pid = fork();
    if (pid == 0) {
      std::string cmd = "exec " + args + " > " + (dir_ / "spawned.log").string() + " 2>&1";
      execl("/bin/sh", "sh", "-c", cmd.c_str(), nullptr);
      _exit(127);
    }
    return pid;
  }

  std::string SpawnedLog() {
    std::ifstream in(dir_ / "spawned.log");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  // pids of `servebench sim` processes started by this test (by their seed marker).
  std::vector<pid_t> MarkedEngines() {
    std::vector<pid_t> pids;
    for (const auto& entry : fs::directory_iterator("/proc")) {
      std::string name = entry.path().filename();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      std::ifstream in(entry.path() / "cmdline");
      std::string cmd(std::istreambuf_iterator<char>(in), {});
      for (char& c : cmd) c = c == '\0' ? ' ' : c;
      if (cmd.find(" sim ") != std::string::npos && cmd.find(marker_) != std::string::npos &&
          cmd.find(" run ") == std::string::npos) {
        // Zombies are gone for our purpose.
        std::ifstream stat(entry.path() / "stat");
        std::string s(std::istreambuf_iterator<char>(stat), {});
        if (s.find(") Z") != std::string::npos) continue;
        pids.push_back(std::stoi(name));
      }
    }
    return pids;
  }
  void KillMarked() {
    for (pid_t p : MarkedEngines()) ::kill(p, SIGKILL);
  }
  bool WaitForNoEngines(double seconds) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < deadline) {
      if (MarkedEngines().empty()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return MarkedEngines().empty();
  }

  std::vector<boost::json::object> Records() {
    std::vector<boost::json::object> out;
    fs::path records = dir_ / "out" / "records";
    if (!fs::exists(records)) return out;
    for (const auto& e : fs::directory_iterator(records)) {
      std::ifstream in(e.path());
      std::string text(std::istreambuf_iterator<char>(in), {});
      out.push_back(boost::json::parse(text).as_object());
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
      return a.at("concurrency").as_int64() < b.at("concurrency").as_int64();
    });
    return out;
  }

  fs::path dir_;
  std::string marker_;
};

TEST_F(RunE2eTest, SweepOnTheSimIsAllOkWithOneServerAndAParetoTable) {
  // A small time scale so TPOT is measurable (at 0 every token arrives at once).
  Result r = Run(RunArgs(WriteRecipe("[1, 2, 4]", "", /*time_scale=*/0.05)));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("3 point(s): 3 ok"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1 server start(s) for 1 session(s), 2 fewer"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("Pareto frontier"), std::string::npos) << r.output;
  auto records = Records();
  ASSERT_EQ(records.size(), 3u);
  for (const auto& rec : records) {
    EXPECT_EQ(rec.at("status").as_string(), "ok");
    EXPECT_TRUE(rec.at("simulated").as_bool());
    EXPECT_GT(rec.at("summary").at("output_throughput").as_double(), 0);
    EXPECT_FALSE(rec.at("provenance").at("engine_version").as_string().empty());
  }
  EXPECT_TRUE(fs::exists(dir_ / "out" / "report.md"));
  EXPECT_TRUE(WaitForNoEngines(5));
}

TEST_F(RunE2eTest, Eagle3FailureLineIsClassifiedAndTheCanaryStopsTheSweep) {
  std::string recipe = WriteRecipe("[1, 2]", "");
  std::string line =
      "Model does not support EAGLE3 interface but aux_hidden_state_outputs was requested";
  AddSimFaults(recipe,
               "        fault-exit-at-startup: \"" + line + "\"\n        fault-exit-code: \"1\"\n");
  Result r = Run(RunArgs(recipe));
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("canary failed: server.spec.eagle3_unsupported"), std::string::npos)
      << r.output;
  auto records = Records();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].at("status").as_string(), "failed");
  EXPECT_EQ(records[0].at("failure_class").as_string(), "server.spec.eagle3_unsupported");
  EXPECT_EQ(records[1].at("status").as_string(), "skipped");
}

// The sim exits at startup as an engine whose port another process holds.
constexpr char kPortTakenFault[] =
    "        fault-exit-at-startup: \"servebench sim: [Errno 98] Address already in use: "
    "cannot bind 127.0.0.1:1\"\n        fault-exit-code: \"3\"\n";

// Another process can take the free port servebench picked before the engine binds
// it (the CI race that failed a disaggregated test): the run starts the engine again
// on a fresh port, says so, and measures the point.
TEST_F(RunE2eTest, AnEngineWhosePortWasTakenIsStartedAgainOnAFreshPort) {
  std::string recipe = WriteRecipe("[1]", "");
  const std::string marker = (dir_ / "failed-once").string();
  AddSimFaults(recipe,
               std::string(kPortTakenFault) + "        fault-exit-once: \"" + marker + "\"\n");
  Result r = Run(RunArgs(recipe));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(marker)) << "the first start did not fail";
  EXPECT_NE(r.output.find("another process took the port after servebench picked it: starting "
                          "again on fresh ports (attempt 2/3)"),
            std::string::npos)
      << r.output;
  auto records = Records();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].at("status").as_string(), "ok") << r.output;
}

// A port that stays taken fails the point as infra.port_in_use after the last try.
TEST_F(RunE2eTest, AnEngineWhosePortStaysTakenFailsAsPortInUseAfterThreeStarts) {
  std::string recipe = WriteRecipe("[1]", "");
  AddSimFaults(recipe, kPortTakenFault);
  Result r = Run(RunArgs(recipe));
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("(attempt 3/3)"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("(attempt 4/3)"), std::string::npos) << r.output;
  auto records = Records();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].at("failure_class").as_string(), "infra.port_in_use");
}

TEST_F(RunE2eTest, InvalidRecipeLaunchesNothing) {
  std::string path = (dir_ / "bad.yaml").string();
  std::ofstream(path) << "servebench: 1\nrecipes:\n  bad:\n    engine: sim\n    modle: x\n";
  Result r = Run(RunArgs(path));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("nothing was launched"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "out"));
  EXPECT_TRUE(MarkedEngines().empty());
}

// A port nothing listens on now (bound and released), for a verbatim command's own.
int UnusedPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

// A verbatim command serving a model's snapshot folder from the HF cache (InferenceX's
// MiniMax-M3 H200 script: `vllm serve "$MODEL_PATH"`): the prepare step downloads it
// (here: makes the cache's layout, revision r7), and only then is the folder, which the
// recipe cannot know, given to the command, in its argv and in MODEL_PATH. The command
// starts the sim only when both name the downloaded snapshot.
TEST_F(RunE2eTest, ASnapshotFolderIsResolvedAfterThePrepareStepsAndGivenToTheCommand) {
  const int port = UnusedPort();
  const std::string hub = (dir_ / "hub").string();
  std::ostringstream y;
  y << "servebench: 1\nrecipes:\n  snap:\n    engine: sim\n    model: llama-3.1-8b\n"
    << "    hardware: h200\n    precision: bf16\n    readiness_timeout_s: 30\n"
    << "    prepare:\n      - [bash, -c, 'm=\"$HF_HUB_CACHE/models--org--m\"; mkdir -p \"$m/refs\" "
       "\"$m/snapshots/r7\" && printf r7 > \"$m/refs/main\" && echo {} > "
       "\"$m/snapshots/r7/config.json\"']\n"
    << "    env_from: {MODEL_PATH: {hf_snapshot: org/m}}\n"
    << "    env_not_secret: [MODEL_PATH]\n"
    << "    load:\n      dataset: random\n      prompts_per_concurrency: 4\n"
    << "    scenarios:\n      - isl: 64\n        osl: 16\n        search_space:\n"
    << "          - tp: 1\n            concurrency: [1]\n            command:\n"
    << "              argv: [bash, -c, 'test -f \"$1/config.json\" && test \"$1\" = "
       "\"$MODEL_PATH\" && exec \"$0\" sim --port "
    << port << " --time-scale 0 --seed " << marker_ << "', " << SERVEBENCH_BIN
    << ", {hf_snapshot: org/m}]\n"
    << "              port: " << port << "\n";
  const std::string recipe = (dir_ / "recipe.yaml").string();
  std::ofstream(recipe) << y.str();
  Result dry = Run("HF_HUB_CACHE=" + hub + " " + RunArgs(recipe, "--dry-run"));
  ASSERT_EQ(dry.exit_code, 0) << dry.output;
  EXPECT_NE(dry.output.find("hf_snapshot_1=\"$hf_snapshot_1/snapshots/$(cat "), std::string::npos)
      << dry.output;
  EXPECT_NE(dry.output.find("MODEL_PATH=\"$hf_snapshot_1\""), std::string::npos) << dry.output;
  EXPECT_FALSE(fs::exists(hub)) << "the dry run downloads nothing";
  Result r = Run("HF_HUB_CACHE=" + hub + " " + RunArgs(recipe));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("1 ok"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::is_directory(hub + "/models--org--m/snapshots/r7"));
  // Without the download the command is not started, and the error says why.
  std::string no_prepare = y.str();
  no_prepare.erase(no_prepare.find("    prepare:"),
                   no_prepare.find("    env_from:") - no_prepare.find("    prepare:"));
  std::ofstream(recipe) << no_prepare;
  Result missing = Run("HF_HUB_CACHE=" + (dir_ / "empty").string() + " " + RunArgs(recipe));
  EXPECT_NE(missing.exit_code, 0) << missing.output;
  EXPECT_NE(missing.output.find("org/m's snapshot in the HF cache"), std::string::npos)
      << missing.output;
}

TEST_F(RunE2eTest, DryRunPrintsTheSimCommandAndStartsNothing) {
  Result r = Run(RunArgs(WriteRecipe("[1, 2]", ""), "--dry-run"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(" sim"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1 serve session(s), 2 point(s)"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "out" / "records"));
}

TEST_F(RunE2eTest, EngineKilledMidPointFailsThatPointAndTheSweepGoesOnWithARestartedServer) {
  // Slow enough that a point lasts about a second: time scale 1, 128 output tokens.
  std::string recipe = WriteRecipe("[1, 2, 4]", "", /*time_scale=*/1.0, /*osl=*/128);
  // No GPU power here: at time scale 1 its sampling would stretch every point by
  // seconds (docs/power.md), and these tests time their kills.
  pid_t run = Spawn(RunArgs(recipe, "--gpu-telemetry none --idle-power-s 0"));
  // Wait until the second point has started, then SIGKILL the engine.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (SpawnedLog().find("concurrency 2 ...") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  auto engines = MarkedEngines();
  ASSERT_EQ(engines.size(), 1u) << SpawnedLog();
  ::kill(engines[0], SIGKILL);
  int status = 0;
  ::waitpid(run, &status, 0);
  EXPECT_EQ(WEXITSTATUS(status), 3) << SpawnedLog();
  auto records = Records();
  ASSERT_EQ(records.size(), 3u) << SpawnedLog();
  EXPECT_EQ(records[0].at("status").as_string(), "ok");
  EXPECT_EQ(records[1].at("status").as_string(), "failed");
  EXPECT_EQ(records[1].at("failure_class").as_string(), "server.died_during_run") << SpawnedLog();
  EXPECT_EQ(records[2].at("status").as_string(), "ok") << SpawnedLog();
  EXPECT_NE(SpawnedLog().find("2 server start(s)"), std::string::npos) << SpawnedLog();
  EXPECT_TRUE(WaitForNoEngines(5));
}

TEST_F(RunE2eTest, KillingServebenchLeavesNoEngineAndResumeFinishesTheSweep) {
  std::string recipe = WriteRecipe("[1, 2, 4]", "", /*time_scale=*/1.0, /*osl=*/128);
  // No GPU power here: at time scale 1 its sampling would stretch every point by
  // seconds (docs/power.md), and these tests time their kills.
  pid_t run = Spawn(RunArgs(recipe, "--gpu-telemetry none --idle-power-s 0"));
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (SpawnedLog().find("concurrency 2 ...") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_FALSE(MarkedEngines().empty()) << SpawnedLog();
  ::kill(run, SIGKILL);
  int status = 0;
  ::waitpid(run, &status, 0);
  EXPECT_TRUE(WaitForNoEngines(10)) << "an engine outlived servebench";

  Result r = Run(RunArgs(recipe, "--resume --gpu-telemetry none --idle-power-s 0"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("1 already ok (resumed)"), std::string::npos) << r.output;

  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir_ / "sb.db").string().c_str(), &db), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &stmt, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)), "ok");
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  EXPECT_TRUE(WaitForNoEngines(5));
}

}  // namespace

// --profile: the sim is started with VLLM_TORCH_PROFILER_DIR set to the session's
// folder under <out>/profiles/; each point's measured phase leaves one trace there,
// and the record names the folder. --reset-prefix-cache rides along (a warning-free 200).
TEST_F(RunE2eTest, APrefixPoolRecipeIsServedFromThePoolAtItsReuseRatio) {
  // dataset prefix_repetition (docs/recipes.md): 40 prompts of 160 tokens, 100 of them a
  // prefix from a pool of 4 for 75 % of the prompts, against the sim's prefix cache in
  // 16-token blocks (taken from the engine's args for the expected hits).
  std::ostringstream y;
  y << "servebench: 1\nrecipes:\n  e2e-pool:\n    engine: sim\n    model: llama-3.1-8b\n"
    << "    hardware: h200\n    precision: bf16\n    readiness_timeout_s: 30\n"
    << "    extra_args: [--enable-prefix-caching, --block-size, \"16\"]\n"
    << "    sim:\n      time_scale: 0.01\n      seed: " << marker_ << "\n"
    << "    load:\n      dataset: prefix_repetition\n      prefix_len: 100\n"
    << "      num_prefixes: 4\n      prefix_reuse_ratio: 0.75\n      num_prompts: 40\n"
    << "    scenarios:\n      - isl: 160\n        osl: 8\n"
    << "        search_space:\n          - tp: 1\n            concurrency: [8]\n";
  std::string recipe = (dir_ / "recipe.yaml").string();
  std::ofstream(recipe) << y.str();
  Result r = Run(RunArgs(recipe));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto records = Records();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].at("isl").as_int64(), 160);
  const boost::json::object& cache =
      records[0].at("summary").at("servebench").at("prefix_cache").as_object();
  EXPECT_EQ(cache.at("engine_block_tokens").as_int64(), 16);
  EXPECT_EQ(cache.at("pool").at("suffix_len").as_int64(), 60);
  ASSERT_TRUE(cache.at("server").is_object()) << cache;
  EXPECT_NEAR(cache.at("server").at("pool_reuse").to_number<double>(), 0.75, 1e-6) << cache;
  EXPECT_NEAR(cache.at("server").at("hit_rate").to_number<double>(), 0.45, 1e-6) << cache;
}

TEST_F(RunE2eTest, ProfileLeavesATracePerPointInTheSessionsFolderNamedByTheRecord) {
  Result r = Run(RunArgs(WriteRecipe("[1, 2]", ""), "--profile --reset-prefix-cache"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("failed: HTTP"), std::string::npos) << r.output;
  auto records = Records();
  ASSERT_EQ(records.size(), 2u);
  const std::string folder(records[0].at("artifacts").at("profile").as_string());
  EXPECT_EQ(fs::path(folder).parent_path(), dir_ / "out" / "profiles");
  EXPECT_EQ(records[1].at("artifacts").at("profile").as_string(), folder) << "one session";
  int traces = 0;
  for (const auto& e : fs::directory_iterator(folder)) {
    std::ifstream in(e.path());
    std::string text(std::istreambuf_iterator<char>(in), {});
    EXPECT_FALSE(boost::json::parse(text).at("traceEvents").as_array().empty()) << e.path();
    ++traces;
  }
  EXPECT_EQ(traces, 2) << "one per point";
}
