#include "record/record_builder.h"

#include <boost/json.hpp>
#include <optional>

#include "common/sha256.h"
#include "recipe/recipe.h"
#include "recipe/topology.h"

namespace servebench::record {
namespace {

namespace json = boost::json;

const json::object* Obj(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_object() ? &v->get_object() : nullptr;
}

std::optional<double> Num(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr || !v->is_number()) return std::nullopt;
  return v->to_number<double>();
}

std::string Str(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : "";
}

metrics::ReplicaShape ShapeOf(const recipe::WorkerSpec& w) {
  return {w.tp, w.pp, w.pcp_size, w.ep};
}

// One task of evals.tasks.
std::optional<TaskAccuracy> TaskOf(const json::object& t, std::string name) {
  TaskAccuracy a;
  a.task = name.empty() ? Str(t, "task") : std::move(name);
  std::optional<double> value = Num(t, "accuracy");
  if (!value) value = Num(t, "value");
  if (a.task.empty() || !value) return std::nullopt;
  a.value = *value;
  a.n = static_cast<int64_t>(Num(t, "n").value_or(0));
  if (std::optional<double> floor = Num(t, "floor"); floor && *floor >= 0) a.floor = *floor;
  if (const json::object* items = Obj(t, "items")) {
    for (const auto& [id, v] : *items) {
      if (v.is_bool()) {
        a.items[std::string(id)] = v.get_bool();
      } else if (v.is_int64()) {
        a.items[std::string(id)] = v.get_int64() != 0;
      }
    }
  }
  return a;
}

// lm-eval's results JSON (docs/eval.md): results.<task>, n-samples.<task>.effective.
// No per-item results there: the verdict uses the unpaired test.
void AddLmEval(const json::object& doc, std::vector<TaskAccuracy>& out) {
  const json::object* results = Obj(doc, "results");
  if (results == nullptr) return;
  const json::object* n_samples = Obj(doc, "n-samples");
  for (const auto& [task, v] : *results) {
    if (!v.is_object()) continue;
    std::optional<double> value;
    for (const char* key :
         {"exact_match,flexible-extract", "exact_match,strict-match", "acc,none"}) {
      if (!value) value = Num(v.get_object(), key);
    }
    if (!value) continue;
    TaskAccuracy a;
    a.task = std::string(task);
    a.value = *value;
    if (n_samples != nullptr) {
      if (const json::object* n = Obj(*n_samples, task)) {
        a.n = static_cast<int64_t>(Num(*n, "effective").value_or(0));
      }
    }
    out.push_back(std::move(a));
  }
}

}  // namespace

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

metrics::GpuTopology GpuTopologyOf(const recipe::ServeSpec& s) {
  if (recipe::HasTopology(s)) {
    // The session's own count (recipe/topology.h: max(tp × pp × pcp, ep) per replica,
    // whole nodes where the launcher counts them), as InferenceX's result files do.
    if (auto t = recipe::SessionTopology(s); t.ok()) {
      metrics::GpuTopology g;
      g.prefill_gpus = t->prefill_gpus;
      g.decode_gpus = t->decode_gpus;
      return g;
    }
  }
  if (s.multinode) {
    return metrics::MultinodeTopology(s.prefill.num_workers, ShapeOf(s.prefill),
                                      s.decode.num_workers, ShapeOf(s.decode));
  }
  return metrics::SingleNodeTopology({s.tp, s.pp, s.pcp_size, s.ep});
}

Deployment DeploymentOf(const recipe::ServeSpec& s) {
  Deployment d;
  d.tp = s.tp;
  d.pp = s.pp;
  d.pcp_size = s.pcp_size;
  d.ep = s.ep;
  d.dp_attn = s.dp_attn;
  d.spec_method = s.spec.method;
  d.num_speculative_tokens = s.spec.num_speculative_tokens;
  d.disagg = s.disagg;
  metrics::GpuTopology g = GpuTopologyOf(s);
  d.num_gpus = g.total();
  d.prefill_gpus = g.prefill_gpus;
  d.decode_gpus = g.decode_gpus;
  if (recipe::HasTopology(s)) {
    if (auto t = recipe::SessionTopology(s); t.ok()) d.topology = recipe::DescribeTopology(*t);
  }
  return d;
}

RecordStatus DecideStatus(bool blocked, bool failed, bool invalid) {
  if (failed) return blocked ? RecordStatus::kBlocked : RecordStatus::kFailed;
  if (invalid) return blocked ? RecordStatus::kBlocked : RecordStatus::kInvalid;
  return RecordStatus::kOk;
}

Record RecordOfPoint(const recipe::Point& point, const std::string& run_id) {
  Record r;
  r.record_id = RecordId(point.point_id, run_id);
  r.run_id = run_id;
  r.point_id = point.point_id;
  r.session_id = point.session_id;
  r.series_id = SeriesId(point);
  r.recipe = point.recipe;
  r.source_file = point.source_file;
  r.source_format = point.source_format;
  r.engine = point.serve.engine;
  r.image = point.serve.image;
  r.model = point.serve.model;
  r.precision = point.serve.precision;
  r.hardware = point.serve.hardware;
  r.runner = point.runner;
  r.isl = point.load.isl;
  r.osl = point.load.osl;
  r.concurrency = point.load.concurrency;
  r.deployment = DeploymentOf(point.serve);
  // A sim record says so in its identity: its numbers are simulated-time numbers.
  r.simulated = point.serve.engine == "sim";
  // A rehearsal keeps the engine it stands in for, and every sim record the scale its
  // clock ran at (its numbers are simulated time whatever it is; docs/metrics.md).
  r.stands_in_for = point.serve.stands_in_for;
  r.time_scale = recipe::SimTimeScale(point.serve);
  r.blocked = point.blocked;
  r.blocked_reason = point.blocked_reason;
  r.blocked_link = point.blocked_link;
  boost::system::error_code ec;
  // The point as it may be written: env names kept, secret values never.
  json::value point_json = json::parse(recipe::PointToJson(recipe::WithSecretsRedacted(point)), ec);
  if (!ec && point_json.is_object()) r.point = std::move(point_json.get_object());
  return r;
}

void SetLoadResult(Record* record, json::object summary) {
  metrics::GpuTopology gpus = record->deployment.gpus();
  record->headline = metrics::HeadlineFromResult(summary, gpus);
  record->repetitions.clear();
  if (const json::object* sb = Obj(summary, "servebench")) {
    // run/ keeps every repetition's whole result under servebench.repetitions
    // (raw_runs in records written by other tools).
    const json::value* raw = sb->if_contains("repetitions");
    if (raw == nullptr) raw = sb->if_contains("raw_runs");
    if (raw != nullptr && raw->is_array()) {
      for (const json::value& run : raw->get_array()) {
        if (run.is_object()) {
          record->repetitions.push_back(metrics::HeadlineFromResult(run.get_object(), gpus));
        }
      }
    }
  }
  record->summary = std::move(summary);
}

void SetEvals(Record* record, json::object evals) {
  record->accuracy = AccuracyFromEvals(evals);
  record->evals = std::move(evals);
}

std::vector<TaskAccuracy> AccuracyFromEvals(const json::object& evals) {
  std::vector<TaskAccuracy> out;
  AddLmEval(evals, out);
  for (const auto& [key, v] : evals) {
    if (v.is_object() && key != "tasks") AddLmEval(v.get_object(), out);
  }
  const json::value* tasks = evals.if_contains("tasks");
  if (tasks == nullptr) return out;
  if (tasks->is_array()) {
    for (const json::value& t : tasks->get_array()) {
      if (!t.is_object()) continue;
      if (auto a = TaskOf(t.get_object(), "")) out.push_back(std::move(*a));
    }
  } else if (tasks->is_object()) {
    for (const auto& [name, t] : tasks->get_object()) {
      if (!t.is_object()) continue;
      if (auto a = TaskOf(t.get_object(), std::string(name))) out.push_back(std::move(*a));
    }
  }
  return out;
}

}  // namespace servebench::record
