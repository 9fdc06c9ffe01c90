#include "client/length_mixture.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace servebench::client {
namespace {

TEST(LengthMixtureTest, ParsesAiperfSemicolonFormatWithAndWithoutStddevs) {
  auto m = ParseSequenceDistribution("64|10,32|8:70;256,128:20;1024|100.5,512:10");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_EQ(m->size(), 3u);
  EXPECT_EQ((*m)[0].isl, 64);
  EXPECT_EQ((*m)[0].isl_stddev, 10);
  EXPECT_EQ((*m)[0].osl, 32);
  EXPECT_EQ((*m)[0].osl_stddev, 8);
  EXPECT_EQ((*m)[0].weight, 70);
  EXPECT_EQ((*m)[1].isl_stddev, 0);
  EXPECT_EQ((*m)[2].isl_stddev, 100.5);
  EXPECT_EQ((*m)[2].weight, 10);
}

TEST(LengthMixtureTest, MalformedComponentsAreNamedByPositionAndField) {
  auto bad = [](const std::string& text) {
    auto m = ParseSequenceDistribution(text);
    return m.ok() ? std::string("accepted") : m.status().message();
  };
  EXPECT_NE(bad("64,32:1;128:1").find("component 2 '128:1': needs ISL,OSL"), std::string::npos);
  EXPECT_NE(bad("64.5,32:1").find("ISL is not N or N|SD"), std::string::npos);
  EXPECT_NE(bad("64,32|-3:1").find("component 1: OSL standard deviation -3"), std::string::npos);
  EXPECT_NE(bad("64,32:0").find("weight 0"), std::string::npos);
  EXPECT_NE(bad("").find("component 1"), std::string::npos);
}

TEST(LengthMixtureTest, EachComponentGetsItsShareExactlyWhateverTheSeed) {
  std::vector<SequenceComponent> m = {{64, 0, 32, 0, 70}, {256, 0, 128, 0, 20}, {1, 0, 1, 0, 10}};
  for (uint64_t seed : {1, 2, 3}) {
    std::mt19937_64 rng(seed);
    std::vector<int> c = AssignComponents(m, 1001, rng);
    ASSERT_EQ(c.size(), 1001u);
    // 700.7, 200.2, 100.1 → 701, 200, 100 (largest remainder).
    EXPECT_EQ(std::count(c.begin(), c.end(), 0), 701) << seed;
    EXPECT_EQ(std::count(c.begin(), c.end(), 1), 200) << seed;
    EXPECT_EQ(std::count(c.begin(), c.end(), 2), 100) << seed;
    // Shuffled: the first hundred are not all component 0.
    EXPECT_LT(std::count(c.begin(), c.begin() + 100, 0), 100) << seed;
  }
}

TEST(LengthMixtureTest, NormalDrawsHaveTheMeanAndSdAndNeverGoBelowOne) {
  std::mt19937_64 rng(7);
  double sum = 0, sum2 = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    double v = static_cast<double>(DrawLength(500, 50, rng));
    sum += v;
    sum2 += v * v;
  }
  double mean = sum / n;
  EXPECT_NEAR(mean, 500, 2);  // 50/sqrt(20000) = 0.35 per sigma
  EXPECT_NEAR(std::sqrt(sum2 / n - mean * mean), 50, 1.5);
  for (int i = 0; i < 1000; ++i) EXPECT_GE(DrawLength(1, 100, rng), 1);
  EXPECT_EQ(DrawLength(42, 0, rng), 42);
}

}  // namespace
}  // namespace servebench::client
