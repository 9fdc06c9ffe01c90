// The simulator against every published measurement of data/sim/published_points.yaml
// (docs/simulator.md, "Fidelity"): median |error| at most 15 % on median TPOT and on
// output tokens/s per GPU, at most 30 % on median TTFT.
#include "sim/fidelity.h"

#include <gtest/gtest.h>

namespace servebench::sim {
namespace {

TEST(FidelityTest, MedianErrorsOverThePublishedPointsAreWithinTheTargets) {
  auto catalogue = Catalogue::BuiltIn();
  ASSERT_TRUE(catalogue.ok()) << catalogue.status().ToString();
  auto points = BuiltInPublishedPoints();
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  ASSERT_GE(points->size(), 11u);
  auto report = EvaluateFidelity(*catalogue, *points);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  std::printf("%s", FidelityTable(*report).c_str());
  EXPECT_LE(report->median_abs_tpot_error, 0.15);
  EXPECT_LE(report->median_abs_throughput_error, 0.15);
  EXPECT_LE(report->median_abs_ttft_error, 0.30);
}

TEST(FidelityTest, APointNamesWhatIsMissing) {
  auto points = ParsePublishedPoints("points:\n  - id: x\n    model: m\n");
  ASSERT_FALSE(points.ok());
  EXPECT_NE(points.status().message().find("point x: missing 'source'"), std::string::npos)
      << points.status().message();
}

}  // namespace
}  // namespace servebench::sim
