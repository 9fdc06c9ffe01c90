// Test helpers for capture/: the fixture checkout, and ReplayDryRun, which executes a
// dry run's shell text with recorders (testdata/recorder.sh) standing in for the
// programs it names, to see exactly which argv and environment it would start.
// Header-only; tests only.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "capture/call_record.h"
#include "capture/sandbox.h"
#include "common/atomic_file.h"
#include "engine/command_display.h"
#include "recipe/hub_snapshot.h"
#include "recipe/point.h"

namespace servebench::capture::testing {

inline std::string SourceDir() { return SERVEBENCH_SOURCE_DIR; }
inline std::string FixtureRoot() { return SourceDir() + "/src/capture/testdata/inferencex"; }

// A fresh folder under the temp dir, removed by the destructor.
class TempFolder {
 public:
  explicit TempFolder(const std::string& name) {
    static int count = 0;
    path_ =
        (std::filesystem::temp_directory_path() /
         ("servebench-" + name + "-" + std::to_string(::getpid()) + "-" + std::to_string(count++)))
            .string();
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempFolder() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Runs `shell_text` with bash in `dir`, every name in StandinNames() a recorder, in
// an environment of only PATH, RECORD_DIR and `launch_env` (the launching machine's
// variables, for env_from), and returns the recorded calls in order. Empty on failure
// (the test then fails on the count). Calls started in the background may be
// recorded in either order with the next one.
inline std::vector<CallRecord> ReplayDryRun(const std::string& shell_text, const std::string& dir,
                                            const std::map<std::string, std::string>& launch_env) {
  const std::string bin = dir + "/bin", records = dir + "/records";
  std::filesystem::create_directories(bin);
  std::filesystem::create_directories(records);
  for (const auto& name : StandinNames())
    std::filesystem::create_symlink(SourceDir() + "/src/capture/testdata/recorder.sh",
                                    bin + "/" + name);
  // `wait`: the auxiliary servers a dry run starts in the background have recorded
  // themselves before the calls are read.
  if (!WriteFileAtomically(dir + "/dry_run.sh", shell_text + "wait\n").ok()) return {};
  std::string command =
      "cd '" + dir + "' && env -i PATH='" + bin + ":/usr/bin:/bin' RECORD_DIR='" + records + "'";
  for (const auto& [name, value] : launch_env) command += " " + name + "='" + value + "'";
  command += " bash dry_run.sh > replay.log 2>&1";
  if (std::system(command.c_str()) != 0) return {};
  auto calls = ReadCallRecords(records);
  return calls.ok() ? *calls : std::vector<CallRecord>{};
}

// Makes an HF cache in `cache` holding a snapshot of each repository whose snapshot
// `serve`'s command names (recipe/hub_snapshot.h), laid out as `hf download` leaves
// one (refs/main naming snapshots/replay-revision), and returns `serve` with each
// snapshot word replaced by that folder: what its dry run, run with
// HF_HUB_CACHE=`cache`, starts.
inline recipe::ServeSpec WithReplayHubCache(const recipe::ServeSpec& serve,
                                            const std::string& cache) {
  auto folder = [&](const std::string& repo) {
    const std::string model = cache + "/" + recipe::HubCacheFolderName(repo);
    std::filesystem::create_directories(model + "/refs");
    std::filesystem::create_directories(model + "/snapshots/replay-revision");
    std::ofstream(model + "/refs/main") << "replay-revision";
    return model + "/snapshots/replay-revision";
  };
  recipe::ServeSpec out = serve;
  auto words = [&](std::vector<std::string>* argv, std::map<std::string, std::string>* env) {
    for (auto& word : *argv) word = recipe::ReplaceHubSnapshots(word, folder);
    for (auto& [name, value] : *env) value = recipe::ReplaceHubSnapshots(value, folder);
  };
  words(&out.command.argv, &out.env);
  for (auto& aux : out.command.auxiliary) words(&aux.argv, &aux.env);
  words(&out.command.router.argv, &out.command.router.env);
  return out;
}

// The dry run starts each auxiliary server of `serve` in the background just before
// the engine, so their records and the engine's may come in either order: takes the
// record of each out of `calls` by what it started (its argv and environment, or the
// container command that runs them from serve.image) and returns "" when each was
// there, else what was missing.
inline std::string TakeAuxiliaryCalls(const recipe::ServeSpec& serve,
                                      std::vector<CallRecord>* calls) {
  std::string missing;
  const bool contained = !serve.command.folder.empty();
  for (const auto& aux : serve.command.auxiliary) {
    auto it = calls->begin();
    for (; it != calls->end(); ++it) {
      std::vector<std::string> argv = {it->tool};
      argv.insert(argv.end(), it->argv.begin(), it->argv.end());
      const std::string line = engine::JoinForShell(argv);
      bool same = true;
      if (!contained) {
        same = argv == aux.argv;
        for (const auto& [k, v] : aux.env) same = same && it->env.count(k) && it->env.at(k) == v;
      } else {
        same = line.find("-aux") != std::string::npos &&
               line.find("--entrypoint " + engine::ShellQuote(aux.argv[0]) + " " +
                         engine::ShellQuote(serve.image) + " " +
                         engine::JoinForShell(std::vector<std::string>(
                             aux.argv.begin() + 1, aux.argv.end()))) != std::string::npos;
        for (const auto& [k, v] : aux.env)
          same = same && line.find("-e " + engine::ShellQuote(k + "=" + v)) != std::string::npos;
      }
      if (same) break;
    }
    if (it == calls->end()) {
      missing += "no auxiliary server " + engine::JoinForShell(aux.argv) + "\n";
      continue;
    }
    calls->erase(it);
  }
  return missing;
}

// The dry run of a command with a router (serve.command.router) waits for the
// engine's /health in a curl loop, then starts the router. The engine runs in the
// background, so its record may come before, between or after those two: takes the
// router's record (its argv and environment, or the container command that runs it
// from serve.image) and the readiness wait's out of `calls` and returns "" when both
// were there, the wait first, else what differs. "" with `calls` untouched when
// there is no router.
inline std::string TakeRouterCall(const recipe::ServeSpec& serve, std::vector<CallRecord>* calls) {
  const recipe::RouterCommand& router = serve.command.router;
  if (router.argv.empty()) return "";
  const bool contained = !serve.command.folder.empty();
  auto is_router = [&](const CallRecord& call) {
    std::vector<std::string> argv = {call.tool};
    argv.insert(argv.end(), call.argv.begin(), call.argv.end());
    if (!contained) {
      if (argv != router.argv) return false;
      for (const auto& [k, v] : router.env)
        if (!call.env.count(k) || call.env.at(k) != v) return false;
      return true;
    }
    const std::string line = engine::JoinForShell(argv);
    const std::string tail =
        "--entrypoint " + engine::ShellQuote(router.argv[0]) + " " +
        engine::ShellQuote(serve.image) + " " +
        engine::JoinForShell(std::vector<std::string>(router.argv.begin() + 1, router.argv.end()));
    if (line.find("-router") == std::string::npos || line.find(tail) == std::string::npos)
      return false;
    for (const auto& [k, v] : router.env)
      if (line.find("-e " + engine::ShellQuote(k + "=" + v)) == std::string::npos) return false;
    return true;
  };
  auto started = std::find_if(calls->begin(), calls->end(), is_router);
  if (started == calls->end())
    return "no router started as " + engine::JoinForShell(router.argv) + "\n";
  auto probe = std::find_if(calls->begin(), calls->end(),
                            [](const CallRecord& call) { return call.tool == "curl"; });
  if (probe == calls->end()) return "no readiness wait for the engine before the router\n";
  if (probe > started) return "the router started before the engine's readiness wait\n";
  calls->erase(started);
  calls->erase(probe);
  return "";
}

}  // namespace servebench::capture::testing
