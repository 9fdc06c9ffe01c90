// servebench bench and RunBench against the real `servebench sim` binary over
// loopback: multi-token events, speculative-decoding acceptance, event times against
// the sim's send stamps, every sim fault mode giving its failure reason and an
// invalid run (exit code 2), and Ctrl-C keeping the partial result.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>
#include <sstream>

#include "client/client.h"
#include "common/exit_codes.h"
#include "common/testing/files.h"
#include "common/testing/shell.h"
#include "sim/testing/sim_process.h"
#include "sim/testing/started_sim.h"

namespace servebench::client {
namespace {

using servebench::testing::ReadFileOrEmpty;

using servebench::testing::ProcessResult;
using servebench::testing::RunProcess;
using sim::testing::SimProcess;
using sim::testing::StartSim;

BenchSettings Settings(const SimProcess& sim) {
  BenchSettings s;
  s.base_url = sim.base_url();
  s.model = "meta-llama/Llama-3.1-8B-Instruct";
  s.num_prompts = 8;
  s.max_concurrency = 4;
  s.random_input_len = 64;
  s.random_output_len = 32;
  s.ignore_eos = true;
  s.request_timeout_s = 20;
  s.client_issue_delay_limit_ms = 1e9;  // shared CI cores: not under test here
  s.server_lag_limit_ms = 1e9;
  return s;
}

TEST(SimIntegrationTest, KTokensPerEventGiveItlPerTokenEqualTpotAndItlKTimesTpot) {
  auto sim = StartSim({"--stream-interval", "4", "--time-scale", "0.5", "--seed", "1"});
  ASSERT_NE(sim, nullptr);
  BenchSettings b = Settings(*sim);
  b.served_model_name = "";
  auto r = RunBench(b);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const metrics::RunSummary& s = r->summary;
  ASSERT_EQ(s.completed, 8) << (s.sample_errors.empty() ? "" : s.sample_errors[0]);
  EXPECT_EQ(s.total_output_tokens, 8 * 32);
  EXPECT_EQ(s.n_sources.at("usage"), 8);
  // Σ itl_per_token = Σ(e2el − ttft) over n − k_first samples; with k_first = 1 it
  // is TPOT exactly (request-weighting aside: equal lengths here).
  EXPECT_NEAR(s.itl_per_token.mean, s.tpot.mean, 0.02 * s.tpot.mean);
  double k = static_cast<double>(s.itl_per_token.count) / static_cast<double>(s.itl.count);
  EXPECT_GT(k, 3.0);
  EXPECT_NEAR(s.itl.mean, k * s.tpot.mean, 0.05 * s.itl.mean);
  EXPECT_TRUE(s.validity.valid()) << s.validity.issues.size();
}

// At time scale 0.05 the wall clock runs 20x fast; every number is still simulated time:
// Llama-3.1-8B BF16 on one H200 needs 16 GB of weights per decode step, 3.3 ms at the
// 4.8 TB/s roofline, so no TPOT below that and no 300 tok/s/user at batch 4.
TEST(SimIntegrationTest, CompressedTimeIsReportedInSimulatedTime) {
  auto sim = StartSim({"--time-scale", "0.05", "--seed", "2"});
  ASSERT_NE(sim, nullptr);
  BenchSettings b = Settings(*sim);
  auto r = RunBench(b);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const metrics::RunSummary& s = r->summary;
  ASSERT_EQ(s.completed, 8);
  EXPECT_GT(s.tpot.median, 3.3);
  EXPECT_LT(s.tpot.median, 20.0);
  EXPECT_LT(s.intvty.at("median"), 300.0);
  const boost::json::object& sb = r->result.at("servebench").as_object();
  EXPECT_EQ(sb.at("run").at("clock").as_string(), "simulated");
  EXPECT_EQ(sb.at("run").at("time_scale").as_double(), 0.05);
  // The simulated duration is about 20x the wall time the measured phase took.
  double wall = sb.at("client").at("measured_phase_wall_s").to_number<double>();
  EXPECT_GT(s.duration_s, 5 * wall);
  // The per-request records kept are the simulated ones too.
  for (const metrics::RequestRecord& rec : r->records) {
    ASSERT_GE(rec.sim_arrival_ns, 0);
    EXPECT_EQ(rec.t_sent_ns, rec.sim_arrival_ns);
  }
  // The server's lateness was scraped (loose limit here: a shared machine).
  EXPECT_TRUE(s.server_lag.has_value());
}

// A request rate (Poisson arrivals, open loop, no cap) on plain HTTP is sent by the
// pacing thread, as a trace's fixed schedule is: every arrival is recorded on its
// schedule and the result says a pacer sent (real-time where the host allows; how late
// the sends were is bench/'s to measure, not a shared CI core's). Under a cap the loop
// sends, since arrivals then wait for a free slot.
TEST(SimIntegrationTest, ARequestRateIsSentByThePacingThread) {
  auto sim = StartSim({"--time-scale", "1", "--seed", "3"});
  ASSERT_NE(sim, nullptr);
  BenchSettings b = Settings(*sim);
  b.max_concurrency = 0;
  b.num_prompts = 40;
  b.request_rate_per_s = 200;
  b.random_output_len = 4;
  auto r = RunBench(b);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->summary.completed, 40);
  const boost::json::value& pacer = r->result.at("servebench").at("client").at("pacer");
  ASSERT_TRUE(pacer.is_object()) << boost::json::serialize(r->result.at("servebench").at("client"));
  EXPECT_EQ(pacer.at("workers").to_number<int64_t>(), 1);
  for (const metrics::RequestRecord& rec : r->records) {
    EXPECT_GE(rec.t_sent_ns, rec.t_scheduled_ns) << rec.index;
  }
  b.max_concurrency = 4;
  b.num_prompts = 8;
  auto capped = RunBench(b);
  ASSERT_TRUE(capped.ok()) << capped.status().ToString();
  EXPECT_TRUE(capped->result.at("servebench").at("client").at("pacer").is_null());
}

TEST(SimIntegrationTest, SpecDecodeAcceptanceLengthFromCounterDeltas) {
  // Time scale 0.1, not 0: at 0 the sim (Debug build) crashed under keep-alive load
  // when this test was written; the client then reports the failures correctly.
  auto sim =
      StartSim({"--time-scale", "0.1", "--speculative-config",
                R"({"method":"eagle3","num_speculative_tokens":3,)"
                R"("rejection_sample_method":"synthetic","synthetic_acceptance_length":2.8})"});
  ASSERT_NE(sim, nullptr);
  BenchSettings b = Settings(*sim);
  b.num_prompts = 64;
  b.max_concurrency = 16;
  b.random_output_len = 256;
  b.spec_decoding = true;
  auto r = RunBench(b);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->summary.spec.has_value());
  ASSERT_TRUE(r->summary.spec->acceptance_length.has_value());
  EXPECT_NEAR(*r->summary.spec->acceptance_length, 2.8, 0.15);
  EXPECT_EQ(r->summary.spec->per_position.size(), 3u);
  EXPECT_GT(r->summary.itl_per_token.count, r->summary.itl.count);  // multi-token events
}

// Every event time must come after the server's send stamp of the same bytes (one
// host, one CLOCK_MONOTONIC): a stamp taken before the bytes left, or a receive time
// mis-converted from CLOCK_REALTIME, would show up as an event from the future.
void ExpectFirstTokensAfterTheirSendStamps(const BenchResult& r) {
  int checked = 0;
  for (const metrics::RequestRecord& rec : r.records) {
    if (rec.warmup || !rec.ok()) continue;
    ASSERT_GE(rec.server_first_token_send_ns, 0) << "request " << rec.index;
    EXPECT_GE(rec.t_first_token_ns, rec.server_first_token_send_ns) << "request " << rec.index;
    EXPECT_GT(rec.server_first_token_send_ns, rec.t_sent_ns) << "request " << rec.index;
    ++checked;
  }
  EXPECT_EQ(checked, r.summary.completed);
}

// At time scale 1: the send stamps are wall-clock, and only then is the client's record
// (otherwise in simulated time) on the same clock.
TEST(SimIntegrationTest, EventsCarryKernelReceiveTimesAfterTheServersSendStamps) {
  auto sim = StartSim({"--time-scale", "1", "--send-time-field"});
  ASSERT_NE(sim, nullptr);
  BenchSettings b = Settings(*sim);
  b.num_prompts = 32;
  b.max_concurrency = 8;
  auto r = RunBench(b);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->summary.completed, 32);
  ExpectFirstTokensAfterTheirSendStamps(*r);
  const boost::json::object& client =
      r->result.at("servebench").as_object().at("client").as_object();
  EXPECT_EQ(client.at("event_timestamps").as_string(), "kernel_receive");
  int64_t reads = client.at("reads").as_int64();
  int64_t stamped = client.at("kernel_stamped_reads").as_int64();
  EXPECT_GE(reads, 32 * 2);
  // Linux stamps loopback data once any socket asks; the first reads of a process
  // may precede the kernel switching stamping on, and fall back to the read time.
  EXPECT_GT(stamped, reads * 9 / 10) << stamped << " of " << reads;
  // The client's own delay is measured on every stamped read.
  const boost::json::object& lag = client.at("receive_lag_us").as_object();
  EXPECT_EQ(lag.at("reads").as_int64(), stamped);
  EXPECT_GE(lag.at("max").to_number<double>(), lag.at("p50").to_number<double>());
}

TEST(SimIntegrationTest, ReadTimestampsWhenKernelStampsAreOff) {
  auto sim = StartSim({"--time-scale", "1", "--send-time-field"});
  ASSERT_NE(sim, nullptr);
  BenchSettings b = Settings(*sim);
  b.kernel_rx_timestamps = false;
  auto r = RunBench(b);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->summary.completed, 8);
  ExpectFirstTokensAfterTheirSendStamps(*r);
  const boost::json::object& client =
      r->result.at("servebench").as_object().at("client").as_object();
  EXPECT_EQ(client.at("event_timestamps").as_string(), "read");
  EXPECT_EQ(client.at("kernel_stamped_reads").as_int64(), 0);
  EXPECT_TRUE(client.at("receive_lag_us").is_null());
}

// Ctrl-C (SIGINT) mid-run: the command stops within moments, prints the summary of
// what finished, writes the result and per-request records marked interrupted, and
// exits 130. The signal comes after 6 s: the ASan build had finished no request by 3 s.
TEST(SimIntegrationTest, CtrlCWritesThePartialResultMarkedInterrupted) {
  auto sim = StartSim({"--time-scale", "1"});
  ASSERT_NE(sim, nullptr);
  std::string out = ::testing::TempDir() + "/interrupted.json";
  std::remove(out.c_str());
  ProcessResult p = RunProcess({"/usr/bin/timeout",
                                "--preserve-status",
                                "-s",
                                "INT",
                                "6",
                                SERVEBENCH_BIN,
                                "bench",
                                "--base-url",
                                sim->base_url(),
                                "--model",
                                "meta-llama/Llama-3.1-8B-Instruct",
                                "--num-prompts",
                                "2000",
                                "--max-concurrency",
                                "4",
                                "--random-input-len",
                                "32",
                                "--random-output-len",
                                "64",
                                "--ignore-eos",
                                "--issue-delay-limit-ms",
                                "100000",
                                "--server-lag-limit-ms",
                                "100000",
                                "--no-progress",
                                "--save-detailed",
                                "--result-filename",
                                out},
                               60);
  ASSERT_FALSE(p.timed_out) << p.err;
  EXPECT_EQ(p.exit_code, kExitInterrupted) << p.out << p.err;
  EXPECT_NE(p.err.find("interrupted; partial result kept"), std::string::npos) << p.err;
  EXPECT_NE(p.out.find("Successful requests:"), std::string::npos) << p.out;
  std::ifstream f(out);
  ASSERT_TRUE(f.good()) << "no result at " << out << "\n" << p.err;
  std::stringstream text;
  text << f.rdbuf();
  boost::json::object o = boost::json::parse(text.str()).as_object();
  int64_t completed = o.at("completed").as_int64();
  EXPECT_GT(completed, 0);
  EXPECT_LT(completed, 2000);
  const boost::json::object& sb = o.at("servebench").as_object();
  EXPECT_TRUE(sb.at("run").as_object().at("interrupted").as_bool());
  // The requests in flight at the signal are recorded as cancelled, not lost.
  std::ifstream jsonl(::testing::TempDir() + "/interrupted.requests.jsonl");
  ASSERT_TRUE(jsonl.good());
  int64_t lines = 0, cancelled = 0;
  for (std::string line; std::getline(jsonl, line);) {
    ++lines;
    if (line.find("\"cancelled\"") != std::string::npos) ++cancelled;
  }
  EXPECT_EQ(lines, completed + cancelled) << text.str().substr(0, 2000);
  EXPECT_LE(cancelled, 4);
}

// The API key comes from the environment variable, authenticates every request (the
// sim, like vLLM --api-key, refuses /v1/* without it), and appears in no output: not
// the terminal, the result, the per-request records.
TEST(SimIntegrationTest, ApiKeyAuthenticatesAndIsWrittenNowhere) {
  const std::string key = "sk-servebench-test-7f3a9c";
  auto sim = StartSim({"--time-scale", "0.1", "--api-key", key});
  ASSERT_NE(sim, nullptr);
  std::string out = ::testing::TempDir() + "/apikey.json";
  std::vector<std::string> argv = {"/usr/bin/env",
                                   "SB_TEST_API_KEY=" + key,
                                   SERVEBENCH_BIN,
                                   "bench",
                                   "--base-url",
                                   sim->base_url(),
                                   "--model",
                                   "meta-llama/Llama-3.1-8B-Instruct",
                                   "--num-prompts",
                                   "6",
                                   "--max-concurrency",
                                   "3",
                                   "--random-input-len",
                                   "16",
                                   "--random-output-len",
                                   "8",
                                   "--ignore-eos",
                                   "--api-key-env",
                                   "SB_TEST_API_KEY",
                                   "--issue-delay-limit-ms",
                                   "100000",
                                   "--server-lag-limit-ms",
                                   "100000",
                                   "--no-progress",
                                   "--save-detailed",
                                   "--result-filename",
                                   out};
  ProcessResult p = RunProcess(argv, 60);
  EXPECT_EQ(p.exit_code, kExitOk) << p.out << p.err;
  std::string result = ReadFileOrEmpty(out);
  std::string records = ReadFileOrEmpty(::testing::TempDir() + "/apikey.requests.jsonl");
  ASSERT_FALSE(result.empty());
  ASSERT_FALSE(records.empty());
  EXPECT_EQ(boost::json::parse(result).at("completed").as_int64(), 6);
  for (const std::string* text : {&p.out, &p.err, &result, &records}) {
    EXPECT_EQ(text->find(key), std::string::npos) << "the API key leaked: " << text->substr(0, 500);
  }

  // Without the key every request is refused: failed with the server's reason, exit 2.
  argv[1] = "SB_TEST_API_KEY=";
  ProcessResult refused = RunProcess(argv, 60);
  EXPECT_EQ(refused.exit_code, kExitRunInvalid) << refused.out << refused.err;
  boost::json::object o = boost::json::parse(ReadFileOrEmpty(out)).as_object();
  EXPECT_EQ(o.at("failed").as_int64(), 6);
  EXPECT_NE(boost::json::serialize(o.at("servebench").at("sample_errors")).find("HTTP 401"),
            std::string::npos)
      << boost::json::serialize(o.at("servebench"));
}

struct SimFault {
  const char* name;
  std::vector<std::string> sim_args;
  const char* failure;  // FailureKind name expected among the failed requests
  // Or this one instead. A crashed sim: requests it had not answered at all are
  // re-sent on a new connection (their pooled one was closed), which is refused.
  const char* or_failure = nullptr;
};

class SimFaultTest : public ::testing::TestWithParam<SimFault> {};

TEST_P(SimFaultTest, BenchCommandReportsTheReasonAndExitsInvalid) {
  std::vector<std::string> args = GetParam().sim_args;
  args.insert(args.end(), {"--time-scale", "0.1"});
  auto sim = StartSim(args);
  ASSERT_NE(sim, nullptr);
  std::string out = ::testing::TempDir() + "/fault-" + GetParam().name + ".json";
  ProcessResult p = RunProcess({SERVEBENCH_BIN,
                                "bench",
                                "--base-url",
                                sim->base_url(),
                                "--model",
                                "meta-llama/Llama-3.1-8B-Instruct",
                                "--num-prompts",
                                "6",
                                "--max-concurrency",
                                "3",
                                "--random-input-len",
                                "32",
                                "--random-output-len",
                                "16",
                                "--ignore-eos",
                                "--request-timeout",
                                "1",
                                "--issue-delay-limit-ms",
                                "1000",
                                "--server-lag-limit-ms",
                                "100000",
                                "--no-progress",
                                "--result-filename",
                                out},
                               60);
  ASSERT_FALSE(p.timed_out) << p.err;
  EXPECT_EQ(p.exit_code, kExitRunInvalid) << p.out << p.err;
  EXPECT_NE(p.out.find("INVALID"), std::string::npos);
  std::FILE* f = std::fopen(out.c_str(), "r");
  ASSERT_NE(f, nullptr);
  std::string text;
  char buf[65536];
  for (size_t n; (n = std::fread(buf, 1, sizeof(buf), f)) > 0;) text.append(buf, n);
  std::fclose(f);
  boost::json::object o = boost::json::parse(text).as_object();
  EXPECT_GT(o.at("failed").as_int64(), 0);
  const boost::json::object& sb = o.at("servebench").as_object();
  const boost::json::object& failures = sb.at("failures").as_object();
  std::string seen = failures.contains(GetParam().failure) || GetParam().or_failure == nullptr
                         ? GetParam().failure
                         : GetParam().or_failure;
  EXPECT_TRUE(failures.contains(seen)) << text.substr(0, 3000);
  EXPECT_FALSE(sb.at("validity").as_object().at("valid").as_bool());
  // The terminal says why, in words: each kind with its count and first message.
  std::string kind = " " + seen + " (";
  EXPECT_NE(p.out.find(kind), std::string::npos) << p.out;
  EXPECT_NE(p.err.find("requests failed: "), std::string::npos) << p.err;
  EXPECT_NE(p.err.find(kind), std::string::npos) << p.err;
}

INSTANTIATE_TEST_SUITE_P(
    Faults, SimFaultTest,
    ::testing::Values(SimFault{"http500", {"--fault-http-500-rate", "1"}, "http_status"},
                      SimFault{"disconnect", {"--fault-disconnect-after-tokens", "3"}, "read"},
                      SimFault{"stall",
                               {"--fault-stall-ms", "20000", "--fault-stall-after-tokens", "2"},
                               "timeout"},
                      SimFault{"malformed", {"--fault-malformed-sse-rate", "1"}, "malformed"},
                      SimFault{"crash", {"--fault-crash-after-requests", "2"}, "read", "connect"}),
    [](const auto& info) { return std::string(info.param.name); });

// `--backend openai-chat` without `--endpoint` posts chat bodies to the chat API (it
// used to post them to /v1/completions, every request an HTTP 400).
TEST(SimIntegrationTest, ChatBackendAloneGoesToTheChatEndpoint) {
  auto sim = StartSim({"--time-scale", "0.1"});
  ASSERT_NE(sim, nullptr);
  std::string out = ::testing::TempDir() + "/chat-default.json";
  ProcessResult p = RunProcess({SERVEBENCH_BIN,
                                "bench",
                                "--backend",
                                "openai-chat",
                                "--base-url",
                                sim->base_url(),
                                "--model",
                                "meta-llama/Llama-3.1-8B-Instruct",
                                "--num-prompts",
                                "4",
                                "--max-concurrency",
                                "2",
                                "--random-input-len",
                                "32",
                                "--random-output-len",
                                "8",
                                "--issue-delay-limit-ms",
                                "1000",
                                "--server-lag-limit-ms",
                                "100000",
                                "--no-progress",
                                "--result-filename",
                                out},
                               60);
  ASSERT_FALSE(p.timed_out) << p.err;
  EXPECT_EQ(p.exit_code, kExitOk) << p.out << p.err;
  boost::json::object o = boost::json::parse(ReadFileOrEmpty(out)).as_object();
  EXPECT_EQ(o.at("completed").as_int64(), 4);
  EXPECT_EQ(o.at("servebench").at("run").at("endpoint").as_string(), "/v1/chat/completions");
}

// The pair that cannot work is refused before anything is sent, as bad input.
TEST(SimIntegrationTest, ChatBackendWithTheCompletionsEndpointIsRefused) {
  ProcessResult p = RunProcess(
      {SERVEBENCH_BIN, "bench", "--backend", "openai-chat", "--endpoint", "/v1/completions",
       "--base-url", "http://127.0.0.1:1", "--model", "m", "--no-progress"},
      30);
  EXPECT_EQ(p.exit_code, kExitInvalidInput) << p.err;
  EXPECT_NE(p.err.find("--backend openai-chat with --endpoint /v1/completions"), std::string::npos)
      << p.err;
}

TEST(SimIntegrationTest, StoppedServerIsRunFailedExitCode) {
  ProcessResult p = RunProcess({SERVEBENCH_BIN, "bench", "--base-url", "http://127.0.0.1:1",
                                "--model", "m", "--num-prompts", "1", "--no-progress"},
                               30);
  EXPECT_EQ(p.exit_code, kExitRunFailed) << p.err;
}

}  // namespace
}  // namespace servebench::client
