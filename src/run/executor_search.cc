// Executor::RunSearchPoint (executor.h): a point whose scenario declares a search runs
// `servebench search` on the session's warm server, and keeps the records that command
// keeps (search/search_records.h), but with the recipe's point as their identity.
#include <fmt/format.h>

#include "common/time_format.h"
#include "record/record_builder.h"
#include "run/executor.h"
#include "search/search_records.h"

namespace servebench::run {

namespace fc = failure_class;

void Executor::RunSearchPoint(const recipe::Point& point, const recipe::ServeSession& session,
                              LiveEngine* engine, const std::atomic<bool>* cancel,
                              SweepReport* report) {
  *log_ << fmt::format("servebench: {}: search ({}) ...\n", Progress(session),
                       point.load.search.vary);
  log_->flush();
  recipe::Point target = point;  // what the client sends as "model", as RunPoint's
  if (target.serve.served_model_name.empty()) {
    target.serve.served_model_name = engine->served_model();
  }
  const std::string started_at = Rfc3339Now();
  SearchOutcome out = load_->Search(target, engine->base_url(), cancel);
  if (!out.status.ok()) {
    PointResult result;
    result.status = record::DecideStatus(point.blocked, /*failed=*/true, false);
    result.failure = {fc::kClientError, out.status.message()};
    result.engine_log_path = engine->log_path();
    Record(point, result, Observed(engine->engine_version(), Rfc3339Now()), report);
    return;
  }
  *log_ << search::SearchReport(out.settings, out.result);

  search::SearchIdentity id;
  id.recipe = point.recipe;
  id.engine = point.serve.engine;
  id.hardware = point.serve.hardware;
  id.precision = point.serve.precision;
  id.build = settings_.build;
  if (id.build.image.empty()) id.build.image = point.serve.image;
  id.run_id = settings_.run_id;
  id.host = host_;
  id.engine_version = engine->engine_version();
  id.recipe_point = point;
  search::SearchRecords records = search::BuildSearchRecords(out.settings, id, out.result);
  for (record::Record& r : records.probes) r.artifacts.engine_log = engine->log_path();
  record::Record& answer = records.answer;
  answer.artifacts.engine_log = engine->log_path();
  if (answer.provenance.started_at.empty()) answer.provenance.started_at = started_at;
  // An engine that died mid-search failed the search, whatever its probes said.
  if (!out.result.interrupted && !engine->IsAlive()) {
    Failure why = engine->Diagnose();
    answer.status = record::RecordStatus::kFailed;
    answer.failure_class = why.failure_class.empty() ? fc::kServerDiedDuringRun : why.failure_class;
    answer.failure_reason = "the engine died during the search: " + why.reason;
  }
  if (point.blocked) {
    answer.unblocked = answer.status == record::RecordStatus::kOk;
    if (answer.status == record::RecordStatus::kFailed)
      answer.status = record::RecordStatus::kBlocked;
  }
  auto put = [&](const record::Record& r) {
    if (sink_ == nullptr) return;
    if (Status st = sink_->Put(r); !st.ok()) {
      report->sink_errors.push_back(st.message());
      *log_ << "servebench: error: " << st.message() << "\n";
    }
  };
  for (const record::Record& r : records.probes) put(r);
  put(answer);

  PointReport pr;
  pr.point = point;
  pr.status = answer.status;
  pr.failure = {answer.failure_class, answer.failure_reason};
  pr.unblocked = answer.unblocked;
  pr.record = answer;
  std::string why = answer.failure_class.empty()
                        ? ""
                        : " (" + answer.failure_class.name() + ": " + answer.failure_reason + ")";
  *log_ << fmt::format("servebench: point {} search: {}, {} probe record(s){}\n",
                       point.point_id.substr(0, 12), record::RecordStatusName(answer.status),
                       records.probes.size(), why);
  report->points.push_back(std::move(pr));
}

}  // namespace servebench::run
