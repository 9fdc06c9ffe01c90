// The engine's simulated clock: overheads and steps in simulated time, and a late
// host measured as lag without shifting the simulated schedule.
#include "sim/engine.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "sim/catalogue.h"

namespace servebench::sim {
namespace {

PerfModel Llama8bH200(const EngineProfile& profile) {
  auto cat = Catalogue::BuiltIn();
  EXPECT_TRUE(cat.ok());
  auto p = PerfModel::Create(cat->models.at("llama-3.1-8b"), cat->hardware.at("h200"), profile,
                             PerfSettings{});
  EXPECT_TRUE(p.ok());
  return *p;
}

// Records the engine's simulated time at each delivery.
class StampSink final : public TokenSink {
 public:
  explicit StampSink(Engine** engine) : engine_(engine) {}
  bool OnTokens(int count, FinishReason finish) override {
    if (count > 0) stamps.push_back((*engine_)->SimulatedNowNs());
    max_lag_s = std::max(max_lag_s, (*engine_)->metrics().schedule_lag_seconds);
    if (on_token) on_token(static_cast<int>(stamps.size()));
    if (finish != FinishReason::kNone) done = true;
    return true;
  }
  std::vector<int64_t> stamps;
  double max_lag_s = 0;
  bool done = false;
  std::function<void(int)> on_token;

 private:
  Engine** engine_;
};

TEST(EngineTest, ARequestWaitsForTheServingStacksOverheadsInSimulatedTime) {
  EngineProfile profile;
  profile.request_overhead_ms = 10;
  profile.tokenize_us_per_token = 2;
  FakeClock clock(0);
  auto engine =
      Engine::Create(nullptr, &clock, Llama8bH200(profile), SchedulerSettings{}, EngineSettings{});
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  Engine* e = engine->get();
  StampSink sink(&e);
  EngineRequest r;
  r.prompt_tokens = 100;
  r.max_tokens = 3;
  r.ignore_eos = true;
  r.sink = &sink;
  uint64_t id = e->Submit(r);
  EXPECT_EQ(e->ArrivalNs(id), 0);
  auto first = e->BeginStep();
  ASSERT_TRUE(first.has_value());
  // 10 ms + 100 tokens × 2 µs before the scheduler may run it.
  EXPECT_EQ(first->start_ns, 10'200'000);
  clock.SetNs(first->end_ns);
  e->CompleteStep();
  ASSERT_EQ(sink.stamps.size(), 1u);
  EXPECT_EQ(sink.stamps[0], first->end_ns);
  // The next steps follow back to back.
  auto second = e->BeginStep();
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->start_ns, first->end_ns);
}

TEST(EngineTest, ALateHostIsMeasuredAsLagWithoutShiftingSimulatedTime) {
  auto loop = EventLoop::Create();
  ASSERT_TRUE(loop.ok());
  MonotonicClock clock;
  EngineSettings settings;
  settings.time_scale = 0.1;  // a 6.5 ms simulated step is due every 0.65 ms of wall time
  auto engine = Engine::Create(loop->get(), &clock, Llama8bH200(EngineProfile{}),
                               SchedulerSettings{}, settings);
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  Engine* e = engine->get();
  StampSink sink(&e);
  // The host stalls the loop for 30 ms of wall time after the third token: 300 ms of
  // simulated time behind schedule.
  sink.on_token = [](int n) {
    if (n == 3) ::usleep(30'000);
  };
  EngineRequest r;
  r.prompt_tokens = 64;
  r.max_tokens = 12;
  r.ignore_eos = true;
  r.sink = &sink;
  EventLoop* l = loop->get();
  l->Post([&] { e->Submit(r); });
  std::function<void()> poll = [&] {
    if (sink.done) return l->Stop();
    l->RunAt(MonotonicNowNs() + 1'000'000, poll);
  };
  l->Post(poll);
  ASSERT_TRUE(l->Run().ok());
  ASSERT_EQ(sink.stamps.size(), 12u);
  // Decode steps at batch 1 take (almost) the same simulated time; none of them holds
  // the host's stall.
  double first_gap = static_cast<double>(sink.stamps[2] - sink.stamps[1]);
  for (size_t i = 2; i < sink.stamps.size(); ++i) {
    double gap = static_cast<double>(sink.stamps[i] - sink.stamps[i - 1]);
    EXPECT_NEAR(gap, first_gap, first_gap * 0.01) << "token " << i;
  }
  EXPECT_GE(sink.max_lag_s, 0.25) << "30 ms of wall time at scale 0.1 is 0.3 s simulated";
  std::string metrics = e->metrics().Render("m");
  EXPECT_NE(metrics.find("vllm:sim_step_lag_seconds_bucket"), std::string::npos);
  EXPECT_NE(metrics.find("vllm:sim_schedule_lag_seconds"), std::string::npos);
}

}  // namespace
}  // namespace servebench::sim
