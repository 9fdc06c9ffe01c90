// CaptureInferenceXLaunches: dedupe the jobs, run them on worker sandboxes, apply.
#include "capture/capture.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "capture/apply_capture.h"
#include "capture/job_environment.h"
#include "capture/sandbox.h"
#include "capture/script_run.h"

namespace servebench::capture {
namespace {

namespace fs = std::filesystem;

// A job's identity: the script and every variable (the environment decides the run).
std::string JobKey(const JobEnvironment& job) {
  std::string key = job.script;
  for (const auto& [k, v] : job.vars) key += '\0' + k + '=' + v;
  return key;
}

int Workers(const CaptureSettings& settings, size_t jobs) {
  int n = settings.jobs > 0 ? settings.jobs
                            : std::min(4, static_cast<int>(std::thread::hardware_concurrency()));
  return std::max(1, std::min(n, static_cast<int>(jobs)));
}

// "tp8 ep8 dpa 1k1k mtp": the session a split happened in.
std::string SessionName(const recipe::Point& p) {
  const recipe::ServeSpec& s = p.serve;
  std::string name = fmt::format("tp{}", s.tp);
  if (s.ep > 1) name += fmt::format(" ep{}", s.ep);
  if (s.dp_attn) name += " dpa";
  if (p.load.scenario == "agentic-coding")
    name += " agentic";
  else
    name += fmt::format(" {}x{}", p.load.isl, p.load.osl);
  if (s.kv_offloading != "none" && !s.kv_offloading.empty()) name += " kv-" + s.kv_offloading;
  return name;
}

// The flags of argv: each "--name" (with "=value" cut off).
std::set<std::string> Flags(const std::vector<std::string>& argv) {
  std::set<std::string> flags;
  for (const auto& a : argv)
    if (a.rfind("--", 0) == 0) flags.insert(a.substr(0, a.find('=')));
  return flags;
}

// What differs between two captured commands: the flags whose values differ, the
// flags only one has, the environment variables and the files; "a, b change" or
// "a changes".
std::string Differences(const recipe::ServeSpec& a, const recipe::ServeSpec& b) {
  std::set<std::string> what;
  const auto& x = a.command.argv;
  const auto& y = b.command.argv;
  if (x.size() != y.size()) {
    std::set<std::string> fx = Flags(x), fy = Flags(y);
    for (const auto& f : fx)
      if (!fy.count(f)) what.insert(f + " (not always given)");
    for (const auto& f : fy)
      if (!fx.count(f)) what.insert(f + " (not always given)");
    if (what.empty()) what.insert("the number of arguments");
  } else {
    for (size_t i = 0; i < x.size(); ++i) {
      if (x[i] == y[i]) continue;
      if (x[i].rfind("--", 0) == 0 && x[i].find('=') != std::string::npos)
        what.insert(x[i].substr(0, x[i].find('=')));
      else if (i > 0 && x[i - 1].rfind("-", 0) == 0)
        what.insert(x[i - 1]);
      else
        what.insert("argument " + std::to_string(i + 1));
    }
  }
  std::set<std::string> names;
  for (const auto& [k, v] : a.env) names.insert(k);
  for (const auto& [k, v] : b.env) names.insert(k);
  for (const auto& k : names) {
    auto i = a.env.find(k), j = b.env.find(k);
    if (i == a.env.end() || j == b.env.end() || i->second != j->second) what.insert("env " + k);
  }
  if (a.command.files.size() != b.command.files.size()) {
    what.insert("its files");
  } else {
    for (size_t i = 0; i < a.command.files.size(); ++i)
      if (a.command.files[i].contents != b.command.files[i].contents)
        what.insert("file " + a.command.files[i].path);
  }
  if (a.command.auxiliary.size() != b.command.auxiliary.size()) {
    what.insert("its auxiliary servers");
  } else {
    for (size_t i = 0; i < a.command.auxiliary.size(); ++i)
      if (a.command.auxiliary[i].argv != b.command.auxiliary[i].argv ||
          a.command.auxiliary[i].env != b.command.auxiliary[i].env)
        what.insert("auxiliary server " + a.command.auxiliary[i].argv.front());
  }
  const recipe::RouterCommand &ra = a.command.router, &rb = b.command.router;
  if (ra.argv != rb.argv || ra.env != rb.env || ra.port != rb.port)
    what.insert(ra.argv.empty() || rb.argv.empty() ? "the router in front"
                                                   : "router " + ra.argv.front());
  if (what.empty()) return "the command changes";
  std::string out;
  for (const auto& w : what) out += (out.empty() ? "" : ", ") + w;
  return out + (what.size() > 1 ? " change" : " changes");
}

void AddOnce(std::vector<std::string>* list, const std::string& item) {
  if (std::find(list->begin(), list->end(), item) == list->end()) list->push_back(item);
}

}  // namespace

StatusOr<CaptureReport> CaptureInferenceXLaunches(recipe::Plan* plan,
                                                  const recipe::RunnerConfig& runners,
                                                  const CaptureSettings& settings,
                                                  std::vector<LaunchCapture>* captures) {
  CaptureReport report;
  std::map<std::string, size_t> key_index;
  auto key_report = [&](const std::string& key) -> KeyReport& {
    auto [it, added] = key_index.emplace(key, report.keys.size());
    if (added) {
      KeyReport k;
      k.key = key;
      report.keys.push_back(std::move(k));
    }
    return report.keys[it->second];
  };
  // The jobs, deduplicated; each point remembers its job.
  std::vector<JobEnvironment> jobs;
  std::map<std::string, size_t> job_index;
  std::vector<std::optional<size_t>> point_job(plan->points.size());
  std::vector<std::string> job_errors(plan->points.size());
  for (size_t i = 0; i < plan->points.size(); ++i) {
    const recipe::Point& p = plan->points[i];
    if (p.source_format != "inferencex") continue;
    KeyReport& kr = key_report(p.recipe);
    if (p.serve.multinode) {
      kr.multinode = true;
      continue;
    }
    ++kr.points;
    auto job = JobEnvironmentFor(p, runners, settings.port, settings.inferencex_root);
    if (!job.ok()) {
      job_errors[i] = job.status().message();
      continue;
    }
    if (job->script.empty()) {
      std::string tried;
      for (const auto& c : job->candidates) tried += (tried.empty() ? "" : ", ") + c;
      job_errors[i] = "no benchmark script: tried " + tried;
      continue;
    }
    AddOnce(&kr.scripts, job->script);
    auto [it, added] = job_index.emplace(JobKey(*job), jobs.size());
    if (added) {
      jobs.push_back(std::move(*job));
      ++kr.captures;
    }
    point_job[i] = it->second;
  }
  report.captures = static_cast<int>(jobs.size());

  // Run them.
  std::vector<LaunchCapture> results(jobs.size());
  if (!jobs.empty()) {
    std::string scratch = settings.scratch_dir;
    const bool owned = scratch.empty();
    static std::atomic<int> calls{0};
    if (owned)
      scratch =
          (fs::temp_directory_path() / fmt::format("servebench-capture-{}-{}", ::getpid(), calls++))
              .string();
    const int workers = Workers(settings, jobs.size());
    std::vector<Sandbox> boxes;
    for (int w = 0; w < workers; ++w) {
      SB_ASSIGN_OR_RETURN(Sandbox box, Sandbox::Create(settings.inferencex_root,
                                                       fmt::format("{}/sandbox-{}", scratch, w)));
      boxes.push_back(std::move(box));
    }
    std::atomic<size_t> next{0};
    auto work = [&](Sandbox* box) {
      for (size_t j = next++; j < jobs.size(); j = next++) {
        auto run = RunScript(*box, jobs[j], settings.script_timeout_s);
        if (!run.ok()) {
          results[j].script = jobs[j].script;
          results[j].failure = "could not run the script: " + run.status().message();
          continue;
        }
        results[j] = ExtractLaunch(*run, jobs[j], *box, settings.port);
      }
    };
    std::vector<std::thread> threads;
    for (int w = 1; w < workers; ++w) threads.emplace_back(work, &boxes[w]);
    work(&boxes[0]);  // this thread too: it outlives every script it starts
    for (auto& t : threads) t.join();
    if (owned) {
      std::error_code ec;
      fs::remove_all(scratch, ec);
    }
  }

  // Apply, and say what happened per key.
  std::vector<std::string> before(plan->points.size());
  std::map<std::string, std::vector<std::pair<std::string, int>>> failures;
  for (size_t i = 0; i < plan->points.size(); ++i) {
    recipe::Point& p = plan->points[i];
    before[i] = p.session_id;
    if (p.source_format != "inferencex" || p.serve.multinode) continue;
    KeyReport& kr = key_report(p.recipe);
    std::string why = job_errors[i];
    if (why.empty() && point_job[i]) why = results[*point_job[i]].failure;
    if (!why.empty()) {
      ++report.failed_points;
      bool found = false;
      for (auto& [reason, count] : kr.failures)
        if (reason == why) ++count, found = true;
      if (!found) kr.failures.emplace_back(why, 1);
      continue;
    }
    const LaunchCapture& capture = results[*point_job[i]];
    for (const auto& note : capture.notes) AddOnce(&kr.notes, note);
    for (const auto& note : ApplyCapture(capture, &p)) AddOnce(&kr.notes, note);
    recipe::AssignIds(&p);
    ++kr.captured;
  }
  // Sessions the capture split: points that shared a server before, not after.
  std::map<std::string, std::vector<size_t>> by_session;
  for (size_t i = 0; i < plan->points.size(); ++i)
    if (plan->points[i].source_format == "inferencex" && !plan->points[i].serve.multinode)
      by_session[before[i]].push_back(i);
  std::vector<std::pair<size_t, std::string>> splits;  // first point, text
  for (const auto& [session, members] : by_session) {
    std::vector<size_t> distinct;
    for (size_t i : members) {
      bool seen = false;
      for (size_t d : distinct)
        seen = seen || plan->points[d].session_id == plan->points[i].session_id;
      if (!seen) distinct.push_back(i);
    }
    if (distinct.size() < 2) continue;
    const recipe::Point& a = plan->points[distinct[0]];
    const recipe::Point& b = plan->points[distinct[1]];
    splits.emplace_back(
        members.front(),
        fmt::format("{}: {} with CONC, so {} serve sessions (one per command) where the "
                    "matrix has 1",
                    SessionName(a), Differences(a.serve, b.serve), distinct.size()));
  }
  std::sort(splits.begin(), splits.end());
  for (const auto& [first, text] : splits)
    key_report(plan->points[first].recipe).splits.push_back(text);
  if (captures != nullptr) *captures = std::move(results);
  return report;
}

std::string FormatCaptureReport(const CaptureReport& report, bool with_notes) {
  std::string out;
  int keys_ok = 0, keys_partial = 0, keys_failed = 0, multinode = 0;
  for (const auto& k : report.keys) {
    if (k.multinode && k.points == 0) {
      ++multinode;
      out += fmt::format(
          "{}: not captured: a multinode key (launch capture covers single-node "
          "scripts)\n",
          k.key);
      continue;
    }
    if (k.captured == k.points)
      ++keys_ok;
    else if (k.captured > 0)
      ++keys_partial;
    else
      ++keys_failed;
    std::string scripts;
    for (const auto& s : k.scripts) scripts += (scripts.empty() ? "" : ", ") + s;
    out += fmt::format("{}: captured {}/{} point(s) in {} script run(s){}\n", k.key, k.captured,
                       k.points, k.captures, scripts.empty() ? "" : " of " + scripts);
    for (const auto& s : k.splits) out += "  split: " + s + "\n";
    for (const auto& [reason, count] : k.failures)
      out += fmt::format("  not captured ({} point(s)): {}\n", count, reason);
    if (with_notes)
      for (const auto& n : k.notes) out += "  note: " + n + "\n";
  }
  out += fmt::format(
      "{} key(s) captured, {} partly, {} not at all, {} multinode; {} script run(s), {} "
      "point(s) not captured\n",
      keys_ok, keys_partial, keys_failed, multinode, report.captures, report.failed_points);
  return out;
}

}  // namespace servebench::capture
