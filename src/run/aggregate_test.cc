#include "run/aggregate.h"

#include <gtest/gtest.h>

namespace servebench::run {
namespace {

TEST(AggregateTest, EveryNumericKeyIsItsOwnMedianAndRawRunsAreKept) {
  boost::json::object a{{"output_throughput", 100.0},
                        {"completed", 10},
                        {"model_id", "m"},
                        {"p99_ttft_ms", 9.0},
                        {"ok", true}};
  boost::json::object b{{"output_throughput", 300.0},
                        {"completed", 10},
                        {"model_id", "m"},
                        {"p99_ttft_ms", 1.0},
                        {"ok", false}};
  boost::json::object c{{"output_throughput", 200.0},
                        {"completed", 9},
                        {"model_id", "m"},
                        {"p99_ttft_ms", 5.0},
                        {"ok", true}};
  auto out = AggregateMedian({a, b, c});
  EXPECT_DOUBLE_EQ(out.at("output_throughput").as_double(), 200.0);
  EXPECT_EQ(out.at("completed").as_int64(), 10);
  EXPECT_DOUBLE_EQ(out.at("p99_ttft_ms").as_double(), 5.0);
  EXPECT_TRUE(out.at("ok").as_bool()) << "booleans come from the first run";
  EXPECT_EQ(out.at("aggregation_method").as_string(), "median");
  EXPECT_EQ(out.at("aggregated_repetitions").as_int64(), 3);
  EXPECT_EQ(out.at("servebench").at("repetitions").as_array().size(), 3u);
}

TEST(AggregateTest, EvenCountTakesTheMeanOfTheMiddleTwo) {
  auto out = AggregateMedian({{{"x", 1.0}}, {{"x", 2.0}}, {{"x", 4.0}}, {{"x", 10.0}}});
  EXPECT_DOUBLE_EQ(out.at("x").as_double(), 3.0);
}

}  // namespace
}  // namespace servebench::run
