// Executor: runs a plan's serve sessions against live engines (design.md data flow).
//
//  * Points sharing a serve spec run against one server, in ascending concurrency.
//  * The canary — the first session's lowest-concurrency point — runs first; when it
//    fails the sweep stops with its failure class (unless continue_after_canary_failure).
//  * An engine that dies mid-point fails that point (server.died_during_run); the session's
//    server is restarted for the remaining points.
//  * Every attempted point yields one Record, written through the RecordSink before
//    the next point starts, so nothing measured is lost to a crash or Ctrl-C.
//  * Cancellation (Ctrl-C) stops at once: the point in flight is recorded as
//    interrupted with its partial result; untouched points get no record, so
//    `--resume` finishes them.
// What it prints (to `log`) is one line per fact: each session's start (and, once, why
// its engine failed to start), each point's "point k/N (session i/S ...) ... ETA"
// before it runs and its outcome after, one line for points skipped after a failed
// canary. The bench progress line of the point in flight comes from client/.
// A point that searches (recipe::SloSearchSpec) runs `servebench search` on the warm
// server instead of one load: a record per probe and one for the answer, as the
// command writes them, and the probes' table in the log.
// Not thread-safe: one Run at a time, from one thread.
#pragma once

#include <atomic>
#include <boost/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "recipe/recipe.h"
#include "run/backends.h"
#include "run/record.h"
#include "run/run_settings.h"

namespace servebench::run {

struct PointReport {
  recipe::Point point;
  record::RecordStatus status = record::RecordStatus::kSkipped;
  Failure failure;
  std::string request_failures;  // "19 read, 2 http_status" when requests failed
  bool resumed = false;          // skipped because the store already had it ok
  bool unblocked = false;
  record::Record record;  // as written (empty for resumed points)
};

struct SweepReport {
  std::vector<PointReport> points;
  int sessions = 0;
  int server_starts = 0;         // including restarts
  int starts_one_per_point = 0;  // what starting a server per point would cost
  bool canary_failed = false;
  Failure canary_failure;
  bool interrupted = false;
  std::vector<std::string> sink_errors;  // records that could not be stored

  int Count(record::RecordStatus status) const;
};

class Executor {
 public:
  // The backends must outlive the executor. `eval` and `sink` may be null.
  Executor(RunSettings settings, EngineBackend* engine, LoadBackend* load, EvalBackend* eval,
           RecordSink* sink, std::ostream* log);

  SweepReport Run(const std::vector<recipe::ServeSession>& sessions,
                  const std::atomic<bool>* cancel);

  // --dry-run: every serve session's command, and its points; nothing starts.
  Status DryRun(const std::vector<recipe::ServeSession>& sessions, std::ostream& out);

 private:
  struct SessionState;
  void RunSession(const recipe::ServeSession& session, bool is_first,
                  const std::vector<std::string>& already_ok, const std::atomic<bool>* cancel,
                  SweepReport* report);
  // Runs the load (and evals) of one point on the live engine and records it.
  void RunPoint(const recipe::Point& point, SessionState* state, const std::atomic<bool>* cancel,
                SweepReport* report);
  // RunPoint for a point whose load is a search (executor_search.cc): the search on
  // the live engine, every probe's record and the answer's through the sink, the
  // answer's in `report`.
  void RunSearchPoint(const recipe::Point& point, const recipe::ServeSession& session,
                      LiveEngine* engine, const std::atomic<bool>* cancel, SweepReport* report);
  // Builds the point's Record, hands it to the sink and appends it to `report`.
  // `said_above`: why it failed was already printed (the engine did not start).
  void Record(const recipe::Point& point, const PointResult& result,
              const record::Provenance& provenance, SweepReport* report, bool said_above = false);
  // What this executor observed of a point about to be recorded.
  record::Provenance Observed(std::string engine_version, std::string ended_at) const;
  void RecordSkipped(const recipe::Point& point, const Failure& why, SweepReport* report);
  std::string LogPath(const recipe::ServeSession& session, int attempt) const;
  // "point 3/28 (session 1/4 abc123def456)" and, once a point finished, ", ETA 4m10s".
  std::string Progress(const recipe::ServeSession& session) const;

  RunSettings settings_;
  EngineBackend* engine_;
  LoadBackend* load_;
  EvalBackend* eval_;
  RecordSink* sink_;
  std::ostream* log_;
  std::string host_;
  // Progress over the whole Run: points in the plan, points begun (resumed ones
  // included), seconds spent on the points that ran, sessions.
  int points_total_ = 0;
  int points_begun_ = 0;
  int points_timed_ = 0;
  double points_seconds_ = 0;
  int sessions_total_ = 0;
  int session_index_ = 0;
};

}  // namespace servebench::run
