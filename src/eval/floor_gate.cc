// The floor gate and the thresholds file (InferenceX utils/evals/thresholds.yaml
// semantics, validate_scores.py rules): every exact_match,<filter> metric (stderr
// excluded) must reach the floor; a run where no metric was checked fails.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>

#include "common/atomic_file.h"
#include "eval/gates.h"

namespace servebench::eval {
namespace {

namespace json = boost::json;

StatusOr<std::map<std::string, double>> ParseTaskFloors(const YAML::Node& node,
                                                        std::string_view where) {
  std::map<std::string, double> floors;
  if (!node.IsMap()) {
    return Status::InvalidArgument(fmt::format("{}: expected a map of task: floor", where));
  }
  for (const auto& entry : node) {
    std::string task = entry.first.as<std::string>();
    double floor = 0;
    try {
      floor = entry.second.as<double>();
    } catch (const YAML::Exception&) {
      return Status::InvalidArgument(
          fmt::format("{}.{}: '{}' is not a number", where, task, entry.second.Scalar()));
    }
    if (!(floor >= 0 && floor <= 1)) {
      return Status::InvalidArgument(
          fmt::format("{}.{} = {}: a floor must be in [0, 1]", where, task, floor));
    }
    floors[task] = floor;
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
  try {
    YAML::Node root = YAML::Load(std::string(yaml_text));
    if (!root.IsMap()) {
      return Status::InvalidArgument(
          fmt::format("{}: expected a map with 'default' and 'models'", source_name));
    }
    for (const auto& entry : root) {
      std::string key = entry.first.as<std::string>();
      if (key == "default") {
        SB_ASSIGN_OR_RETURN(thresholds.defaults,
                            ParseTaskFloors(entry.second, fmt::format("{}: default", source_name)));
      } else if (key == "models") {
        if (!entry.second.IsMap()) {
          return Status::InvalidArgument(fmt::format("{}: models must be a map", source_name));
        }
        for (const auto& model : entry.second) {
          std::string prefix = model.first.as<std::string>();
          SB_ASSIGN_OR_RETURN(
              thresholds.models[prefix],
              ParseTaskFloors(model.second, fmt::format("{}: models.{}", source_name, prefix)));
        }
      } else {
        return Status::InvalidArgument(
            fmt::format("{}: unknown key '{}' (allowed: default, models)", source_name, key));
      }
    }
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(
        fmt::format("{}:{}:{}: {}", source_name, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
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
