#include "record/labels.h"

#include <gtest/gtest.h>

#include "recipe/recipe.h"
#include "record/record_builder.h"

namespace servebench::record {
namespace {

recipe::Point SimPoint() {
  recipe::Point p;
  p.recipe = "quick";
  p.serve.engine = "sim";
  p.serve.model = "llama-3.1-8b";
  p.serve.hardware = "h200";
  p.serve.tp = 2;
  p.load.isl = 1024;
  p.load.osl = 128;
  p.load.concurrency = 8;
  recipe::AssignIds(&p);
  return p;
}

TEST(LabelsTest, ConfigLabelNamesParallelismAndSpeculativeDecoding) {
  Deployment d;
  d.tp = 8;
  d.ep = 8;
  d.dp_attn = true;
  EXPECT_EQ(ConfigLabel(d), "tp8 ep8 dpa");
  d.pp = 2;
  EXPECT_EQ(ConfigLabel(d), "tp8 pp2 ep8 dpa");
  Deployment s;
  s.spec_method = recipe::SpecMethod::kEagle3;
  s.num_speculative_tokens = 3;
  EXPECT_EQ(ConfigLabel(s), "tp1 eagle3 n3");
  s.num_speculative_tokens = 0;
  EXPECT_EQ(ConfigLabel(s), "tp1 eagle3") << "no draft length is not 'n0'";
}

TEST(LabelsTest, ConfigLabelNamesDisaggregation) {
  Deployment multinode;
  multinode.disagg = true;
  multinode.prefill_gpus = 8;
  multinode.decode_gpus = 16;
  multinode.num_gpus = 24;
  EXPECT_EQ(ConfigLabel(multinode), "disagg P8 D16");
  multinode.topology = "1P×TP8 2D×TP8";
  EXPECT_EQ(ConfigLabel(multinode), "1P×TP8 2D×TP8 P8 D16") << "the session's roles, then P and D";
  Deployment one_node;
  one_node.tp = 4;
  one_node.disagg = true;
  EXPECT_EQ(ConfigLabel(one_node), "tp4 disagg");
}

TEST(LabelsTest, SeriesLabelIsTheCurveTheConfigurationAndTheConcurrency) {
  Record r = RecordOfPoint(SimPoint(), "run-1");
  EXPECT_EQ(CurveLabel(r), "quick llama-3.1-8b h200 sim 1024/128");
  EXPECT_EQ(SeriesLabel(r), "quick llama-3.1-8b h200 sim 1024/128 tp2 c8");
  EXPECT_EQ(WorkloadLabel(r), "quick · llama-3.1-8b · h200 · 1024/128");
}

TEST(LabelsTest, TwoSessionsOfOneWorkloadGetTwoSeriesLabels) {
  recipe::Point a = SimPoint(), b = SimPoint();
  b.serve.spec.method = recipe::SpecMethod::kEagle3;
  b.serve.spec.num_speculative_tokens = 3;
  recipe::AssignIds(&b);
  EXPECT_NE(SeriesLabel(RecordOfPoint(a, "r")), SeriesLabel(RecordOfPoint(b, "r")));
}

TEST(LabelsTest, SimTimeScaleComesFromThePointAndOnlyForSimulatedRecords) {
  recipe::Point p = SimPoint();
  EXPECT_EQ(SimTimeScale(RecordOfPoint(p, "r")), std::nullopt);
  p.serve.sim_options["time-scale"] = "0.1";
  recipe::AssignIds(&p);
  EXPECT_EQ(SimTimeScale(RecordOfPoint(p, "r")), 0.1);
  p.serve.sim_options["time-scale"] = "1";
  EXPECT_EQ(SimTimeScale(RecordOfPoint(p, "r")), std::nullopt);
  recipe::Point measured = SimPoint();
  measured.serve.engine = "vllm";
  measured.serve.sim_options["time-scale"] = "0.1";
  EXPECT_EQ(SimTimeScale(RecordOfPoint(measured, "r")), std::nullopt);
}

}  // namespace
}  // namespace servebench::record
