#include "record/record_doc.h"

#include <fmt/format.h>

#include "recipe/recipe.h"
#include "record/field_codec.h"
#include "record/record_builder.h"
#include "record/record_export.h"
#include "record/record_fields.h"
#include "record/record_json.h"

namespace servebench::record {
namespace {

using internal::FieldInfo;

// One table row per field.
class DocWriter {
 public:
  DocWriter(std::string prefix, std::string* out) : prefix_(std::move(prefix)), out_(out) {}
  template <class T>
  void operator()(std::string_view key, const T& member, const FieldInfo& info) {
    Row(key, internal::RuleOf(&member, info), info);
  }
  template <class M, class Fn>
  void Object(std::string_view key, const M& member, const FieldInfo& info, Fn visit) {
    Row(key, info.need == internal::Need::kRequired ? "an object" : "an object or null", info);
    DocWriter inner(prefix_ + std::string(key) + ".", out_);
    visit(inner, member);
  }

 private:
  void Row(std::string_view key, const std::string& rule, const FieldInfo& info) {
    *out_ += fmt::format("| `{}{}` | {} | {} | {} | {} |\n", prefix_, key, rule,
                         info.need == internal::Need::kRequired ? "yes" : "", info.since, info.doc);
  }
  std::string prefix_;
  std::string* out_;
};

recipe::Point ExamplePoint() {
  recipe::Point p;
  p.recipe = "quickstart-llama8b-sim";
  p.source_file = "examples/quickstart.yaml";
  p.source_format = "native";
  p.runner = "h200";
  p.serve.engine = "sim";
  p.serve.model = "llama-3.1-8b";
  p.serve.precision = "bf16";
  p.serve.hardware = "h200";
  p.serve.tp = 2;
  p.load.isl = 1024;
  p.load.osl = 128;
  p.load.concurrency = 8;
  p.load.num_prompts = 80;
  recipe::AssignIds(&p);
  return p;
}

// The headline keys of a vllm-compatible result, as metrics/ writes them.
boost::json::object ExampleSummary() {
  return {{"completed", 80},
          {"failed", 0},
          {"duration", 10.24},
          {"request_throughput", 7.8125},
          {"output_throughput", 1000.0},
          {"total_token_throughput", 9000.0},
          {"mean_ttft_ms", 61.2},
          {"median_ttft_ms", 58.4},
          {"p99_ttft_ms", 120.7},
          {"mean_tpot_ms", 8.1},
          {"median_tpot_ms", 8.0},
          {"p99_tpot_ms", 9.6},
          {"mean_itl_ms", 8.0},
          {"median_itl_ms", 7.9},
          {"p99_itl_ms", 12.5},
          {"median_e2el_ms", 1074.4},
          {"p99_e2el_ms", 1310.2},
          // Two GPUs at 450 W for 10.24 s: 9216 J over 10240 output tokens (docs/power.md).
          {"servebench",
           {{"power",
             {{"power_valid", 1},
              {"avg_power_w", 450.0},
              {"total_gpu_energy_j", 9216.0},
              {"joules_per_output_token", 0.9},
              {"output_tokens_per_joule", 1.1111}}}}}};
}

}  // namespace

std::string FieldTableMarkdown() {
  std::string out =
      "| Field | Value | Required | Since | Meaning |\n|---|---|---|---|---|\n"
      "| `schema_version` | an integer 1.." +
      std::to_string(kSchemaVersion) +
      " | yes | 1 | the layout of this JSON; readers migrate older ones |\n";
  Record r;
  DocWriter doc("", &out);
  internal::VisitRecord(doc, r);
  out +=
      "\nThe `headline` object (and each of `repetitions`): `completed` and `failed` "
      "(requests), then\n\n| Metric | Unit | Definition |\n|---|---|---|\n";
  for (const metrics::HeadlineMetric& m : metrics::HeadlineMetrics()) {
    out += fmt::format("| `{}` | {} | {} |\n", m.name, m.unit, m.meaning);
  }
  return out;
}

Record ExampleRecord() {
  Record r = RecordOfPoint(ExamplePoint(), "20261129T203000Z-node-3-12345");
  r.status = RecordStatus::kOk;
  r.build = {"sim:nightly", "c0ffee1", "2026-11-29"};
  r.provenance = {"0.1.0",
                  "abc123def456",
                  "node-3",
                  "servebench-sim 0.1.0",
                  "2026-11-29T20:30:00Z",
                  "2026-11-29T20:30:12Z"};
  SetLoadResult(&r, ExampleSummary());
  SetEvals(&r,
           {{"tasks", boost::json::array{boost::json::object{
                          {"task", "gsm8k"}, {"accuracy", 0.86}, {"n", 1319}, {"floor", 0.85}}}}});
  r.artifacts = {"out/logs/5d1c0a2b3e4f-0.log",
                 "out/requests/9a8b7c6d5e4f3a2b.jsonl",
                 "out/requests/9a8b7c6d5e4f3a2b.gpu_metrics.csv",
                 "",
                 "",
                 "out/requests/9a8b7c6d5e4f3a2b.server_metrics.jsonl"};
  return r;
}

std::string ExampleRecordJson() { return IndentedJson(ToJson(ExampleRecord())); }

}  // namespace servebench::record
