// `servebench run --executor slurm` with a disaggregated serve session (one prefill
// at TP 2, two decodes at TP 2, a router: two 8-GPU nodes) against the real Slurm
// cluster the `slurm` CTest fixture starts (three node names, each its own slurmd, on
// this machine). The session gets an allocation of its two nodes in an array of its
// own; every process is an srun step on the node its plan places it on; every point
// is ok. Killing any one role (prefill, decode or router) mid-point fails that point
// by role; no process or step of the session is left on any node.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/testing/files.h"
#include "common/testing/shell.h"
#include "testing/disagg_kill_cases.h"

namespace {

namespace fs = std::filesystem;
using servebench::testing::ReadFileOrEmpty;
using servebench::testing::RunShell;

class SlurmDisaggE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // A parameterised test's name holds a '/': one folder per test, not a nested one.
    std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::replace(test.begin(), test.end(), '/', '_');
    dir_ = fs::temp_directory_path() / ("sb_slurm_pd_" + std::to_string(::getpid()) + "_" + test);
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    marker_ = std::to_string(3000000 + ::getpid() % 1000000);
  }
  void TearDown() override {
    for (pid_t p : Sims("")) ::kill(p, SIGKILL);
    fs::remove_all(dir_);
  }

  // A disaggregated sim session and a single sim server (two arrays: 2 nodes, 1 node).
  std::string Recipe(double time_scale, int osl, const std::string& concurrency) {
    std::ostringstream y;
    y << "servebench: 1\nrecipes:\n";
    y << "  pd:\n    engine: sim\n    model: llama-3.1-8b\n    hardware: h200\n"
      << "    readiness_timeout_s: 60\n    sim:\n      time_scale: " << time_scale
      << "\n      seed: " << marker_ << "\n    topology: {kv_connector: nixl}\n"
      << "    load:\n      prompts_per_concurrency: 4\n"
      << "    scenarios:\n      - isl: 512\n        osl: " << osl << "\n"
      << "        search_space:\n          - prefill: {replicas: 1, tp: 2}\n"
      << "            decode: {replicas: 2, tp: 2}\n            concurrency: " << concurrency
      << "\n";
    y << "  single:\n    engine: sim\n    model: llama-3.1-8b\n    hardware: h200\n"
      << "    sim:\n      time_scale: 0.05\n      seed: " << marker_ << "\n"
      << "    load:\n      prompts_per_concurrency: 4\n"
      << "    scenarios:\n      - isl: 64\n        osl: 16\n        search_space:\n"
      << "          - {tp: 1, concurrency: [1]}\n";
    const std::string path = (dir_ / "recipe.yaml").string();
    std::ofstream(path) << y.str();
    return path;
  }
  // The timing validity rules are off, as in slurm_e2e_test: these tests check
  // placement, supervision and classification on a shared machine, not timing.
  std::string RunArgs(const std::string& recipe) {
    return std::string(SERVEBENCH_BIN) + " run " + recipe + " --executor slurm --out " +
           (dir_ / "out").string() + " --db " + (dir_ / "sb.db").string() +
           " --issue-delay-limit-ms 100000 --server-lag-limit-ms 100000";
  }
  pid_t Spawn(const std::string& args) {
    pid_t pid = fork();
    if (pid == 0) {
      const std::string cmd = "exec " + args + " > " + (dir_ / "submitter.log").string() + " 2>&1";
      execl("/bin/sh", "sh", "-c", cmd.c_str(), nullptr);
      _exit(127);
    }
    return pid;
  }
  // The running steps of this test's jobs (the cluster is shared): "<name> <node>".
  std::set<std::string> Steps() {
    const std::string log = ReadFileOrEmpty(dir_ / "submitter.log");
    std::string jobs;
    const std::regex submitted("submitted Slurm job ([0-9]+)");
    for (auto it = std::sregex_iterator(log.begin(), log.end(), submitted);
         it != std::sregex_iterator(); ++it)
      jobs += (jobs.empty() ? "" : ",") + (*it)[1].str();
    if (jobs.empty()) return {};
    auto q = RunShell("squeue -h -s -j " + jobs + " -o '%j %N'");
    std::set<std::string> out;
    std::istringstream lines(q.output);
    for (std::string line; std::getline(lines, line);)
      if (!line.empty()) out.insert(line);
    return out;
  }
  std::vector<pid_t> Sims(const std::string& role) {
    std::vector<pid_t> pids;
    for (const auto& entry : fs::directory_iterator("/proc")) {
      const std::string name = entry.path().filename();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      std::string cmd = ReadFileOrEmpty(entry.path() / "cmdline");
      for (char& c : cmd) c = c == '\0' ? ' ' : c;
      if (cmd.find(" sim ") == std::string::npos || cmd.find(marker_) == std::string::npos ||
          cmd.find(" run ") != std::string::npos || cmd.find("srun") != std::string::npos)
        continue;
      if (!role.empty() && cmd.find("--role " + role + " ") == std::string::npos) continue;
      if (ReadFileOrEmpty(entry.path() / "stat").find(") Z") != std::string::npos) continue;
      pids.push_back(std::stoi(name));
    }
    return pids;
  }
  std::map<std::string, int> Stored(std::vector<std::string>* reasons = nullptr) {
    std::map<std::string, int> out;
    sqlite3* db = nullptr;
    if (sqlite3_open_v2((dir_ / "sb.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
      return out;
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(
        db,
        "SELECT status, failure_class, json_extract(record_json, '$.failure_reason') "
        "FROM records",
        -1, &st, nullptr);
    while (sqlite3_step(st) == SQLITE_ROW) {
      ++out[reinterpret_cast<const char*>(sqlite3_column_text(st, 0))];
      if (reasons && sqlite3_column_text(st, 2) != nullptr &&
          sqlite3_column_text(st, 1) != nullptr && *sqlite3_column_text(st, 1) != '\0') {
        reasons->push_back(std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, 1))) +
                           " | " + reinterpret_cast<const char*>(sqlite3_column_text(st, 2)));
      }
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
  }

  fs::path dir_;
  std::string marker_;
};

TEST_F(SlurmDisaggE2eTest, TheSessionGetsItsNodesAndEachProcessIsAStepOnItsNode) {
  pid_t submitter = Spawn(RunArgs(Recipe(0.2, 64, "[2, 8]")));
  // While it runs: the steps are named after the processes, each on its plan's node.
  std::set<std::string> seen;
  int status = 0;
  for (int i = 0; i < 1800 && ::waitpid(submitter, &status, WNOHANG) == 0; ++i) {
    for (const auto& s : Steps()) seen.insert(s);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const std::string log = ReadFileOrEmpty(dir_ / "submitter.log");
  ASSERT_TRUE(WIFEXITED(status)) << log;
  EXPECT_EQ(WEXITSTATUS(status), 0) << log;
  EXPECT_EQ(Stored(), (std::map<std::string, int>{{"ok", 3}})) << log;
  const std::string script = ReadFileOrEmpty(dir_ / "out" / "slurm" / "job-nodes2.sbatch");
  EXPECT_NE(script.find("#SBATCH --nodes=2"), std::string::npos) << script;
  EXPECT_NE(script.find("--slurm-steps"), std::string::npos) << script;
  EXPECT_NE(ReadFileOrEmpty(dir_ / "out" / "slurm" / "job.sbatch").find("#SBATCH --ntasks=1"),
            std::string::npos);
  // prefill[0] and the router on the allocation's first node, both decodes on the second.
  std::map<std::string, std::string> node_of;
  for (const auto& s : seen) {
    const auto space = s.find(' ');
    node_of[s.substr(0, space)] = s.substr(space + 1);
  }
  ASSERT_TRUE(node_of.count("prefill[0]") && node_of.count("decode[0]") &&
              node_of.count("decode[1]") && node_of.count("router"))
      << ::testing::PrintToString(seen) << "\n"
      << log;
  EXPECT_EQ(node_of["router"], node_of["prefill[0]"]);
  EXPECT_EQ(node_of["decode[0]"], node_of["decode[1]"]);
  EXPECT_NE(node_of["decode[0]"], node_of["prefill[0]"]);
  EXPECT_TRUE(Steps().empty()) << ::testing::PrintToString(Steps());
  EXPECT_TRUE(Sims("").empty());
}

using servebench::run::testing::KillCase;

class SlurmDisaggKillTest : public SlurmDisaggE2eTest,
                            public ::testing::WithParamInterface<KillCase> {};

TEST_P(SlurmDisaggKillTest, KillingARoleStepMidPointFailsThatPointByRoleAndLeavesNothing) {
  const KillCase& k = GetParam();
  pid_t submitter = Spawn(RunArgs(Recipe(1.0, 256, "[1, 2, 4]")));
  auto task_log = [&] { return ReadFileOrEmpty(dir_ / "out" / "slurm" / "nodes2-task-0.log"); };
  for (int i = 0; i < 1800 && task_log().find("concurrency 2 ...") == std::string::npos; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  auto victims = Sims(k.role);
  ASSERT_FALSE(victims.empty()) << task_log();
  ::kill(victims.front(), SIGKILL);
  int status = 0;
  ::waitpid(submitter, &status, 0);
  const std::string log = ReadFileOrEmpty(dir_ / "submitter.log");
  EXPECT_EQ(WEXITSTATUS(status), 3) << log << task_log();
  // The point killed fails; the session is restarted, whole, for the next one; the
  // single-server array runs its point.
  std::vector<std::string> reasons;
  EXPECT_EQ(Stored(&reasons), (std::map<std::string, int>{{"failed", 1}, {"ok", 3}})) << task_log();
  ASSERT_EQ(reasons.size(), 1u) << ::testing::PrintToString(reasons);
  auto starts_with_class = [&](const char* c) {
    return c != nullptr && reasons[0].rfind(std::string(c) + " | " + k.process, 0) == 0;
  };
  EXPECT_TRUE(starts_with_class(k.failure_class) || starts_with_class(k.also_class)) << reasons[0];
  EXPECT_NE(reasons[0].find(std::string("(") + k.role + " on node"), std::string::npos)
      << reasons[0];
  std::printf("%s: %s\n", k.role, reasons[0].c_str());
  EXPECT_TRUE(Steps().empty()) << ::testing::PrintToString(Steps());
  EXPECT_TRUE(Sims("").empty()) << "a process of the session outlived the job";
}

INSTANTIATE_TEST_SUITE_P(EachRole, SlurmDisaggKillTest, servebench::run::testing::DisaggKillCases(),
                         servebench::run::testing::KillCaseName);

}  // namespace
