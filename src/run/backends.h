// The executor's view of the modules it drives. run/ talks to engines, the load
// generator, the eval runner and the store only through these interfaces, so the
// orchestration (sessions, canary, restarts, resume, Ctrl-C) is tested with fakes
// and the real implementations (real_backends.h) stay thin.
// Threading: the executor calls everything from one thread.
#pragma once

#include <atomic>
#include <boost/json.hpp>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/failure_class.h"
#include "common/status.h"
#include "recipe/point.h"
#include "record/record.h"
#include "run/role_metrics.h"
#include "search/slo_search.h"

namespace servebench::run {

// Why a point or session failed: a class (common/failure_class.h: a built-in one, or
// one of the engine catalogue's, e.g. server.spec.eagle3_unsupported) plus one line
// for people.
struct Failure {
  FailureClass failure_class;
  std::string reason;
};

// A started, ready engine serving one session.
class LiveEngine {
 public:
  virtual ~LiveEngine() = default;
  virtual std::string base_url() const = 0;        // "http://127.0.0.1:PORT"
  virtual std::string engine_version() const = 0;  // from GET /version, or ""
  // The first model id GET /v1/models listed at readiness ("" if none): what clients
  // send when the recipe names no served model (the sim serves catalogue names under
  // their hub ids, as vLLM serves a path under the path).
  virtual std::string served_model() const { return ""; }
  virtual std::string log_path() const = 0;
  // `servebench run --profile`: the folder the engine's profiler writes into; "" = none.
  virtual std::string profile_dir() const { return ""; }
  // False once the engine process has exited.
  virtual bool IsAlive() = 0;
  // True if the engine exits within `timeout_ms` (or has exited). An engine killed
  // mid-run fails requests a moment before its exit is observed; this closes the gap.
  virtual bool ExitsWithin(int timeout_ms) {
    (void)timeout_ms;
    return !IsAlive();
  }
  // Classifies why the engine stopped or misbehaved, from its exit and its log.
  virtual Failure Diagnose() = 0;
  // Requests of a point failed while the engine kept serving: the failure class its
  // log gives (a signature such as server.context_exceeded), or an empty Failure
  // when the log names no known cause.
  virtual Failure ExplainRequestFailures() { return {}; }
  // A serve session of several processes: each role's /metrics (role_metrics.h);
  // empty for a single server (its metrics are the client's to scrape).
  virtual std::vector<RoleEndpoint> role_metrics_endpoints() const { return {}; }
  // SIGTERM to its process group, SIGKILL after a grace period. Idempotent.
  virtual void Stop() = 0;
};

class EngineBackend {
 public:
  virtual ~EngineBackend() = default;
  // The exact command, environment and files that Start would use, for --dry-run.
  // `max_concurrency` is the highest concurrency of the session's points: engines
  // that size their parallel slots up front (llama.cpp's -np) serve that many.
  virtual StatusOr<std::string> Render(const recipe::ServeSpec& serve, int max_concurrency) = 0;
  // Starts the engine and waits for readiness. On failure (early exit, readiness
  // timeout, launch error) returns the classified failure in `failure`.
  virtual std::unique_ptr<LiveEngine> Start(const recipe::ServeSpec& serve, int max_concurrency,
                                            const std::string& log_path, Failure* failure) = 0;
};

// The outcome of one load run.
struct LoadOutcome {
  bool completed = false;  // the run finished (valid or not); false: could not run
  bool valid = false;
  bool interrupted = false;  // cancelled mid-run; `summary` holds the partial result
  std::vector<std::string> invalid_reasons;
  boost::json::object summary;     // vllm-bench-compatible result JSON (may be partial)
  std::string requests_path;       // per-request JSONL, when written
  std::string power_samples_path;  // GPU power samples (InferenceX gpu_metrics CSV), when any
  // The measured phase's /metrics scrapes (metrics/scrape_series.h), when written.
  std::string server_metrics_path;
  std::string error;  // why it could not run, when !completed
  // Failed requests in words (metrics/failure_summary.h), "" when none failed: the
  // counts per kind ("19 read") and the same with each kind's first message.
  std::string failure_counts;
  std::string failure_summary;
};

// The outcome of a search point (recipe::SloSearchSpec, run/search_point.h).
struct SearchOutcome {
  Status status;  // not ok: the search could not start (its settings); nothing ran
  search::SearchSettings settings;
  search::SearchResult result;  // every probe, the answer, why it stopped
};

class LoadBackend {
 public:
  virtual ~LoadBackend() = default;
  // A serve session's engine is ready and has had no traffic yet (called again
  // after a restart): the load side measures what it needs once per session
  // (idle GPU power) before the session's first point. `roles` are the engine's
  // role_metrics_endpoints() (empty for a single server): where each worker of a
  // session of several processes serves its metrics and which GPUs it runs on.
  virtual void OnEngineReady(const recipe::Point& first_point, const std::string& base_url,
                             const std::vector<RoleEndpoint>& roles,
                             const std::atomic<bool>* cancel) {
    (void)first_point;
    (void)base_url;
    (void)roles;
    (void)cancel;
  }
  virtual LoadOutcome Run(const recipe::Point& point, const std::string& base_url,
                          const std::string& requests_path, const std::atomic<bool>* cancel) = 0;
  // A point whose load is a search (point.load.search set): `servebench search` on
  // the warm server, one load run per probe. Blocks until the search ends.
  virtual SearchOutcome Search(const recipe::Point& point, const std::string& base_url,
                               const std::atomic<bool>* cancel) {
    (void)point;
    (void)base_url;
    (void)cancel;
    return {Status::FailedPrecondition("this load backend runs no search"), {}, {}};
  }
};

struct EvalOutcome {
  bool ran = false;
  bool passed = false;
  boost::json::object result;  // eval results + gate verdicts
  std::string error;
};

class EvalBackend {
 public:
  virtual ~EvalBackend() = default;
  virtual EvalOutcome Run(const recipe::Point& point, const std::string& base_url,
                          const std::string& out_dir, const std::atomic<bool>* cancel) = 0;
};

// Where records go: written atomically as files, then ingested into the store.
class RecordSink {
 public:
  virtual ~RecordSink() = default;
  virtual Status Put(const record::Record& record) = 0;
  // Of `point_ids`, those with an ok record already (for --resume).
  virtual StatusOr<std::set<std::string>> OkPointIds(const std::vector<std::string>& point_ids) = 0;
};

}  // namespace servebench::run
