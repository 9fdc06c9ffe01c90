// The floor gate and the thresholds file (InferenceX utils/evals/thresholds.yaml
// semantics, validate_scores.py rules): every exact_match,<filter> metric (stderr
// excluded) must reach the floor; a run where no metric was checked fails.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "common/atomic_file.h"
#include "config/config_file.h"
#include "config/field_reader.h"
#include "eval/gates.h"

namespace servebench::eval {
namespace {

namespace json = boost::json;

using config::LoadContext;
using config::YNode;

// `task: floor` pairs, each floor a number in [0, 1].
std::map<std::string, double> ReadTaskFloors(const LoadContext& ctx, const YNode& node,
                                             const std::string& path) {
  std::map<std::string, double> floors;
  if (!node.IsMap()) {
    ctx.Error(node, path, "is " + node.TypeName() + "; expected a map of task: floor");
    return floors;
  }
  for (const auto& [task, value] : node.entries) {
    const std::string where = config::JoinPath(path, task.scalar);
    auto floor = value.AsDouble();
    if (!floor) {
      ctx.Error(
          value, where,
          fmt::format("is '{}' ({}); expected a number in [0, 1]", value.scalar, value.TypeName()));
    } else if (!(*floor >= 0 && *floor <= 1)) {
      ctx.Error(value, where, fmt::format("is {}; a floor must be in [0, 1]", *floor));
    } else if (!floors.emplace(task.scalar, *floor).second) {
      ctx.Error(task, where, "duplicate task; each task may appear once");
    }
  }
  return floors;
}

}  // namespace

std::string_view VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kPass:
      return "PASS";
    case Verdict::kWarn:
      return "WARN";
    case Verdict::kFail:
      return "FAIL";
    case Verdict::kInvalid:
      return "INVALID";
  }
  return "INVALID";
}

StatusOr<Thresholds> ParseThresholds(std::string_view yaml_text, std::string_view source_name) {
  Thresholds thresholds;
  SB_RETURN_IF_ERROR(config::ReadConfigText(
      yaml_text, std::string(source_name), [&](const LoadContext& ctx, const YNode& root) {
        config::FieldReader file(ctx, root, "", {"default", "models"}, "top-level key");
        if (const YNode* defaults = file.Get("default")) {
          thresholds.defaults = ReadTaskFloors(ctx, *defaults, "default");
        }
        const YNode* models = file.Get("models");
        if (models == nullptr) return;
        if (!models->IsMap()) return file.ErrorAt("models", "is not a map of model prefix: floors");
        for (const auto& [prefix, floors] : models->entries) {
          thresholds.models[prefix.scalar] =
              ReadTaskFloors(ctx, floors, config::JoinPath("models", prefix.scalar));
        }
      }));
  return thresholds;
}

StatusOr<Thresholds> LoadThresholds(const std::string& path) {
  SB_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return ParseThresholds(text, path);
}

std::string ModelPrefixOf(std::string_view model) {
  if (size_t slash = model.rfind('/'); slash != std::string_view::npos) {
    model.remove_prefix(slash + 1);
  }
  model = model.substr(0, model.find('-'));
  std::string prefix(model);
  for (char& c : prefix) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return prefix;
}

FloorReport FloorGate(const json::object& results_json, const Thresholds& thresholds,
                      std::string_view model_prefix, std::string_view task, double min_score) {
  FloorReport report;
  report.task = std::string(task);
  report.model_prefix = std::string(model_prefix);
  report.floor = min_score;
  report.floor_source = "min_score";
  if (auto model = thresholds.models.find(report.model_prefix); model != thresholds.models.end()) {
    if (auto it = model->second.find(report.task); it != model->second.end()) {
      report.floor = it->second;
      report.floor_source = fmt::format("models.{}.{}", model_prefix, task);
    }
  }
  if (report.floor_source == "min_score") {
    if (auto it = thresholds.defaults.find(report.task); it != thresholds.defaults.end()) {
      report.floor = it->second;
      report.floor_source = fmt::format("default.{}", task);
    }
  }

  const json::object* task_results = nullptr;
  if (const json::value* results = results_json.if_contains("results");
      results != nullptr && results->is_object()) {
    if (const json::value* t = results->as_object().if_contains(task); t && t->is_object()) {
      task_results = &t->as_object();
    }
  }
  if (task_results != nullptr) {
    for (const auto& [key, value] : *task_results) {
      std::string_view name = key;
      if (!name.starts_with("exact_match,")) continue;  // "exact_match_stderr,..." excluded
      FloorCheck check{std::string(name), 0, false};
      if (value.is_number()) {
        check.value = value.to_number<double>();
        check.passed = check.value >= report.floor;
      }
      if (!check.passed) {
        report.reasons.push_back(fmt::format("{} = {:.4f} is below the floor {:.2f} ({})",
                                             check.metric, check.value, report.floor,
                                             report.floor_source));
      }
      report.checks.push_back(std::move(check));
    }
  }
  if (report.checks.empty()) {
    report.reasons.push_back(fmt::format(
        "no exact_match,<filter> metric for task '{}' was found, so nothing was checked", task));
  }
  // servebench's own fields, when present: failed or missing samples fail the gate
  // (InferenceX: "completed every expected concurrency and failed none").
  if (const json::value* sb = results_json.if_contains("servebench"); sb && sb->is_object()) {
    const json::object& o = sb->as_object();
    if (const json::value* failed = o.if_contains("n_failed");
        failed && failed->is_number() && failed->to_number<double>() > 0) {
      report.reasons.push_back(fmt::format("{} samples failed (server errors after retries)",
                                           failed->to_number<int64_t>()));
    }
    if (const json::value* interrupted = o.if_contains("interrupted");
        interrupted && interrupted->is_bool() && interrupted->as_bool()) {
      report.reasons.push_back("the run was interrupted before every question was scored");
    }
  }
  report.verdict = report.reasons.empty() ? Verdict::kPass : Verdict::kFail;
  return report;
}

json::object ToJson(const FloorReport& report) {
  json::object o;
  o["gate"] = "floor";
  o["verdict"] = VerdictName(report.verdict);
  o["task"] = report.task;
  o["model_prefix"] = report.model_prefix;
  o["floor"] = report.floor;
  o["floor_source"] = report.floor_source;
  json::array checks;
  for (const FloorCheck& check : report.checks) {
    checks.push_back(
        json::object{{"metric", check.metric}, {"value", check.value}, {"passed", check.passed}});
  }
  o["checks"] = std::move(checks);
  json::array reasons;
  for (const std::string& reason : report.reasons) reasons.push_back(json::string(reason));
  o["reasons"] = std::move(reasons);
  return o;
}

}  // namespace servebench::eval
