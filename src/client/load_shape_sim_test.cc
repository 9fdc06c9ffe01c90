// Load shapes, stop rules and length mixtures against the real `servebench sim` over
// loopback, at a compressed (or zero) time scale so each run is short. What is checked
// is what the run realised and counted, never how fast this machine is: each stage's
// requests that reached the server over its duration within 2 % of its rate (hundreds
// of requests a stage, so 2 % is a few requests), each stage summarised on its own, a
// ramp's schedule following the ramp's formula, a stop rule ending the run with its
// reason recorded (and not firing under a load the server sustains), and a mixture's
// realised shares within 2 points of its weights, by the server's own token counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
#include <utility>
#include <vector>

#include "client/client.h"
#include "client/schedule.h"
#include "sim/testing/sim_process.h"

namespace servebench::client {
namespace {

using sim::testing::SimProcess;

BenchSettings Settings(const SimProcess& sim) {
  BenchSettings s;
  s.base_url = sim.base_url();
  s.model = "meta-llama/Llama-3.1-8B-Instruct";
  s.random_input_len = 32;
  s.random_output_len = 8;
  s.ignore_eos = true;
  s.request_timeout_s = 60;
  s.progress = false;
  // Shared CI cores: the client's and the server's lateness are not under test here.
  s.client_issue_delay_limit_ms = 1e9;
  s.server_lag_limit_ms = 1e9;
  return s;
}

const boost::json::object& RunObj(const BenchResult& r) {
  return r.result.at("servebench").at("run").as_object();
}

TEST(LoadShapeSimTest, EachStageSendsAtItsOwnRateAndIsSummarisedAlone) {
  SimProcess sim({"--time-scale", "0.2", "--seed", "1"});
  ASSERT_TRUE(sim.ready()) << sim.output();
  BenchSettings b = Settings(sim);
  b.time_scale = 0.2;  // the schedule is simulated seconds, sent 5x compressed
  b.stages = {{100, 2.0}, {400, 1.0}, {200, 1.5}};  // 200 + 400 + 300 requests
  auto r = RunBench(b);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->summary.completed, 900);
  const boost::json::object& sb = r->result.at("servebench").as_object();
  EXPECT_EQ(sb.at("run").at("ended_by").as_string(), "stages");
  EXPECT_EQ(sb.at("run").at("arrival").as_string(), "stages");
  const boost::json::array& stages = sb.at("stages").as_array();
  ASSERT_EQ(stages.size(), 3u);
  for (size_t k = 0; k < 3; ++k) {
    const boost::json::object& st = stages[k].as_object();
    double rate = b.stages[k].rate_per_s;
    int64_t want = std::llround(rate * b.stages[k].duration_s);
    EXPECT_EQ(st.at("requests").as_int64(), want) << "stage " << k;
    EXPECT_NEAR(st.at("sent_rate_per_s").to_number<double>(), rate, 0.02 * rate) << "stage " << k;
    EXPECT_EQ(st.at("completed").as_int64(), want) << "stage " << k;
    EXPECT_EQ(st.at("failed").as_int64(), 0) << "stage " << k;
    EXPECT_TRUE(st.at("servebench").at("stats").at("ttft_ms").is_object()) << "stage " << k;
  }
  // Each request counted in exactly one stage.
  int64_t total = 0;
  for (const auto& st : stages) total += st.at("requests").as_int64();
  EXPECT_EQ(total, 900);
}

TEST(LoadShapeSimTest, LinearRampSchedulesFasterAndFasterAsTheRampSays) {
  SimProcess sim({"--time-scale", "0.2", "--seed", "1"});
  ASSERT_TRUE(sim.ready()) << sim.output();
  BenchSettings b = Settings(sim);
  b.time_scale = 0.2;
  b.num_prompts = 401;
  b.ramp = RampStrategy::kLinear;
  b.ramp_start_rps = 20;
  b.ramp_end_rps = 420;
  b.arrival = ArrivalProcess::kConstant;
  auto r = RunBench(b);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->summary.completed, 401);
  EXPECT_EQ(r->result.at("servebench").at("run").at("arrival").as_string(), "ramp_linear");
  // The schedule the run followed (its t_scheduled, in the run's clock): the first 50
  // and the last 50 gaps against the formula, rate(i) = 20 + 400 i / 400.
  std::vector<int64_t> due(401, -1);
  for (const metrics::RequestRecord& rec : r->records) {
    if (!rec.warmup) due[static_cast<size_t>(rec.index)] = rec.t_scheduled_ns;
  }
  double want_first = 0, want_last = 0;
  for (int i = 0; i < 50; ++i) {
    want_first += 1.0 / (20 + i);
    want_last += 1.0 / (20 + 350 + i);
  }
  double first = static_cast<double>(due[50] - due[0]) / 1e9;
  double last = static_cast<double>(due[400] - due[350]) / 1e9;
  EXPECT_NEAR(first, want_first, 0.02 * want_first);
  EXPECT_NEAR(last, want_last, 0.02 * want_last);
}

// Requests in flight (t_sent .. t_done) over [from, to) of the run's clock, from the
// records: the most at any instant and the number just before `to`.
struct InFlight {
  int64_t peak = 0;
  int64_t at_end = 0;
};
InFlight InFlightIn(const std::vector<metrics::RequestRecord>& records, int64_t from, int64_t to) {
  std::vector<std::pair<int64_t, int>> events;  // (time, +1 sent | -1 done)
  for (const metrics::RequestRecord& rec : records) {
    if (rec.warmup || rec.t_sent_ns < 0 || rec.t_done_ns <= rec.t_sent_ns) continue;
    events.emplace_back(rec.t_sent_ns, +1);
    events.emplace_back(rec.t_done_ns, -1);
  }
  std::sort(events.begin(), events.end());  // at one instant an end before a start
  InFlight out;
  int64_t n = 0;
  for (const auto& [t, step] : events) {
    if (t >= to) break;
    n += step;
    if (t >= from) out.peak = std::max(out.peak, n);
  }
  out.at_end = n;
  out.peak = std::max(out.peak, out.at_end);
  return out;
}

TEST(LoadShapeSimTest, ConcurrencyStagesHoldTheirConcurrencyEachInItsWindow) {
  // Half speed, not a fifth: the client's turnaround is real time, so longer requests
  // in real time keep it a small share of each slot's time on a slow host.
  SimProcess sim({"--time-scale", "0.5", "--seed", "6"});
  ASSERT_TRUE(sim.ready()) << sim.output();
  BenchSettings b = Settings(sim);
  b.time_scale = 0.5;
  b.random_output_len = 32;
  b.num_prompts = 20000;  // the most it may send; the stages end it
  b.stages = {{0, 4.0, 4}, {0, 4.0, 16}, {0, 4.0, 8}};
  auto r = RunBench(b);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(RunObj(*r).at("ended_by").as_string(), "stages");
  EXPECT_EQ(RunObj(*r).at("arrival").as_string(), "concurrency_stages");
  const boost::json::array& stages = r->result.at("servebench").at("stages").as_array();
  ASSERT_EQ(stages.size(), 3u);
  auto in_flight = [&](size_t k) { return stages[k].at("mean_in_flight").to_number<double>(); };
  const int64_t start = r->summary.main_phase_start_ns;
  const std::vector<int64_t> bounds = StageBoundariesNs(b.stages);
  auto window = [&](size_t k) {
    return InFlightIn(r->records, start + bounds[k], start + bounds[k + 1]);
  };
  // Exact, whatever the host's speed: a step up opens every slot of the new level at
  // once, and no stage ever has more in flight than its level.
  EXPECT_EQ(window(0).peak, 4);
  EXPECT_EQ(window(1).peak, 16);
  // A step down retires slots as their requests end (a 32-token request is far shorter
  // than the 4 s stage): at most the old level, and the new one by the stage's end.
  EXPECT_LE(window(2).peak, 16);
  EXPECT_LE(window(2).at_end, 8);
  // The time average is below the level by the client's turnaround, from a request's end
  // to its slot's next send, which depends on the host: at a fifth of real time 2 % of
  // a 32-token request optimised, and above 10 % at 16 streams under ASan beside two
  // busy cores. A tenth at half speed is room for a slow host and still fails a slot
  // that stays shut (one of 4) or a client that waits between requests.
  EXPECT_NEAR(in_flight(0), 4, 0.4);
  EXPECT_NEAR(in_flight(1), 16, 1.6);
  EXPECT_LT(in_flight(2), 16);
  EXPECT_GT(in_flight(2), 8 * 0.9);
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(stages[k].at("concurrency").as_int64(), b.stages[k].concurrency);
    EXPECT_GT(stages[k].at("completed").as_int64(), 0) << "stage " << k;
    EXPECT_EQ(stages[k].at("failed").as_int64(), 0) << "stage " << k;
  }
}

TEST(LoadShapeSimTest, ConcurrencyRampOpensOneSlotAtATimeUpToMaxConcurrency) {
  SimProcess sim({"--time-scale", "0.2", "--seed", "7"});
  ASSERT_TRUE(sim.ready()) << sim.output();
  BenchSettings b = Settings(sim);
  b.time_scale = 0.2;
  b.random_output_len = 32;
  b.num_prompts = 20000;
  b.max_concurrency = 8;
  b.concurrency_ramp_s = 4;  // slot c opens at (c - 1) x 4/7 s
  b.duration_s = 8;
  auto r = RunBench(b);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(RunObj(*r).at("arrival").as_string(), "closed_loop_ramp");
  // In flight at a time of the run's clock, from the records.
  int64_t start = r->summary.main_phase_start_ns;
  auto at = [&](double t_s) {
    int64_t t = start + static_cast<int64_t>(t_s * 1e9), n = 0;
    for (const metrics::RequestRecord& rec : r->records) {
      if (!rec.warmup && rec.t_sent_ns >= 0 && rec.t_sent_ns <= t && t < rec.t_done_ns) ++n;
    }
    return n;
  };
  EXPECT_LE(at(0.3), 1);  // only slot 1 is open before 4/7 s
  EXPECT_LE(at(1.9), 4);  // slots 1-4 open by 12/7 s, slot 5 at 16/7 s
  EXPECT_GE(at(6.0), 7);  // all 8 open after 4 s (one may be between requests)
  EXPECT_LE(at(6.0), 8);
}

TEST(LoadShapeSimTest, ErrorRateAboveTheLimitStopsTheRunAndSaysWhy) {
  SimProcess sim({"--time-scale", "0.2", "--seed", "3", "--fault-http-500-rate", "0.5"});
  ASSERT_TRUE(sim.ready()) << sim.output();
  BenchSettings b = Settings(sim);
  b.time_scale = 0.2;
  b.num_prompts = 2000;  // 10 simulated seconds at 200 req/s if nothing stopped it
  b.request_rate_per_s = 200;
  b.stop.max_error_rate = 0.2;
  auto r = RunBench(b);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const boost::json::object& run = RunObj(*r);
  EXPECT_EQ(run.at("ended_by").as_string(), "error_rate");
  ASSERT_TRUE(run.at("stop_reason").is_string());
  EXPECT_NE(std::string(run.at("stop_reason").as_string()).find("--max-error-rate 0.2"),
            std::string::npos)
      << run.at("stop_reason");
  int64_t offered = run.at("requests_offered").as_int64();
  EXPECT_LT(offered, 2000) << "the rule stopped issuing";
  EXPECT_GE(offered, 20) << "judged from 20 finished requests on";
  // Every request it issued is in the result: none silently dropped.
  int64_t measured = 0, failed = 0;
  for (const metrics::RequestRecord& rec : r->records) {
    if (rec.warmup) continue;
    ++measured;
    failed += rec.ok() ? 0 : 1;
  }
  EXPECT_EQ(measured, offered);
  EXPECT_GT(static_cast<double>(failed) / static_cast<double>(measured), 0.2);
}

TEST(LoadShapeSimTest, GrowingQueueingStopsAnOverloadedRunAsSaturated) {
  // Four sequences per step, 64 tokens each: the server completes about a tenth of the
  // 50 req/s offered, so the queue, and each request's wait for its first token, grows.
  SimProcess sim({"--time-scale", "0.1", "--seed", "4", "--max-num-seqs", "4"});
  ASSERT_TRUE(sim.ready()) << sim.output();
  BenchSettings b = Settings(sim);
  b.random_output_len = 64;
  b.num_prompts = 2000;  // 40 simulated seconds if nothing stopped it
  b.request_rate_per_s = 50;
  b.time_scale = 0.1;
  b.duration_s = 0;
  b.grace_period_s = 0;  // cut what is still queued when the rule fires
  b.stop.detect_saturation = true;
  b.stop.saturation_window_s = 1;
  auto r = RunBench(b);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const boost::json::object& run = RunObj(*r);
  EXPECT_EQ(run.at("ended_by").as_string(), "saturation") << run.at("stop_reason");
  ASSERT_TRUE(run.at("stop_reason").is_string());
  EXPECT_NE(std::string(run.at("stop_reason").as_string()).find("queueing grows"),
            std::string::npos);
  EXPECT_LT(run.at("requests_offered").as_int64(), 2000);
}

TEST(LoadShapeSimTest, SaturationRuleStaysQuietUnderALoadTheServerSustains) {
  SimProcess sim({"--time-scale", "0.1", "--seed", "4", "--max-num-seqs", "4"});
  ASSERT_TRUE(sim.ready()) << sim.output();
  BenchSettings b = Settings(sim);
  b.random_output_len = 64;
  b.num_prompts = 60;  // 20 simulated seconds at 3 req/s
  b.request_rate_per_s = 3;
  b.time_scale = 0.1;
  b.stop.detect_saturation = true;
  b.stop.saturation_window_s = 1;
  b.stop.max_error_rate = 0.05;
  auto r = RunBench(b);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(RunObj(*r).at("ended_by").as_string(), "prompts") << RunObj(*r).at("stop_reason");
  EXPECT_TRUE(RunObj(*r).at("stop_reason").is_null());
  EXPECT_EQ(r->summary.completed, 60);
}

TEST(LoadShapeSimTest, MixtureSharesAndLengthsAreRealisedAsConfigured) {
  SimProcess sim({"--time-scale", "0", "--seed", "5"});
  ASSERT_TRUE(sim.ready()) << sim.output();
  BenchSettings b = Settings(sim);
  b.num_prompts = 1000;
  b.max_concurrency = 64;
  b.sequence_distribution = {{64, 8, 16, 2, 70}, {512, 32, 48, 4, 20}, {200, 0, 8, 0, 10}};
  auto r = RunBench(b);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->summary.completed, 1000);
  const boost::json::array& mix = r->result.at("servebench").at("sequence_distribution").as_array();
  ASSERT_EQ(mix.size(), 3u);
  for (size_t k = 0; k < 3; ++k) {
    const boost::json::object& c = mix[k].as_object();
    const SequenceComponent& want = b.sequence_distribution[k];
    auto num = [&](const char* key) { return c.at(key).to_number<double>(); };
    EXPECT_NEAR(num("share_pct"), want.weight, 2.0) << "component " << k;
    EXPECT_DOUBLE_EQ(num("configured_share_pct"), want.weight);
    // The server's prompt_tokens and the tokens it sent: means within 2 %, sds within 20 %.
    EXPECT_NEAR(num("realised_isl_mean"), want.isl, 0.02 * want.isl) << "component " << k;
    EXPECT_NEAR(num("realised_osl_mean"), want.osl, 0.02 * want.osl) << "component " << k;
    EXPECT_NEAR(num("realised_isl_stddev"), want.isl_stddev, 0.2 * want.isl_stddev + 0.01);
    EXPECT_NEAR(num("realised_osl_stddev"), want.osl_stddev, 0.2 * want.osl_stddev + 0.01);
  }
}

}  // namespace
}  // namespace servebench::client
