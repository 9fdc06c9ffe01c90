#include "run/record.h"

#include <ctime>

#include "common/sha256.h"
#include "common/version.h"
#include "recipe/recipe.h"

namespace servebench::run {

std::string_view PointStatusName(PointStatus status) {
  switch (status) {
    case PointStatus::kOk:
      return "ok";
    case PointStatus::kFailed:
      return "failed";
    case PointStatus::kInvalid:
      return "invalid";
    case PointStatus::kBlocked:
      return "blocked";
    case PointStatus::kSkipped:
      return "skipped";
  }
  return "failed";
}

PointStatus DecideStatus(const recipe::Point& point, bool failed, bool invalid) {
  if (failed) return point.blocked ? PointStatus::kBlocked : PointStatus::kFailed;
  if (invalid) return point.blocked ? PointStatus::kBlocked : PointStatus::kInvalid;
  return PointStatus::kOk;
}

std::string RecordId(const std::string& point_id, const std::string& run_id) {
  return Sha256Hex(point_id + "/" + run_id);
}

std::string SeriesId(const recipe::Point& point) {
  recipe::Point identity = point;
  // The build under test is not part of the series: tonight's image is compared
  // with last night's.
  identity.serve.image.clear();
  // The sim's stand-in for a slower or faster engine build (`nightly
  // --sim-build-slowdown`) is the build too.
  identity.serve.sim_options.erase("build-slowdown");
  identity.point_id.clear();
  identity.session_id.clear();
  // Where the recipe file lives is not what was measured (point_id ignores it too).
  identity.source_file.clear();
  // How the point is shown is not what was measured.
  identity.env_not_secret.clear();
  return Sha256Hex(recipe::PointToJson(identity));
}

int NumGpus(const recipe::ServeSpec& serve) {
  return std::max(1, serve.tp) * std::max(1, serve.pp) * std::max(1, serve.pcp_size);
}

boost::json::object BuildRecord(const recipe::Point& point, const RunSettings& settings,
                                const Provenance& provenance, const PointResult& result) {
  namespace json = boost::json;
  json::object r;
  r["schema_version"] = 1;
  r["record_id"] = RecordId(point.point_id, settings.run_id);
  r["run_id"] = settings.run_id;
  r["point_id"] = point.point_id;
  r["session_id"] = point.session_id;
  r["series_id"] = SeriesId(point);
  r["recipe"] = point.recipe;
  r["source_file"] = point.source_file;
  r["source_format"] = point.source_format;
  r["engine"] = point.serve.engine;
  r["image"] = point.serve.image;
  r["model"] = point.serve.model;
  r["precision"] = point.serve.precision;
  r["hardware"] = point.serve.hardware;
  r["runner"] = point.runner;
  r["isl"] = point.load.isl;
  r["osl"] = point.load.osl;
  r["concurrency"] = point.load.concurrency;
  r["tp"] = point.serve.tp;
  r["ep"] = point.serve.ep;
  r["dp_attn"] = point.serve.dp_attn;
  r["spec_method"] = recipe::SpecMethodName(point.serve.spec.method);
  r["num_gpus"] = NumGpus(point.serve);
  // A sim record says so in its identity (issue 3: "every record it produces is
  // labelled sim").
  r["simulated"] = point.serve.engine == "sim";
  r["status"] = PointStatusName(result.status);
  r["failure_class"] = result.failure.failure_class;
  r["failure_reason"] = result.failure.reason;
  r["interrupted"] = result.interrupted;
  r["blocked"] = point.blocked;
  r["blocked_reason"] = point.blocked_reason;
  r["blocked_link"] = point.blocked_link;
  r["unblocked"] = point.blocked && result.status == PointStatus::kOk;
  json::object build;
  build["image"] = settings.build.image.empty() ? point.serve.image : settings.build.image;
  build["commit"] = settings.build.commit;
  build["date"] = settings.build.date;
  r["build"] = std::move(build);
  json::object prov;
  prov["servebench_version"] = kVersion;
  prov["git_revision"] = kGitRevision;
  prov["host"] = provenance.host;
  prov["engine_version"] = provenance.engine_version;
  prov["started_at"] = provenance.started_at;
  prov["ended_at"] = provenance.ended_at;
  r["provenance"] = std::move(prov);
  boost::system::error_code ec;
  // The point as it may be written: env names kept, secret values never.
  json::value point_json = json::parse(recipe::PointToJson(recipe::WithSecretsRedacted(point)), ec);
  r["point"] = ec ? json::value(nullptr) : point_json;
  if (result.load != nullptr && result.load->completed) {
    r["summary"] = result.load->summary;
    if (!result.load->invalid_reasons.empty()) {
      json::array reasons;
      for (const auto& reason : result.load->invalid_reasons) reasons.emplace_back(reason);
      r["invalid_reasons"] = std::move(reasons);
    }
  } else {
    r["summary"] = nullptr;
  }
  if (result.eval != nullptr && result.eval->ran) {
    r["evals"] = result.eval->result;
  } else {
    r["evals"] = nullptr;
  }
  json::object artifacts;
  artifacts["engine_log"] = result.engine_log_path;
  artifacts["requests"] = result.load != nullptr ? result.load->requests_path : "";
  r["artifacts"] = std::move(artifacts);
  return r;
}

}  // namespace servebench::run
