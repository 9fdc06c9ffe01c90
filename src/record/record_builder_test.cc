// What a point puts in its record, and what a load result and evals add.
#include "record/record_builder.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "recipe/recipe.h"

namespace servebench::record {
namespace {

recipe::Point SimPoint() {
  recipe::Point p;
  p.recipe = "quick";
  p.source_file = "a/quick.yaml";
  p.serve.engine = "sim";
  p.serve.model = "llama-3.1-8b";
  p.serve.hardware = "h200";
  p.serve.image = "sim:night-1";
  p.serve.tp = 2;
  p.load.isl = 1024;
  p.load.osl = 128;
  p.load.concurrency = 8;
  recipe::AssignIds(&p);
  return p;
}

TEST(RecordBuilderTest, RecordOfPointCarriesIdentityAndDeployment) {
  recipe::Point p = SimPoint();
  Record r = RecordOfPoint(p, "run-1");
  EXPECT_EQ(r.record_id, RecordId(p.point_id, "run-1"));
  EXPECT_EQ(r.point_id, p.point_id);
  EXPECT_EQ(r.series_id, SeriesId(p));
  EXPECT_EQ(r.deployment.num_gpus, 2);
  EXPECT_EQ(r.concurrency, 8);
  EXPECT_TRUE(r.simulated);
  ASSERT_TRUE(r.point.has_value());
  EXPECT_EQ(r.point->at("serve").at("tp").as_int64(), 2);
}

TEST(RecordBuilderTest, SeriesIgnoresTheBuildAndWhereTheRecipeLives) {
  recipe::Point a = SimPoint(), b = SimPoint();
  b.serve.image = "sim:night-2";
  b.source_file = "elsewhere/quick.yaml";
  b.serve.sim_options["build-slowdown"] = "1.5";
  recipe::AssignIds(&b);
  EXPECT_EQ(SeriesId(a), SeriesId(b));
  b.load.concurrency = 16;
  EXPECT_NE(SeriesId(a), SeriesId(b));
}

TEST(RecordBuilderTest, MultinodeDeploymentSplitsPrefillAndDecodeGpus) {
  recipe::ServeSpec s;
  s.multinode = true;
  s.disagg = true;
  s.prefill.num_workers = 1;
  s.prefill.tp = 4;
  s.decode.num_workers = 2;
  s.decode.tp = 1;
  s.decode.ep = 8;
  Deployment d = DeploymentOf(s);
  EXPECT_EQ(d.prefill_gpus, 4);
  EXPECT_EQ(d.decode_gpus, 16);
  EXPECT_EQ(d.num_gpus, 20);
  EXPECT_TRUE(d.disagg);
}

TEST(RecordBuilderTest, BlockedPointThatFailsIsBlockedNeverFailed) {
  EXPECT_EQ(DecideStatus(/*blocked=*/true, /*failed=*/true, false), RecordStatus::kBlocked);
  EXPECT_EQ(DecideStatus(true, false, /*invalid=*/true), RecordStatus::kBlocked);
  EXPECT_EQ(DecideStatus(false, true, false), RecordStatus::kFailed);
  EXPECT_EQ(DecideStatus(false, false, true), RecordStatus::kInvalid);
  EXPECT_EQ(DecideStatus(true, false, false), RecordStatus::kOk);
}

TEST(RecordBuilderTest, LoadResultGivesTheHeadlineWithTheRecordsGpus) {
  Record r = RecordOfPoint(SimPoint(), "run-1");
  SetLoadResult(&r, {{"completed", 10},
                     {"output_throughput", 400.0},
                     {"total_token_throughput", 1200.0},
                     {"median_tpot_ms", 20.0}});
  ASSERT_TRUE(r.headline.has_value());
  EXPECT_DOUBLE_EQ(*r.headline->tput_per_gpu, 600) << "1200 tok/s over tp 2";
  EXPECT_DOUBLE_EQ(*r.headline->median_intvty, 50);
  EXPECT_TRUE(r.repetitions.empty());
  ASSERT_TRUE(r.summary.has_value());
  EXPECT_EQ(r.summary->at("completed").as_int64(), 10);
}

TEST(RecordBuilderTest, AccuracyIsReadFromEveryEvalShape) {
  boost::json::object evals = boost::json::parse(R"({
    "gsm8k": {"results": {"gsm8k": {"exact_match,strict-match": 0.8}},
              "n-samples": {"gsm8k": {"effective": 50}}},
    "tasks": [{"task": "mmlu", "value": 0.7, "n": 100, "floor": 0.65,
               "items": {"q1": true, "q2": 0}}]
  })")
                                  .as_object();
  std::vector<TaskAccuracy> a = AccuracyFromEvals(evals);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].task, "gsm8k");
  EXPECT_DOUBLE_EQ(a[0].value, 0.8);
  EXPECT_EQ(a[0].n, 50);
  EXPECT_FALSE(a[0].floor.has_value());
  EXPECT_EQ(a[1].task, "mmlu");
  EXPECT_EQ(a[1].floor, 0.65);
  EXPECT_EQ(a[1].items, (std::map<std::string, bool>{{"q1", true}, {"q2", false}}));
}

}  // namespace
}  // namespace servebench::record
