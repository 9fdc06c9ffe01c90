// `servebench run --executor slurm` against a real Slurm controller (a one-node
// cluster the `slurm` CTest fixture starts; SLURM_CONF points at it) running the
// real `servebench sim` engines: one array task per serve session, every record
// ingested by the submitter, failures confined to their task.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "common/testing/files.h"
#include "common/testing/shell.h"

namespace {

using servebench::testing::ReadFileOrEmpty;

namespace fs = std::filesystem;
using servebench::testing::RunShell;

// One sim recipe: two configurations (tp 1, tp 2: two serve sessions), two
// concurrencies each; `faults` (sim flags) make its engine fail at startup.
std::string Recipe(const std::string& name, const std::string& faults = "") {
  std::string y =
      "  " + name +
      ":\n    engine: sim\n    model: llama-3.1-8b\n    hardware: h200\n    precision: bf16\n"
      "    readiness_timeout_s: 30\n    sim:\n      time_scale: 0.05\n" +
      faults +
      "    load:\n      dataset: random\n      prompts_per_concurrency: 4\n"
      "    scenarios:\n      - isl: 64\n        osl: 16\n        search_space:\n";
  return y;
}

class SlurmE2eTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = servebench::testing::FreshTestDir("slurm"); }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& recipes) {
    std::string path = (dir_ / "recipe.yaml").string();
    std::ofstream(path) << "servebench: 1\nrecipes:\n" << recipes;
    return path;
  }
  servebench::testing::ShellResult Run(const std::string& recipe, const std::string& more = "") {
    return RunShell(std::string(SERVEBENCH_BIN) + " run " + recipe + " --executor slurm --out " +
                    (dir_ / "out").string() + " --db " + (dir_ / "sb.db").string() +
                    " --issue-delay-limit-ms 100000 --server-lag-limit-ms 100000 " + more);
  }
  // status -> count, and the run ids, of the stored records.
  std::map<std::string, int> StoredStatuses(std::set<std::string>* run_ids = nullptr) {
    std::map<std::string, int> out;
    sqlite3* db = nullptr;
    if (sqlite3_open_v2((dir_ / "sb.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
      return out;
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db, "SELECT status, run_id FROM records", -1, &st, nullptr);
    while (sqlite3_step(st) == SQLITE_ROW) {
      ++out[reinterpret_cast<const char*>(sqlite3_column_text(st, 0))];
      if (run_ids) run_ids->insert(reinterpret_cast<const char*>(sqlite3_column_text(st, 1)));
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
  }

  fs::path dir_;
};

TEST_F(SlurmE2eTest, EachServeSessionIsOneArrayTaskAndEveryRecordIsIngested) {
  std::string recipe = Write(Recipe("slurm-sim") +
                             "          - {tp: 1, concurrency: [1, 4]}\n"
                             "          - {tp: 2, concurrency: [1, 4]}\n");
  auto r = Run(recipe);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::string script = ReadFileOrEmpty(dir_ / "out" / "slurm" / "job.sbatch");
  EXPECT_NE(script.find("#SBATCH --array=0-1"), std::string::npos) << script;
  EXPECT_NE(r.output.find("task 0  session"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("task 1  session"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(4 record(s) ingested)"), std::string::npos) << r.output;
  for (const char* task : {"0", "1"}) {
    EXPECT_EQ(ReadFileOrEmpty(dir_ / "out" / "tasks" / task / "exit_code"), "0\n");
    EXPECT_TRUE(fs::exists(dir_ / "out" / "tasks" / task / "report.md"));
    size_t files = 0;
    for (const auto& f : fs::directory_iterator(dir_ / "out" / "tasks" / task / "records"))
      files += f.is_regular_file();
    EXPECT_EQ(files, 2u) << "task " << task;
    EXPECT_NE(ReadFileOrEmpty(dir_ / "out" / "slurm" / (std::string("task-") + task + ".log"))
                  .find("servebench: task " + std::string(task)),
              std::string::npos);
  }
  std::set<std::string> run_ids;
  EXPECT_EQ(StoredStatuses(&run_ids), (std::map<std::string, int>{{"ok", 4}}));
  EXPECT_EQ(run_ids.size(), 1u) << "one sweep, one run id";
}

TEST_F(SlurmE2eTest, AFailingSessionFailsOnlyItsTaskAndItsRecordsAreStoredToo) {
  std::string faults =
      "      faults:\n        fault-exit-at-startup: \"torch.OutOfMemoryError: CUDA out of "
      "memory\"\n"
      "        fault-exit-code: \"1\"\n";
  std::string recipe =
      Write(Recipe("healthy") + "          - {tp: 1, concurrency: [1, 4]}\n" +
            Recipe("broken", faults) + "          - {tp: 1, concurrency: [1, 4]}\n");
  auto r = Run(recipe);
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("exit 0"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("exit 3"), std::string::npos) << r.output;
  // The healthy session measured both points; the broken one's canary failed and
  // its other point was skipped: all four recorded.
  EXPECT_EQ(StoredStatuses(),
            (std::map<std::string, int>{{"failed", 1}, {"ok", 2}, {"skipped", 1}}));
}

// Ctrl-C while the array runs: the submitter cancels the job (scancel), each task's
// `servebench run` gets SIGTERM and records what it had, and the submitter still
// ingests every record before exiting 130. No task is left in the queue.
TEST_F(SlurmE2eTest, CtrlCCancelsTheJobAndKeepsWhatTheTasksMeasured) {
  std::string recipe = (dir_ / "recipe.yaml").string();
  std::ofstream(recipe) << "servebench: 1\nrecipes:\n"
                        << Recipe("slow").replace(Recipe("slow").find("time_scale: 0.05"), 16,
                                                  "time_scale: 1")
                        << "          - {tp: 1, concurrency: [1, 2, 4, 8, 16]}\n"
                        << "          - {tp: 2, concurrency: [1, 2, 4, 8, 16]}\n";
  pid_t pid = fork();
  if (pid == 0) {
    std::string cmd =
        std::string("exec ") + SERVEBENCH_BIN + " run " + recipe + " --executor slurm --out " +
        (dir_ / "out").string() + " --db " + (dir_ / "sb.db").string() +
        " --issue-delay-limit-ms 100000 --server-lag-limit-ms 100000 --gpu-telemetry none "
        "--idle-power-s 0 > " +
        (dir_ / "submitter.log").string() + " 2>&1";
    execl("/bin/sh", "sh", "-c", cmd.c_str(), nullptr);
    _exit(127);
  }
  // Wait until both tasks have measured a point, then press Ctrl-C.
  auto measured = [&](const char* task) {
    return ReadFileOrEmpty(dir_ / "out" / "slurm" / (std::string("task-") + task + ".log"))
               .find(": ok") != std::string::npos;
  };
  for (int i = 0; i < 600 && !(measured("0") && measured("1")); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(measured("0") && measured("1")) << ReadFileOrEmpty(dir_ / "submitter.log");
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  std::string log = ReadFileOrEmpty(dir_ / "submitter.log");
  ASSERT_TRUE(WIFEXITED(status)) << log;
  EXPECT_EQ(WEXITSTATUS(status), 130) << log;
  EXPECT_NE(log.find("cancelling Slurm job"), std::string::npos) << log;
  std::map<std::string, int> stored = StoredStatuses();
  EXPECT_GE(stored["ok"], 2) << log;
  int total = 0;
  for (const auto& [status_name, n] : stored) total += n;
  EXPECT_GE(total, 2);
  EXPECT_LT(stored["ok"], 10) << "the sweep was cut short";
  // This test's job (other tests may share the cluster) has left the queue.
  std::smatch job;
  ASSERT_TRUE(std::regex_search(log, job, std::regex("submitted Slurm job ([0-9]+)"))) << log;
  auto queue = RunShell("squeue -h -j " + job[1].str() + " -o %i");
  EXPECT_EQ(queue.output.find(job[1].str()), std::string::npos)
      << "a task is still queued or running: " << queue.output;
}

TEST_F(SlurmE2eTest, DryRunPrintsTheJobScriptAndSubmitsNothing) {
  std::string recipe = Write(Recipe("slurm-sim") + "          - {tp: 1, concurrency: [1]}\n");
  auto r =
      Run(recipe,
          "--dry-run --slurm-partition debug --slurm-time 00:30:00 --slurm-arg=--gpus-per-task=8");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("#SBATCH --array=0-0"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("#SBATCH --partition=debug"), std::string::npos);
  EXPECT_NE(r.output.find("#SBATCH --time=00:30:00"), std::string::npos);
  EXPECT_NE(r.output.find("#SBATCH --gpus-per-task=8"), std::string::npos);
  // The task's command is this one without what the submitter owns.
  size_t cmd = r.output.find("' 'run' ");
  ASSERT_NE(cmd, std::string::npos) << r.output;
  std::string line = r.output.substr(cmd, r.output.find('\n', cmd) - cmd);
  EXPECT_NE(line.find("'" + recipe + "'"), std::string::npos) << line;
  EXPECT_NE(line.find("'--issue-delay-limit-ms' '100000'"), std::string::npos) << line;
  for (const std::string& owned : {std::string("--executor"), std::string("--slurm"),
                                   std::string("--dry-run"), (dir_ / "sb.db").string()}) {
    EXPECT_EQ(line.find(owned), std::string::npos) << owned << " in " << line;
  }
  EXPECT_NE(line.find("--session \"$session\" --out \"$dir\" --db ''"), std::string::npos) << line;
  EXPECT_FALSE(fs::exists(dir_ / "out" / "slurm" / "job.sbatch")) << "nothing written or submitted";
}

}  // namespace
