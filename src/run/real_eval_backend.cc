#include "common/atomic_file.h"
#include "eval/dataset.h"
#include "eval/eval.h"
#include "eval/gates.h"
#include "eval/synthetic.h"
#include "run/real_backends.h"

namespace servebench::run {

namespace {
// Synthetic problems for sim engines: enough to see a 10-point drop, few enough to
// keep a sweep short.
constexpr size_t kSyntheticQuestions = 200;
constexpr size_t kSyntheticFewshot = 50;
}  // namespace

Status CheckEvalInputs(const recipe::Point& point, const RunSettings& settings) {
  if (!point.run_eval) return Status::Ok();
  if (settings.eval_data_path.empty() && point.serve.engine != "sim") {
    return Status::InvalidArgument(
        "gsm8k needs its data: pass --eval-data TEST.jsonl --eval-fewshot TRAIN.jsonl "
        "(docs/eval.md says where to get gsm8k)");
  }
  if (!settings.eval_thresholds_path.empty()) {
    SB_RETURN_IF_ERROR(eval::LoadThresholds(settings.eval_thresholds_path).status());
  }
  return Status::Ok();
}

EvalOutcome NativeEvalBackend::Run(const recipe::Point& point, const std::string& base_url,
                                   const std::string& out_dir, const std::atomic<bool>* cancel) {
  EvalOutcome out;
  if (Status inputs = CheckEvalInputs(point, settings_); !inputs.ok()) {
    out.error = inputs.message();
    return out;
  }
  eval::EvalSettings es;
  es.base_url = base_url;
  es.model =
      point.serve.served_model_name.empty() ? point.serve.model : point.serve.served_model_name;
  es.output_dir = out_dir;
  es.data_path = settings_.eval_data_path;
  es.fewshot_data_path = settings_.eval_fewshot_path;
  // The per-request deadline of the run fits the eval's requests too.
  es.timeout_ms = static_cast<uint64_t>(settings_.request_timeout_s * 1000);
  if (es.data_path.empty()) {  // a sim engine (CheckEvalInputs)
    es.data_path = out_dir + "/synthetic-test.jsonl";
    es.fewshot_data_path = out_dir + "/synthetic-train.jsonl";
    Status written = WriteFileAtomically(
        es.data_path, eval::GsmJsonl(eval::MakeSyntheticGsm(1, kSyntheticQuestions)));
    if (written.ok()) {
      written = WriteFileAtomically(es.fewshot_data_path,
                                    eval::GsmJsonl(eval::MakeSyntheticGsm(2, kSyntheticFewshot)));
    }
    if (!written.ok()) {
      out.error = written.message();
      return out;
    }
  }
  auto result = eval::RunEval(es, cancel);
  if (!result.ok()) {
    out.error = result.status().message();
    return out;
  }
  (void)eval::WriteEvalOutputs(*result, out_dir);
  boost::json::object results = eval::ToResultsJson(*result);
  eval::Thresholds thresholds;
  if (!settings_.eval_thresholds_path.empty()) {
    auto loaded = eval::LoadThresholds(settings_.eval_thresholds_path);
    if (!loaded.ok()) {
      out.error = loaded.status().message();
      return out;
    }
    thresholds = *loaded;
  }
  std::string prefix =
      point.model_prefix.empty() ? eval::ModelPrefixOf(point.serve.model) : point.model_prefix;
  eval::FloorReport floor = eval::FloorGate(results, thresholds, prefix, "gsm8k");
  out.ran = true;
  out.passed = floor.verdict == eval::Verdict::kPass || floor.verdict == eval::Verdict::kWarn;
  for (const auto& reason : floor.reasons) out.error += (out.error.empty() ? "" : "; ") + reason;
  out.result["gsm8k"] = results;
  out.result["floor_gate"] = eval::ToJson(floor);
  out.result["output_dir"] = out_dir;
  return out;
}

}  // namespace servebench::run
