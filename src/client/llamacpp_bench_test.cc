// servebench's load generator against a real, unpatched llama.cpp llama-server
// (label realengine; the fixture builds the engine when the cache is empty):
// completions and chat at concurrency 1 and 4 lose no request although the server
// closes every streamed connection; chat prompts are sized with llama.cpp's
// /tokenize shape; mean TPOT agrees with the engine's own per-token time; acceptance
// with a draft model equals what /metrics says; and the terminal names the failures
// of a run that fails. Each prints a `REPORT` line with the numbers it measured.
#include <gtest/gtest.h>

#include <cstdio>
#include <ostream>

#include "client/client.h"
#include "common/exit_codes.h"
#include "common/testing/shell.h"
#include "engine/testing/real_llama.h"

namespace servebench::client {
namespace {

using engine::testing::LlamaServer;
using engine::testing::LlamaServerOptions;
using engine::testing::RealLlama;

std::string LogPath(const std::string& name) {
  return ::testing::TempDir() + "/llamacpp-" + name + "-" + std::to_string(getpid()) + ".log";
}

class LlamacppBenchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto llama = engine::testing::LoadRealLlama();
    ASSERT_TRUE(llama.ok()) << llama.status().ToString();
    llama_ = *llama;
  }
  std::unique_ptr<LlamaServer> Start(const LlamaServerOptions& options, const std::string& name) {
    auto server = LlamaServer::Start(llama_, options, LogPath(name));
    EXPECT_TRUE(server.ok()) << server.status().ToString();
    return server.ok() ? std::move(server).value() : nullptr;
  }
  BenchSettings Settings(const LlamaServer& server, int concurrency, bool chat) const {
    BenchSettings s;
    s.base_url = server.base_url();
    s.model = "tiny";
    s.backend = chat ? "openai-chat" : "openai";
    s.num_prompts = concurrency == 1 ? 12 : 32;
    s.max_concurrency = concurrency;
    s.random_input_len = 128;
    s.random_output_len = 64;
    s.ignore_eos = true;
    s.request_timeout_s = 60;
    // Shared CI cores: the client's lateness is measured elsewhere, not here.
    s.client_issue_delay_limit_ms = 1e9;
    return s;
  }
  RealLlama llama_;
};

struct LoadCase {
  const char* name;
  bool chat;
  int concurrency;
};
void PrintTo(const LoadCase& c, std::ostream* os) { *os << c.name; }

class LlamacppLoadTest : public LlamacppBenchTest,
                         public ::testing::WithParamInterface<LoadCase> {};

// The headline check: every request completes, the re-sends forced by llama-server's
// closing of each streamed connection are counted, and servebench's mean TPOT is
// within 25 % of the engine's own time per generated token over the same run.
TEST_P(LlamacppLoadTest, EveryRequestCompletesAndTpotMatchesTheEnginesOwnTime) {
  const LoadCase& c = GetParam();
  auto server = Start(LlamaServerOptions{}, c.name);
  ASSERT_NE(server, nullptr);
  BenchSettings b = Settings(*server, c.concurrency, c.chat);
  auto before = engine::testing::ScrapeLlamaMetrics(server->base_url());
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  auto r = RunBench(b);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto after = engine::testing::ScrapeLlamaMetrics(server->base_url());
  ASSERT_TRUE(after.ok()) << after.status().ToString();

  const metrics::RunSummary& s = r->summary;
  EXPECT_EQ(s.failed, 0) << metrics::FailureSummary(s);
  EXPECT_EQ(s.completed, b.num_prompts);
  EXPECT_EQ(s.total_output_tokens, b.num_prompts * b.random_output_len);
  EXPECT_EQ(s.n_sources.at("usage"), b.num_prompts);
  // llama-server closes after every streamed response without saying so: the client
  // saw it (a pooled connection found closed, or a request re-sent), then gave each
  // request a connection of its own.
  EXPECT_GE(r->self.reconnects + r->self.stale_connections, 1);
  EXPECT_GE(r->self.connections_opened, b.num_prompts);
  if (c.chat) {
    // Text prompts fitted to 128 tokens by llama.cpp's own tokenizer ({"content"}).
    std::string note(r->result.at("servebench").at("run").at("server_tokenizer").as_string());
    EXPECT_NE(note.find("llamacpp"), std::string::npos) << note;
    for (const metrics::RequestRecord& rec : r->records) {
      EXPECT_EQ(rec.client_prompt_tokens, 128);
      EXPECT_GT(rec.usage_prompt_tokens, 128);  // plus the chat template's tokens
    }
  }
  double predicted =
      after->at("llamacpp:tokens_predicted_total") - before->at("llamacpp:tokens_predicted_total");
  double predicted_s = after->at("llamacpp:tokens_predicted_seconds_total") -
                       before->at("llamacpp:tokens_predicted_seconds_total");
  ASSERT_GT(predicted, 0);
  double engine_ms = 1000 * predicted_s / predicted;
  EXPECT_NEAR(s.tpot.mean, engine_ms, 0.25 * engine_ms)
      << "servebench mean TPOT " << s.tpot.mean << " ms, engine " << engine_ms << " ms/token";
  std::printf(
      "REPORT llamacpp %s c=%d: %.2f req/s, %.0f output tok/s, mean TPOT %.3f ms, engine "
      "%.3f ms/token (ratio %.3f), mean TTFT %.2f ms, reconnects %lld, stale %lld\n",
      c.name, c.concurrency, s.request_throughput, s.output_throughput, s.tpot.mean, engine_ms,
      s.tpot.mean / engine_ms, s.ttft.mean, static_cast<long long>(r->self.reconnects),
      static_cast<long long>(r->self.stale_connections));
}

INSTANTIATE_TEST_SUITE_P(Real, LlamacppLoadTest,
                         ::testing::Values(LoadCase{"completions_c1", false, 1},
                                           LoadCase{"completions_c4", false, 4},
                                           LoadCase{"chat_c1", true, 1},
                                           LoadCase{"chat_c4", true, 4}),
                         [](const auto& info) { return std::string(info.param.name); });

// With a draft model (the target's first block, --spec-type draft-simple) the
// acceptance servebench reports is the one llama-server's counters give.
TEST_F(LlamacppBenchTest, DraftModelAcceptanceEqualsWhatMetricsSays) {
  LlamaServerOptions o;
  o.draft = "tiny-draft";
  auto server = Start(o, "draft");
  ASSERT_NE(server, nullptr);
  BenchSettings b = Settings(*server, 2, false);
  b.num_prompts = 8;
  b.spec_decoding = true;
  b.temperature = 0;
  auto before = engine::testing::ScrapeLlamaMetrics(server->base_url());
  auto r = RunBench(b);
  auto after = engine::testing::ScrapeLlamaMetrics(server->base_url());
  ASSERT_TRUE(r.ok() && before.ok() && after.ok());
  ASSERT_EQ(r->summary.failed, 0) << metrics::FailureSummary(r->summary);
  ASSERT_TRUE(r->summary.spec.has_value());
  ASSERT_TRUE(r->summary.spec->acceptance_length.has_value());
  double drafts = after->at("llamacpp:spec_decode_num_drafts_total") -
                  before->at("llamacpp:spec_decode_num_drafts_total");
  double accepted = after->at("llamacpp:spec_decode_num_accepted_tokens_total") -
                    before->at("llamacpp:spec_decode_num_accepted_tokens_total");
  ASSERT_GT(drafts, 0) << "the draft drafted nothing (was --spec-type draft-simple rendered?)";
  double al = 1 + accepted / drafts;
  EXPECT_DOUBLE_EQ(*r->summary.spec->acceptance_length, al);
  EXPECT_GT(al, 1.0);  // the draft agrees with its target some of the time
  std::printf(
      "REPORT llamacpp draft: acceptance length %.3f (%.0f drafts, %.0f accepted), "
      "%.0f output tok/s at c=2\n",
      al, drafts, accepted, r->summary.output_throughput);
}

// --spec-synth-len: llama-server accepts drafts to a target acceptance length.
TEST_F(LlamacppBenchTest, SyntheticAcceptanceIsNearItsTargetAndEqualsWhatMetricsSays) {
  LlamaServerOptions o;
  o.draft = "tiny-draft";
  o.synthetic_acceptance_length = 2.5;
  auto server = Start(o, "synth");
  ASSERT_NE(server, nullptr);
  BenchSettings b = Settings(*server, 2, false);
  b.num_prompts = 8;
  b.spec_decoding = true;
  auto r = RunBench(b);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->summary.failed, 0) << metrics::FailureSummary(r->summary);
  ASSERT_TRUE(r->summary.spec && r->summary.spec->acceptance_length);
  double al = *r->summary.spec->acceptance_length;
  EXPECT_NEAR(al, 2.5, 0.5);
  std::printf("REPORT llamacpp synthetic: --spec-synth-len 2.5 gave acceptance length %.3f\n", al);
}

// `servebench bench --backend openai-chat` with no --endpoint, as a vllm bench user
// types it: it reaches the chat API and every request completes.
TEST_F(LlamacppBenchTest, BenchCommandWithTheChatBackendAloneCompletesEveryRequest) {
  auto server = Start(LlamaServerOptions{}, "chat-cli");
  ASSERT_NE(server, nullptr);
  auto p = servebench::testing::RunProcess({SERVEBENCH_BIN,
                                            "bench",
                                            "--backend",
                                            "openai-chat",
                                            "--base-url",
                                            server->base_url(),
                                            "--model",
                                            "tiny",
                                            "--num-prompts",
                                            "8",
                                            "--max-concurrency",
                                            "4",
                                            "--random-input-len",
                                            "64",
                                            "--random-output-len",
                                            "16",
                                            "--ignore-eos",
                                            "--issue-delay-limit-ms",
                                            "1000",
                                            "--no-progress"},
                                           120);
  EXPECT_EQ(p.exit_code, kExitOk) << p.out << p.err;
  EXPECT_NE(p.out.find("Successful requests:                     8"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("Failed requests:                         0"), std::string::npos) << p.out;
}

// A run whose requests fail says why on the terminal: prompts longer than a slot's
// context are HTTP 400 from llama-server, named with its own message.
TEST_F(LlamacppBenchTest, FailedRunNamesTheFailureKindAndTheServersMessage) {
  LlamaServerOptions o;
  o.max_model_len = 256;
  auto server = Start(o, "too-long");
  ASSERT_NE(server, nullptr);
  auto p = servebench::testing::RunProcess(
      {SERVEBENCH_BIN, "bench", "--base-url", server->base_url(), "--model", "tiny",
       "--num-prompts", "4", "--max-concurrency", "2", "--random-input-len", "512",
       "--random-output-len", "16", "--issue-delay-limit-ms", "1000", "--no-progress"},
      120);
  EXPECT_EQ(p.exit_code, kExitRunInvalid) << p.out << p.err;
  EXPECT_NE(p.out.find("  4 http_status (HTTP 400: "), std::string::npos) << p.out;
  EXPECT_NE(p.err.find("4 of 4 requests failed: 4 http_status (HTTP 400: "), std::string::npos)
      << p.err;
  EXPECT_NE(p.err.find("exceeds the available context size"), std::string::npos) << p.err;
}

}  // namespace
}  // namespace servebench::client
