#include "run/executor.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <set>

#include "common/progress_line.h"
#include "common/time_format.h"
#include "recipe/agentic_trace.h"
#include "recipe/topology.h"
#include "record/record_builder.h"
#include "run/agentic_result.h"
#include "run/inferencex_result.h"
#include "run/search_point.h"

namespace servebench::run {

struct Executor::SessionState {
  const recipe::ServeSession* session = nullptr;
  std::unique_ptr<LiveEngine> engine;
  int starts = 0;
  bool start_failed = false;
  Failure start_failure;
  std::string log_path;
};

int SweepReport::Count(record::RecordStatus status) const {
  return static_cast<int>(std::count_if(points.begin(), points.end(), [&](const PointReport& p) {
    return p.status == status && !p.resumed;
  }));
}

Executor::Executor(RunSettings settings, EngineBackend* engine, LoadBackend* load,
                   EvalBackend* eval, RecordSink* sink, std::ostream* log)
    : settings_(std::move(settings)),
      engine_(engine),
      load_(load),
      eval_(eval),
      sink_(sink),
      log_(log) {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) == 0) host_ = name;
}

std::string Executor::LogPath(const recipe::ServeSession& session, int attempt) const {
  return fmt::format("{}/logs/{}-{}.log", settings_.out_dir, session.session_id.substr(0, 12),
                     attempt);
}

record::Provenance Executor::Observed(std::string engine_version, std::string ended_at) const {
  record::Provenance p;
  p.host = host_;
  p.engine_version = std::move(engine_version);
  p.started_at = Rfc3339Now();
  p.ended_at = std::move(ended_at);
  return p;
}

namespace {
using record::RecordStatus;
namespace fc = failure_class;

std::string Short(const std::string& id) { return id.substr(0, 12); }

std::string ConcList(const recipe::ServeSession& session) {
  std::string out;
  for (const auto& p : session.points) {
    if (!out.empty()) out += ",";
    // A search chooses its concurrencies (executor_search.cc).
    out += p.load.search.vary == "concurrency" ? "searched" : std::to_string(p.load.concurrency);
  }
  return out;
}

// "k × concurrency" when every point's count is that multiple, else the counts.
std::string PerConcurrency(const recipe::ServeSession& session,
                           int (*count)(const recipe::Point&)) {
  const recipe::Point& first = session.points.front();
  bool multiple = first.load.concurrency > 0 && count(first) % first.load.concurrency == 0;
  int k = multiple ? count(first) / first.load.concurrency : 0;
  std::string list;
  bool none = true;
  for (const auto& p : session.points) {
    multiple = multiple && count(p) == k * p.load.concurrency;
    none = none && count(p) == 0;
    list += (list.empty() ? "" : ",") + std::to_string(count(p));
  }
  if (none) return "none";
  return multiple && k > 0 ? fmt::format("{} × concurrency", k) : list;
}

// The client side of a session for --dry-run: what each point offers the server.
std::string DescribeClient(const recipe::ServeSession& session) {
  const recipe::LoadSpec& l = session.points.front().load;
  if (l.scenario == "agentic-coding") {
    const recipe::Point& p = session.points.front();
    const std::string cache_bust = recipe::AgenticCacheBust(l.endpoint);
    const std::string prompts =
        cache_bust == "none"
            ? recipe::AgenticTokenIdsReason(p.serve, l.endpoint)
            : fmt::format(
                  "as chat messages of exact length through the engine's /tokenize, "
                  "--cache-bust {}",
                  cache_bust);
    return fmt::format(
        "# client: agentic-coding replay of {} {}, concurrency = live trees, {} s per point, "
        "to {}\n#   {}\n",
        l.dataset, l.dataset_path, l.duration_s, l.endpoint, prompts);
  }
  std::string out = "# client: " + l.dataset + " prompts of " + std::to_string(l.isl) +
                    " tokens, " + std::to_string(l.osl) + " out";
  if (l.random_range_ratio > 0) out += fmt::format(" (range ratio {:g})", l.random_range_ratio);
  out += l.ignore_eos ? ", ignoring EOS" : "";
  out += ", to " + l.endpoint;
  if (l.backend == "openai-chat" || l.endpoint == "/v1/chat/completions")
    out +=
        " as chat messages: the server applies the model's chat template (servebench's "
        "form of vllm bench's --use-chat-template; it loads no tokenizer itself, so a client "
        "--trust-remote-code has no counterpart)";
  out += "\n#   ";
  out += l.request_rate_per_s > 0 ? fmt::format("{:g} requests/s, ", l.request_rate_per_s)
                                  : std::string("closed loop, ");
  bool prompts_set = true;
  for (const auto& p : session.points) prompts_set = prompts_set && p.load.num_prompts > 0;
  out += "prompts: " +
         (prompts_set
              ? PerConcurrency(session, [](const recipe::Point& p) { return p.load.num_prompts; })
              : std::string("the run's default")) +
         ", warm-ups: ";
  auto warmups = [](const recipe::Point& p) {
    return p.load.warmups_per_concurrency > 0 ? p.load.warmups_per_concurrency * p.load.concurrency
                                              : p.load.num_warmups;
  };
  out += PerConcurrency(session, warmups) + "\n";
  return out;
}

// The highest concurrency a session's points ask for: what its engine must serve at once
// (a concurrency search's: the top of its range).
int MaxConcurrency(const recipe::ServeSession& session, const RunSettings& settings) {
  int n = 0;
  for (const recipe::Point& p : session.points) {
    n = std::max(n, p.load.concurrency);
    if (p.load.search.vary != "concurrency") continue;
    if (auto s = SearchSettingsFor(p, settings, ""); s.ok())
      n = std::max(n, static_cast<int>(s->max));
  }
  return n;
}
}  // namespace

Status Executor::DryRun(const std::vector<recipe::ServeSession>& sessions, std::ostream& out) {
  int index = 0;
  for (const auto& session : sessions) {
    const recipe::Point& first = session.points.front();
    out << fmt::format("# session {}/{} {}: recipe {}, engine {}, {} point(s) at concurrency {}\n",
                       ++index, sessions.size(), Short(session.session_id), first.recipe,
                       first.serve.engine, session.points.size(), ConcList(session));
    // Shown as it would run, but env values stay secret (recipe.h, WithSecretsRedacted).
    SB_ASSIGN_OR_RETURN(std::string rendered,
                        engine_->Render(recipe::WithSecretsRedacted(first).serve,
                                        MaxConcurrency(session, settings_)));
    out << rendered;
    if (!rendered.empty() && rendered.back() != '\n') out << "\n";
    out << DescribeClient(session);
    for (const recipe::Point& p : session.points) {
      if (!p.load.search.enabled()) continue;
      SB_ASSIGN_OR_RETURN(search::SearchSettings s, SearchSettingsFor(p, settings_, ""));
      out << "#   " << DescribeSearch(p, s) << "\n";
    }
    out << "\n";
  }
  return Status::Ok();
}

std::string Executor::Progress(const recipe::ServeSession& session) const {
  std::string out = fmt::format("point {}/{} (session {}/{} {})", points_begun_, points_total_,
                                session_index_, sessions_total_, Short(session.session_id));
  if (points_timed_ > 0) {
    double per_point = points_seconds_ / points_timed_;
    out += ", ETA " + FormatDuration(per_point * (points_total_ - points_begun_ + 1));
  }
  return out;
}

SweepReport Executor::Run(const std::vector<recipe::ServeSession>& sessions,
                          const std::atomic<bool>* cancel) {
  SweepReport report;
  report.sessions = static_cast<int>(sessions.size());
  for (const auto& s : sessions) report.starts_one_per_point += static_cast<int>(s.points.size());
  points_total_ = report.starts_one_per_point;
  points_begun_ = points_timed_ = session_index_ = 0;
  points_seconds_ = 0;
  sessions_total_ = report.sessions;

  std::vector<std::string> already_ok;
  if (settings_.resume && sink_ != nullptr) {
    std::vector<std::string> ids;
    for (const auto& s : sessions)
      for (const auto& p : s.points) ids.push_back(p.point_id);
    auto ok = sink_->OkPointIds(ids);
    if (ok.ok()) {
      already_ok.assign(ok->begin(), ok->end());
    } else {
      *log_ << "servebench: cannot read the store for --resume: " << ok.status().message()
            << "; every point will run\n";
    }
  }
  std::sort(already_ok.begin(), already_ok.end());

  for (size_t i = 0; i < sessions.size(); ++i) {
    if (cancel != nullptr && cancel->load()) {
      report.interrupted = true;
      break;
    }
    if (report.canary_failed && !settings_.continue_after_canary_failure) {
      // Not run: recorded as skipped so the gap is visible, and `--resume` reruns it.
      Failure why{fc::kRunCanaryFailed, "not run: the canary failed (" +
                                            report.canary_failure.failure_class.name() + ")"};
      for (const auto& point : sessions[i].points) RecordSkipped(point, why, &report);
      continue;
    }
    ++session_index_;
    RunSession(sessions[i], i == 0, already_ok, cancel, &report);
  }
  return report;
}

void Executor::RecordSkipped(const recipe::Point& point, const Failure& why, SweepReport* report) {
  PointResult result;
  result.status = RecordStatus::kSkipped;
  result.failure = why;
  record::Provenance prov = Observed("", Rfc3339Now());
  Record(point, result, prov, report, /*said_above=*/true);
}

void Executor::RunSession(const recipe::ServeSession& session, bool is_first,
                          const std::vector<std::string>& already_ok,
                          const std::atomic<bool>* cancel, SweepReport* report) {
  SessionState state;
  state.session = &session;
  auto start_engine = [&]() {
    state.log_path = LogPath(session, state.starts);
    ++state.starts;
    ++report->server_starts;
    Failure failure;
    *log_ << fmt::format("servebench: session {}/{} {}: starting {} (concurrency {})\n",
                         session_index_, sessions_total_, Short(session.session_id),
                         session.points.front().serve.engine, ConcList(session));
    state.engine = engine_->Start(session.points.front().serve, MaxConcurrency(session, settings_),
                                  state.log_path, &failure);
    state.start_failed = state.engine == nullptr;
    if (!state.start_failed)
      load_->OnEngineReady(session.points.front(), state.engine->base_url(),
                           state.engine->role_metrics_endpoints(), cancel);
    if (state.start_failed) {
      state.start_failure = failure;
      *log_ << fmt::format("servebench: session {}: the engine did not start: {}: {} (log: {})\n",
                           Short(session.session_id), failure.failure_class.name(), failure.reason,
                           state.log_path);
    }
  };

  bool attempted_any = false;
  for (size_t i = 0; i < session.points.size(); ++i) {
    const recipe::Point& point = session.points[i];
    if (cancel != nullptr && cancel->load()) {
      report->interrupted = true;
      break;
    }
    ++points_begun_;
    if (std::binary_search(already_ok.begin(), already_ok.end(), point.point_id)) {
      PointReport pr;
      pr.point = point;
      pr.status = RecordStatus::kOk;
      pr.resumed = true;
      report->points.push_back(std::move(pr));
      continue;
    }
    bool canary = is_first && !attempted_any;
    attempted_any = true;
    if (state.engine == nullptr && !state.start_failed) start_engine();

    if (state.engine == nullptr) {
      PointResult result;
      result.failure = state.start_failure;
      result.status = record::DecideStatus(point.blocked, /*failed=*/true, false);
      result.engine_log_path = state.log_path;
      record::Provenance prov = Observed("", Rfc3339Now());
      Record(point, result, prov, report, /*said_above=*/true);
    } else {
      auto began = std::chrono::steady_clock::now();
      RunPoint(point, &state, cancel, report);
      points_seconds_ +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
      ++points_timed_;
    }
    const PointReport& done = report->points.back();
    if (done.failure.failure_class == fc::kRunInterrupted) {
      report->interrupted = true;
      break;
    }
    if (canary && done.status == RecordStatus::kFailed) {
      report->canary_failed = true;
      report->canary_failure = done.failure;
      int rest = points_total_ - points_begun_;
      if (!settings_.continue_after_canary_failure) {
        *log_ << fmt::format(
            "servebench: that was the canary: the sweep stops; the other {} point(s) are recorded "
            "as skipped (--continue-on-canary-failure runs them)\n",
            rest);
        Failure why{fc::kRunCanaryFailed,
                    "not run: the canary failed (" + done.failure.failure_class.name() + ")"};
        for (size_t j = i + 1; j < session.points.size(); ++j) {
          RecordSkipped(session.points[j], why, report);
        }
        break;
      }
      *log_ << "servebench: that was the canary; going on (--continue-on-canary-failure)\n";
    }
    // A dead engine is restarted for the session's remaining points.
    if (state.engine != nullptr && !state.engine->IsAlive()) {
      state.engine->Stop();
      state.engine.reset();
      if (i + 1 < session.points.size()) {
        if (state.starts <= settings_.max_restarts_per_session) {
          start_engine();
        } else {
          state.start_failed = true;
          state.start_failure = {fc::kServerDiedDuringRun,
                                 fmt::format("the engine died again after {} restart(s); "
                                             "giving up on this session",
                                             state.starts - 1)};
        }
      }
    }
  }
  if (state.engine != nullptr) state.engine->Stop();
}

void Executor::RunPoint(const recipe::Point& point, SessionState* state,
                        const std::atomic<bool>* cancel, SweepReport* report) {
  if (point.load.search.enabled()) {
    return RunSearchPoint(point, *state->session, state->engine.get(), cancel, report);
  }
  record::Provenance prov = Observed(state->engine->engine_version(), "");
  std::string requests_path =
      fmt::format("{}/requests/{}.jsonl", settings_.out_dir, point.point_id.substr(0, 16));
  *log_ << fmt::format("servebench: {}: concurrency {} ...\n", Progress(*state->session),
                       point.load.concurrency);
  log_->flush();
  // What the client sends as "model": the recipe's served name, else what the
  // engine lists (the point itself, and so its identity, is unchanged).
  recipe::Point target = point;
  if (target.serve.served_model_name.empty()) {
    target.serve.served_model_name = state->engine->served_model();
  }
  // Each role's metrics around the load run (a serve session of several processes).
  const std::vector<RoleEndpoint> roles = state->engine->role_metrics_endpoints();
  const RoleSamples roles_before = ScrapeRoles(roles, 5);
  LoadOutcome load = load_->Run(target, state->engine->base_url(), requests_path, cancel);
  const RoleSamples roles_after = ScrapeRoles(roles, 5);
  // A clean run proves the engine alive; after failures, give a dying engine a
  // moment to be seen dead, so the point is classified by the engine, not the client.
  bool clean = load.completed && load.valid && !load.interrupted;
  bool alive = clean ? state->engine->IsAlive() : !state->engine->ExitsWithin(2000);

  // InferenceX's own result file of a multinode point, or of an agentic one (its
  // aggregate and AIPerf-shaped artifacts), beside the record.
  std::string inferencex_result;
  if (recipe::HasTopology(point.serve)) {
    std::vector<int> concurrencies;
    for (const auto& p : state->session->points) concurrencies.push_back(p.load.concurrency);
    auto written = WriteInferenceXResult(settings_.out_dir, point, host_, concurrencies, load);
    if (written.ok()) {
      inferencex_result = *written;
    } else {
      *log_ << "servebench: " << written.status().message() << "\n";
    }
  } else if (point.load.scenario == "agentic-coding" && load.completed) {
    auto written =
        WriteAgenticResult(settings_.out_dir, point, host_, load, state->engine->log_path());
    if (written.ok()) {
      inferencex_result = written->aggregate_path;
    } else {
      *log_ << "servebench: " << written.status().message() << "\n";
    }
  }

  PointResult result;
  result.inferencex_result_path = inferencex_result;
  result.load = &load;
  // The engine's own log: a serve session's is a folder of one log per process.
  result.engine_log_path = state->engine->log_path();
  result.profile_dir = state->engine->profile_dir();
  if (!roles.empty()) result.role_metrics = RoleMetricsOver(roles_before, roles_after);
  bool failed = false, invalid = false;
  if (load.interrupted) {
    invalid = true;
    result.interrupted = true;
    result.failure = {fc::kRunInterrupted, "interrupted by the user; the partial result is kept"};
  } else if (!alive) {
    failed = true;
    result.failure = state->engine->Diagnose();
    if (result.failure.failure_class.empty())
      result.failure.failure_class = fc::kServerDiedDuringRun;
  } else if (!load.completed) {
    failed = true;
    result.failure = {fc::kClientError, load.error};
  } else if (!load.valid) {
    invalid = true;
    std::string reasons;
    for (const auto& r : load.invalid_reasons) reasons += (reasons.empty() ? "" : ", ") + r;
    result.failure = {fc::kClientInvalidRun, "validity rules broken: " + reasons};
    // Requests failed with the engine up: its log may name the cause.
    if (!load.failure_counts.empty()) {
      Failure cause = state->engine->ExplainRequestFailures();
      if (!cause.failure_class.empty()) result.failure = cause;
    }
  }
  // Why requests failed, in words, whatever the point's class: the point line, the
  // record and the report all carry it.
  if (!load.failure_summary.empty() && !result.failure.failure_class.empty()) {
    result.failure.reason += "; " + load.failure_summary;
  }

  EvalOutcome eval;
  if (!failed && !invalid && point.run_eval && eval_ != nullptr) {
    eval = eval_->Run(target, state->engine->base_url(),
                      fmt::format("{}/evals/{}", settings_.out_dir, point.point_id.substr(0, 16)),
                      cancel);
    result.eval = &eval;
    if (!eval.ran) {
      failed = true;
      result.failure = {state->engine->IsAlive() ? fc::kEvalError : fc::kServerDiedDuringRun,
                        eval.error};
    } else if (!eval.passed) {
      failed = true;
      result.failure = {fc::kEvalBelowThreshold, "accuracy gate failed: " + eval.error};
    }
  }
  result.status = record::DecideStatus(point.blocked, failed, invalid);
  prov.ended_at = Rfc3339Now();
  Record(point, result, prov, report);
}

void Executor::Record(const recipe::Point& point, const PointResult& result,
                      const record::Provenance& provenance, SweepReport* report, bool said_above) {
  PointReport pr;
  pr.point = point;
  pr.status = result.status;
  pr.failure = result.failure;
  if (result.load != nullptr) pr.request_failures = result.load->failure_counts;
  pr.unblocked = point.blocked && result.status == RecordStatus::kOk;
  pr.record = BuildRecord(point, settings_, provenance, result);
  if (sink_ != nullptr) {
    Status stored = sink_->Put(pr.record);
    if (!stored.ok()) {
      report->sink_errors.push_back(stored.message());
      *log_ << "servebench: error: " << stored.message() << "\n";
    }
  }
  // Skipped points are told in one line by the caller; a point whose engine did not
  // start says so without repeating why (the session's line did).
  if (result.status != RecordStatus::kSkipped) {
    std::string why;
    if (said_above) {
      why = " (" + result.failure.failure_class.name() + ": the engine did not start, see above)";
    } else if (!result.failure.failure_class.empty()) {
      why = " (" + result.failure.failure_class.name() + ": " + result.failure.reason + ")";
    }
    *log_ << fmt::format("servebench: point {} concurrency {}: {}{}\n", Short(point.point_id),
                         point.load.concurrency, record::RecordStatusName(result.status), why);
  }
  report->points.push_back(std::move(pr));
}

}  // namespace servebench::run
