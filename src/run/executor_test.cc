#include "run/executor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "recipe/agentic_trace.h"
#include "record/record_builder.h"
#include "record/record_json.h"
#include "run/report.h"

namespace servebench::run {
namespace {

using PointStatus = record::RecordStatus;
using ::testing::HasSubstr;

recipe::Point MakePoint(const std::string& recipe_name, int tp, int conc, bool blocked = false) {
  recipe::Point p;
  p.recipe = recipe_name;
  p.serve.engine = "sim";
  p.serve.model = "llama-3.1-8b";
  p.serve.hardware = "h200";
  p.serve.tp = tp;
  p.serve.image = "img:1";
  p.load.isl = 128;
  p.load.osl = 64;
  p.load.concurrency = conc;
  p.blocked = blocked;
  if (blocked) p.blocked_reason = "known bad";
  recipe::AssignIds(&p);
  return p;
}

std::vector<recipe::ServeSession> Sessions(std::vector<recipe::Point> points) {
  return recipe::GroupSessions(points);
}

// A fake engine: alive until `dies_after_points` loads have run against it.
struct FakeEngineState {
  int loads = 0;
  int dies_after_loads = -1;  // -1 = never
  bool alive = true;
  Failure log_says;  // what its log says about failed requests (empty: nothing)
};

class FakeLiveEngine : public LiveEngine {
 public:
  explicit FakeLiveEngine(std::shared_ptr<FakeEngineState> s) : s_(std::move(s)) {}
  std::string base_url() const override { return "http://127.0.0.1:1"; }
  std::string engine_version() const override { return "fake-1"; }
  std::string log_path() const override { return "/dev/null"; }
  bool IsAlive() override { return s_->alive; }
  Failure Diagnose() override {
    return {failure_class::kServerDiedDuringRun, "the engine exited (signal 9)"};
  }
  Failure ExplainRequestFailures() override { return s_->log_says; }
  void Stop() override { s_->alive = false; }
  std::shared_ptr<FakeEngineState> s_;
};

class FakeEngineBackend : public EngineBackend {
 public:
  StatusOr<std::string> Render(const recipe::ServeSpec& serve, int) override {
    return "fake-serve --tp " + std::to_string(serve.tp) + "\n";
  }
  std::unique_ptr<LiveEngine> Start(const recipe::ServeSpec& serve, int max_concurrency,
                                    const std::string&, Failure* failure) override {
    max_concurrencies.push_back(max_concurrency);
    ++starts;
    if (fail_start_tp == serve.tp) {
      *failure = {*FailureClass::Parse("server.spec.eagle3_unsupported"),
                  "Model does not support EAGLE3 interface but aux_hidden_state_outputs was "
                  "requested"};
      return nullptr;
    }
    current = std::make_shared<FakeEngineState>();
    current->dies_after_loads = die_on_start == starts ? dies_after_loads : -1;
    current->log_says = log_says;
    return std::make_unique<FakeLiveEngine>(current);
  }
  int starts = 0;
  std::vector<int> max_concurrencies;  // per start
  Failure log_says;                    // given to each engine started
  int fail_start_tp = -1;
  int die_on_start = -1;  // which start (1-based) dies
  int dies_after_loads = -1;
  std::shared_ptr<FakeEngineState> current;
};

class FakeLoadBackend : public LoadBackend {
 public:
  explicit FakeLoadBackend(FakeEngineBackend* engine) : engine_(engine) {}
  LoadOutcome Run(const recipe::Point& point, const std::string&, const std::string&,
                  const std::atomic<bool>* cancel) override {
    concurrencies.push_back(point.load.concurrency);
    LoadOutcome out;
    auto& s = *engine_->current;
    ++s.loads;
    if (s.dies_after_loads >= 0 && s.loads > s.dies_after_loads) {
      s.alive = false;
      out.error = "connection reset";
      return out;
    }
    if (cancel_at_conc == point.load.concurrency) {
      cancel_flag->store(true);
      out.completed = true;
      out.interrupted = true;
      out.summary["completed"] = 3;
      return out;
    }
    out.completed = true;
    out.valid = invalid_at_conc != point.load.concurrency;
    if (!out.valid) {
      out.invalid_reasons = {"failed_requests"};
      out.failure_counts = "3 read";
      out.failure_summary = "3 of 8 requests failed: 3 read (connection closed by the server)";
    }
    out.summary["request_throughput"] = 1.0 * point.load.concurrency;
    out.summary["output_throughput"] = 100.0 * point.load.concurrency;
    out.summary["median_ttft_ms"] = 10.0 * point.load.concurrency;
    out.summary["median_tpot_ms"] = 5.0 + point.load.concurrency;
    return out;
  }
  FakeEngineBackend* engine_;
  std::vector<int> concurrencies;
  int invalid_at_conc = -1;
  int cancel_at_conc = -1;
  std::atomic<bool>* cancel_flag = nullptr;
};

class MemorySink : public RecordSink {
 public:
  // Keeps each record as it is written (its JSON form).
  Status Put(const record::Record& record) override {
    records.push_back(record::ToJson(record));
    return Status::Ok();
  }
  StatusOr<std::set<std::string>> OkPointIds(const std::vector<std::string>& ids) override {
    std::set<std::string> out;
    for (const auto& r : records)
      if (r.at("status").as_string() == "ok") out.insert(std::string(r.at("point_id").as_string()));
    (void)ids;
    return out;
  }
  std::vector<boost::json::object> records;
};

struct Harness {
  Harness() : load(&engine) {}
  SweepReport Run(const std::vector<recipe::ServeSession>& sessions, RunSettings settings = {}) {
    settings.run_id = settings.run_id.empty() ? "run-1" : settings.run_id;
    Executor executor(settings, &engine, &load, nullptr, &sink, &log);
    return executor.Run(sessions, &cancel);
  }
  FakeEngineBackend engine;
  FakeLoadBackend load;
  MemorySink sink;
  std::ostringstream log;
  std::atomic<bool> cancel{false};
};

TEST(ExecutorTest, PointsOfASessionShareOneServerInAscendingConcurrency) {
  Harness h;
  auto report = h.Run(Sessions({MakePoint("r", 1, 4), MakePoint("r", 1, 1), MakePoint("r", 1, 2),
                                MakePoint("r", 2, 1), MakePoint("r", 2, 8)}));
  EXPECT_EQ(h.engine.starts, 2);
  EXPECT_EQ(report.server_starts, 2);
  EXPECT_EQ(report.starts_one_per_point, 5);
  EXPECT_EQ(h.load.concurrencies, (std::vector<int>{1, 2, 4, 1, 8}));
  EXPECT_EQ(report.Count(PointStatus::kOk), 5);
  ASSERT_EQ(h.sink.records.size(), 5u);
  EXPECT_NE(FormatSweepSummaryLine(report).find("3 fewer than one start per point"),
            std::string::npos);
}

// An engine that sizes its parallel slots up front (llama.cpp's -np) is started
// for the highest concurrency of its session.
TEST(ExecutorTest, EachServerIsStartedForItsSessionsHighestConcurrency) {
  Harness h;
  h.Run(Sessions(
      {MakePoint("r", 1, 4), MakePoint("r", 1, 1), MakePoint("r", 2, 1), MakePoint("r", 2, 8)}));
  EXPECT_EQ(h.engine.max_concurrencies, (std::vector<int>{4, 8}));
}

TEST(ExecutorTest, CanaryFailureStopsTheSweepWithItsClass) {
  Harness h;
  h.engine.fail_start_tp = 1;
  auto report = h.Run(Sessions({MakePoint("r", 1, 1), MakePoint("r", 1, 2), MakePoint("r", 2, 1)}));
  EXPECT_TRUE(report.canary_failed);
  EXPECT_EQ(report.canary_failure.failure_class.name(), "server.spec.eagle3_unsupported");
  EXPECT_EQ(h.engine.starts, 1) << "the second session must not start";
  EXPECT_EQ(report.Count(PointStatus::kFailed), 1);
  EXPECT_EQ(report.Count(PointStatus::kSkipped), 2);
  ASSERT_EQ(h.sink.records.size(), 3u);
  EXPECT_EQ(h.sink.records[0].at("failure_class").as_string(), "server.spec.eagle3_unsupported");
  EXPECT_EQ(h.sink.records[2].at("status").as_string(), "skipped");
  std::string line = FormatSweepSummaryLine(report);
  EXPECT_NE(
      line.find("canary failed: server.spec.eagle3_unsupported: Model does not support EAGLE3"),
      std::string::npos)
      << line;
}

TEST(ExecutorTest, ContinueAfterCanaryFailureRunsTheOtherSessions) {
  Harness h;
  h.engine.fail_start_tp = 1;
  RunSettings settings;
  settings.continue_after_canary_failure = true;
  auto report =
      h.Run(Sessions({MakePoint("r", 1, 1), MakePoint("r", 1, 2), MakePoint("r", 2, 1)}), settings);
  EXPECT_EQ(report.Count(PointStatus::kFailed), 2);
  EXPECT_EQ(report.Count(PointStatus::kOk), 1);
}

TEST(ExecutorTest, EngineDeathFailsThePointAndTheSessionGoesOnWithARestartedServer) {
  Harness h;
  h.engine.die_on_start = 1;
  h.engine.dies_after_loads = 1;  // dies during the second point
  auto report = h.Run(Sessions({MakePoint("r", 1, 1), MakePoint("r", 1, 2), MakePoint("r", 1, 4)}));
  EXPECT_EQ(h.engine.starts, 2);
  ASSERT_EQ(report.points.size(), 3u);
  EXPECT_EQ(report.points[0].status, PointStatus::kOk);
  EXPECT_EQ(report.points[1].status, PointStatus::kFailed);
  EXPECT_EQ(report.points[1].failure.failure_class, failure_class::kServerDiedDuringRun);
  EXPECT_EQ(report.points[2].status, PointStatus::kOk);
}

TEST(ExecutorTest, BlockedPointThatFailsIsBlockedNeverFailed) {
  Harness h;
  h.engine.fail_start_tp = 1;
  auto report = h.Run(Sessions({MakePoint("r", 1, 1, /*blocked=*/true), MakePoint("r", 2, 1)}));
  EXPECT_FALSE(report.canary_failed) << "a known-blocked recipe must not stop the sweep";
  EXPECT_EQ(report.points[0].status, PointStatus::kBlocked);
  EXPECT_EQ(h.sink.records[0].at("status").as_string(), "blocked");
  EXPECT_EQ(report.points[1].status, PointStatus::kOk);
}

TEST(ExecutorTest, BlockedPointThatPassesIsReportedUnblocked) {
  Harness h;
  auto report = h.Run(Sessions({MakePoint("r", 1, 1, /*blocked=*/true)}));
  EXPECT_EQ(report.points[0].status, PointStatus::kOk);
  EXPECT_TRUE(report.points[0].unblocked);
  EXPECT_TRUE(h.sink.records[0].at("unblocked").as_bool());
}

TEST(ExecutorTest, InvalidRunIsRecordedInvalidWithReasons) {
  Harness h;
  h.load.invalid_at_conc = 2;
  auto report = h.Run(Sessions({MakePoint("r", 1, 1), MakePoint("r", 1, 2)}));
  EXPECT_EQ(report.points[1].status, PointStatus::kInvalid);
  EXPECT_EQ(h.sink.records[1].at("invalid_reasons").as_array().at(0).as_string(),
            "failed_requests");
}

// Why requests failed reaches people in words: the point line, the record's reason
// and the report's failure column (the wording itself is metrics/failure_summary.h's).
TEST(ExecutorTest, FailedRequestsAreDescribedInThePointLineRecordAndReport) {
  Harness h;
  h.load.invalid_at_conc = 2;
  auto report = h.Run(Sessions({MakePoint("r", 1, 1), MakePoint("r", 1, 2)}));
  EXPECT_NE(h.log.str().find("concurrency 2: invalid (client.invalid_run: validity rules broken: "
                             "failed_requests; 3 of 8 requests failed: 3 read (connection closed "
                             "by the server))"),
            std::string::npos)
      << h.log.str();
  EXPECT_NE(report.points[1].failure.reason.find("3 read (connection closed"), std::string::npos);
  EXPECT_EQ(report.points[1].request_failures, "3 read");
  EXPECT_NE(FormatSweepReport(report, ReportStyle::kTerminal).find("client.invalid_run: 3 read"),
            std::string::npos)
      << FormatSweepReport(report, ReportStyle::kTerminal);
}

// Requests failed while the engine kept serving and its log names the cause (a
// prompt longer than the context): the point gets that class, the words stay.
TEST(ExecutorTest, FailedRequestsTakeTheClassTheEngineLogGives) {
  Harness h;
  h.load.invalid_at_conc = 2;
  h.engine.log_says = {*FailureClass::Parse("server.context_exceeded"),
                       "server.context_exceeded: log line 9: ..."};
  auto report = h.Run(Sessions({MakePoint("r", 1, 1), MakePoint("r", 1, 2)}));
  EXPECT_EQ(report.points[1].status, PointStatus::kInvalid);
  EXPECT_EQ(report.points[1].failure.failure_class.name(), "server.context_exceeded");
  EXPECT_NE(report.points[1].failure.reason.find("3 of 8 requests failed"), std::string::npos);
  EXPECT_EQ(h.sink.records[1].at("failure_class").as_string(), "server.context_exceeded");
}

TEST(ExecutorTest, ResumeSkipsPointsAlreadyOk) {
  Harness h;
  auto sessions = Sessions({MakePoint("r", 1, 1), MakePoint("r", 1, 2)});
  h.load.invalid_at_conc = 2;
  h.Run(sessions);
  h.load.invalid_at_conc = -1;
  h.load.concurrencies.clear();
  RunSettings settings;
  settings.resume = true;
  settings.run_id = "run-2";
  auto report = h.Run(sessions, settings);
  EXPECT_EQ(h.load.concurrencies, (std::vector<int>{2}));
  EXPECT_TRUE(report.points[0].resumed);
  EXPECT_EQ(report.points[1].status, PointStatus::kOk);
}

TEST(ExecutorTest, CancelRecordsThePointInFlightAsInterruptedAndStops) {
  Harness h;
  h.load.cancel_at_conc = 2;
  h.load.cancel_flag = &h.cancel;
  auto report = h.Run(Sessions(
      {MakePoint("r", 1, 1), MakePoint("r", 1, 2), MakePoint("r", 1, 4), MakePoint("r", 2, 1)}));
  EXPECT_TRUE(report.interrupted);
  ASSERT_EQ(h.sink.records.size(), 2u) << "untouched points get no record so --resume runs them";
  EXPECT_EQ(h.sink.records[1].at("failure_class").as_string(), "run.interrupted");
  EXPECT_TRUE(h.sink.records[1].at("interrupted").as_bool());
  EXPECT_EQ(h.sink.records[1].at("summary").at("completed").as_int64(), 3);
}

TEST(ExecutorTest, RecordCarriesIdentityAndSeriesIgnoresTheImage) {
  Harness h;
  h.Run(Sessions({MakePoint("r", 1, 1)}));
  auto other = MakePoint("r", 1, 1);
  other.serve.image = "img:2";
  recipe::AssignIds(&other);
  const auto& r = h.sink.records[0];
  EXPECT_EQ(r.at("engine").as_string(), "sim");
  EXPECT_TRUE(r.at("simulated").as_bool());
  EXPECT_EQ(r.at("series_id").as_string(), record::SeriesId(other));
  EXPECT_NE(r.at("point_id").as_string(), other.point_id);
  EXPECT_EQ(r.at("provenance").at("engine_version").as_string(), "fake-1");
  EXPECT_EQ(r.at("record_id").as_string(),
            record::RecordId(MakePoint("r", 1, 1).point_id, "run-1"));
}

TEST(ExecutorTest, DryRunRendersEverySessionAndStartsNothing) {
  Harness h;
  Executor executor(RunSettings{}, &h.engine, &h.load, nullptr, &h.sink, &h.log);
  std::ostringstream out;
  ASSERT_TRUE(executor.DryRun(Sessions({MakePoint("r", 1, 1), MakePoint("r", 2, 1)}), out).ok());
  EXPECT_NE(out.str().find("fake-serve --tp 1"), std::string::npos);
  EXPECT_NE(out.str().find("fake-serve --tp 2"), std::string::npos);
  EXPECT_EQ(h.engine.starts, 0);
}

// An agentic point's client line says how its prompts are sent: chat messages with the
// cache bust where the engine counts them, token ids and why where it cannot.
TEST(ExecutorTest, DryRunSaysHowAnAgenticPointSendsItsPrompts) {
  Harness h;
  Executor executor(RunSettings{}, &h.engine, &h.load, nullptr, &h.sink, &h.log);
  auto agentic = [](const std::string& stands_in_for) {
    recipe::Point p = MakePoint("agentic-" + stands_in_for, 1, 4);
    p.serve.stands_in_for = stands_in_for;
    p.load.scenario = "agentic-coding";
    p.load.dataset = "weka_trace";
    p.load.dataset_path = "/corpora/t.jsonl";
    p.load.duration_s = 120;
    p.load.endpoint = recipe::AgenticEndpoint(p.serve);
    recipe::AssignIds(&p);
    return p;
  };
  std::ostringstream chat, ids;
  ASSERT_TRUE(executor.DryRun(Sessions({agentic("vllm")}), chat).ok());
  EXPECT_THAT(chat.str(), HasSubstr("agentic-coding replay of weka_trace /corpora/t.jsonl, "
                                    "concurrency = live trees, 120 s per point, to "
                                    "/v1/chat/completions\n"));
  EXPECT_THAT(chat.str(), HasSubstr("as chat messages of exact length through the engine's "
                                    "/tokenize, --cache-bust first_turn_prefix"));
  ASSERT_TRUE(executor.DryRun(Sessions({agentic("llamacpp")}), ids).ok());
  EXPECT_THAT(ids.str(), HasSubstr("to /v1/completions\n"));
  EXPECT_THAT(ids.str(), HasSubstr("the llamacpp engine's /tokenize cannot count chat messages"));
  EXPECT_EQ(h.engine.starts, 0);
}

}  // namespace
}  // namespace servebench::run
