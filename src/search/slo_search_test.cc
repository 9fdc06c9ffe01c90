// The search strategy against injected probes (no server): bracketing, bisection,
// the range's ends, repeats beside the boundary, a probe that cannot run, Ctrl-C.
#include "search/slo_search.h"

#include <gtest/gtest.h>

namespace servebench::search {
namespace {

// A probe whose P99 TTFT is 10 ms per unit of the varied value, so the limit
// ttft_p99_ms <= 10 * T puts the boundary at T.
ProbeRun TtftRun(double value) {
  ProbeRun r;
  r.summary.ttft = metrics::ComputeStats({10 * value}, {99});
  r.summary.completed = 1;
  return r;
}

SearchSettings Settings(Vary vary, double boundary) {
  SearchSettings s;
  s.bench.model = "m";
  s.vary = vary;
  auto limit = ParseSloLimit("ttft_p99_ms<=" + std::to_string(10 * boundary));
  EXPECT_TRUE(limit.ok()) << limit.status().ToString();
  s.slos = {*limit};
  return s;
}

std::vector<double> Values(const SearchResult& r) {
  std::vector<double> out;
  for (const Probe& p : r.probes) out.push_back(p.value);
  return out;
}

TEST(SloSearchTest, ConcurrencyBoundaryIsExactAfterBracketingThenBisection) {
  SearchSettings s = Settings(Vary::kConcurrency, 37);
  SearchResult r = RunSloSearch(s, TtftRun);
  ASSERT_TRUE(r.boundary.has_value());
  EXPECT_EQ(*r.boundary, 37);
  EXPECT_EQ(*r.first_failing, 38);
  EXPECT_FALSE(r.capped_at_max);
  EXPECT_FALSE(r.non_monotone);
  // Doubling to the first failure, then halving the gap (32 passes, 64 fails).
  EXPECT_EQ(Values(r), (std::vector<double>{1, 2, 4, 8, 16, 32, 64, 48, 40, 36, 38, 37}));
}

TEST(SloSearchTest, CoarserStepStopsWhenTheGapIsOneStep) {
  SearchSettings s = Settings(Vary::kConcurrency, 37);
  s.concurrency_step = 4;
  SearchResult r = RunSloSearch(s, TtftRun);
  ASSERT_TRUE(r.boundary.has_value());
  EXPECT_LE(*r.first_failing - *r.boundary, 4);
  EXPECT_LE(*r.boundary, 37);
  EXPECT_GT(*r.first_failing, 37);
}

TEST(SloSearchTest, RateBoundaryIsWithinTheResolution) {
  SearchSettings s = Settings(Vary::kRate, 13.7);
  s.min = 0.5;
  s.max = 200;
  SearchResult r = RunSloSearch(s, TtftRun);
  ASSERT_TRUE(r.boundary.has_value());
  EXPECT_LE(*r.boundary, 13.7);
  EXPECT_GT(*r.first_failing, 13.7);
  EXPECT_LE(*r.first_failing - *r.boundary, 0.05 * *r.boundary);
  boost::json::object o = SearchResultJson(s, r);
  EXPECT_DOUBLE_EQ(o.at("max_request_rate_at_slo").as_double(), *r.boundary);
  EXPECT_FALSE(o.contains("max_concurrency_at_slo"));
}

TEST(SloSearchTest, NothingMeetsTheSloWhenMinFails) {
  SearchSettings s = Settings(Vary::kConcurrency, 0.5);
  SearchResult r = RunSloSearch(s, TtftRun);
  EXPECT_FALSE(r.boundary.has_value());
  EXPECT_EQ(*r.first_failing, 1);
  EXPECT_EQ(r.probes.size(), 1u);
  EXPECT_TRUE(SearchResultJson(s, r).at("max_concurrency_at_slo").is_null());
  EXPECT_NE(SearchReport(s, r).find("none"), std::string::npos);
}

TEST(SloSearchTest, MaxMeetingTheSloIsReportedAsCapped) {
  SearchSettings s = Settings(Vary::kConcurrency, 5000);
  s.max = 100;
  SearchResult r = RunSloSearch(s, TtftRun);
  ASSERT_TRUE(r.boundary.has_value());
  EXPECT_EQ(*r.boundary, 100);
  EXPECT_TRUE(r.capped_at_max);
  EXPECT_FALSE(r.first_failing.has_value());
}

TEST(SloSearchTest, AnInvalidRunNeverMeetsTheSlo) {
  SearchSettings s = Settings(Vary::kConcurrency, 1000);
  SearchResult r = RunSloSearch(s, [](double v) {
    ProbeRun run = TtftRun(v);
    if (v > 8) run.summary.validity.Add("failed_requests", "1 of 10 requests failed");
    return StatusOr<ProbeRun>(std::move(run));
  });
  EXPECT_EQ(*r.boundary, 8);
  EXPECT_EQ(r.probes.back().reasons, std::vector<std::string>{"failed_requests"});
}

// The first probe at 16 fails by noise; the boundary is really 20.
ProbeRunner NoisyAt16() {
  auto seen16 = std::make_shared<bool>(false);
  return [seen16](double v) -> StatusOr<ProbeRun> {
    ProbeRun run = TtftRun(v);
    if (v == 16 && !*seen16) {
      *seen16 = true;
      run.summary.ttft = metrics::ComputeStats({1e9}, {99});
    }
    return run;
  };
}

TEST(SloSearchTest, RepeatsBesideTheBoundaryOutvoteOneNoisyProbe) {
  SearchSettings s = Settings(Vary::kConcurrency, 20);
  s.repeats = 3;
  SearchResult r = RunSloSearch(s, NoisyAt16());
  EXPECT_EQ(*r.boundary, 20);
  EXPECT_EQ(*r.first_failing, 21);
  EXPECT_TRUE(r.non_monotone);  // the search had to re-open above 16

  s.repeats = 1;  // believed once: the noise sets the answer
  SearchResult once = RunSloSearch(s, NoisyAt16());
  EXPECT_EQ(*once.boundary, 15);
}

TEST(SloSearchTest, AProbeThatCannotRunStopsTheSearchKeepingWhatWasMeasured) {
  SearchSettings s = Settings(Vary::kConcurrency, 100);
  int calls = 0;
  SearchResult r = RunSloSearch(s, [&calls](double v) -> StatusOr<ProbeRun> {
    if (++calls == 3) return Status::Unavailable("connection refused");
    return TtftRun(v);
  });
  EXPECT_EQ(r.stopped.code(), StatusCode::kUnavailable);
  EXPECT_EQ(r.probes.size(), 2u);
  EXPECT_EQ(*r.boundary, 2);
  EXPECT_NE(SearchReport(s, r).find("connection refused"), std::string::npos);
}

TEST(SloSearchTest, CancelStopsBeforeTheNextProbe) {
  SearchSettings s = Settings(Vary::kConcurrency, 100);
  std::atomic<bool> cancel{false};
  SearchResult r = RunSloSearch(
      s,
      [&cancel](double v) -> StatusOr<ProbeRun> {
        if (v >= 4) cancel.store(true);
        return TtftRun(v);
      },
      &cancel);
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.probes.size(), 3u);
  EXPECT_EQ(*r.boundary, 4);
}

TEST(SloSearchTest, ProbeSettingsSetTheKnobAndTheNeededPercentiles) {
  SearchSettings s = Settings(Vary::kConcurrency, 10);
  s.slos.push_back(*ParseSloLimit("tpot_p95_ms<=30"));
  client::BenchSettings b = ProbeSettings(s, 12);
  EXPECT_EQ(b.max_concurrency, 12);
  EXPECT_EQ(b.request_rate_per_s, 0);
  EXPECT_NE(std::find(b.percentiles.begin(), b.percentiles.end(), 95.0), b.percentiles.end());
  s.vary = Vary::kRate;
  s.bench.max_concurrency = 64;
  b = ProbeSettings(s, 7.5);
  EXPECT_EQ(b.request_rate_per_s, 7.5);
  EXPECT_EQ(b.max_concurrency, 64);
}

TEST(SloLimitTest, LimitsParseAndBadOnesNameTheForm) {
  auto l = ParseSloLimit("tpot_median_ms<=30.5");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->stat.metric, "tpot");
  EXPECT_EQ(l->max_ms, 30.5);
  for (const char* bad :
       {"ttft_p99_ms<500", "ttft_p99_ms<=", "ttft_p99_ms<=-1", "ttft_p99<=5", "ttft_p99_ms<=5ms"}) {
    auto b = ParseSloLimit(bad);
    ASSERT_FALSE(b.ok()) << bad;
    EXPECT_NE(b.status().message().find("--slo"), std::string::npos) << b.status().message();
  }
}

TEST(SearchSettingsTest, ValidateRefusesWhatCannotBeSearched) {
  SearchSettings s = Settings(Vary::kConcurrency, 10);
  EXPECT_TRUE(Validate(s).ok()) << Validate(s).ToString();
  SearchSettings none = s;
  none.slos.clear();
  EXPECT_NE(Validate(none).message().find("--slo"), std::string::npos);
  SearchSettings frac = s;
  frac.max = 10.5;
  EXPECT_FALSE(Validate(frac).ok());
  SearchSettings rate = s;
  rate.bench.request_rate_per_s = 5;
  EXPECT_NE(Validate(rate).message().find("--request-rate"), std::string::npos);
}

}  // namespace
}  // namespace servebench::search
