// What a capture puts into a point: speculative decoding read off the command, the
// client's load (chat template → servebench's chat path), and the command itself.
#include "capture/apply_capture.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace servebench::capture {
namespace {

using recipe::AcceptanceMode;
using recipe::SpecMethod;
using ::testing::HasSubstr;

TEST(DescribeSpecTest, VllmJsonConfigGivesMethodDraftLengthAndSyntheticAcceptance) {
  recipe::SpecDecoding spec;
  spec.method = SpecMethod::kMtp;
  spec.num_speculative_tokens = 3;
  DescribeSpec({"vllm", "serve", "m", "--speculative-config",
                R"({"method": "eagle3", "model": "org/d", "num_speculative_tokens": 4,)"
                R"( "attention_backend": "TRITON_ATTN", "rejection_sample_method": "synthetic",)"
                R"( "synthetic_acceptance_length": 2.78})"},
               {}, &spec);
  EXPECT_EQ(spec.method, SpecMethod::kEagle3);
  EXPECT_EQ(spec.draft_model, "org/d");
  EXPECT_EQ(spec.num_speculative_tokens, 4);
  EXPECT_EQ(spec.acceptance, AcceptanceMode::kSyntheticTarget);
  EXPECT_DOUBLE_EQ(spec.synthetic_acceptance_length, 2.78);
  EXPECT_EQ(spec.extra, (std::map<std::string, std::string>{{"attention_backend", "TRITON_ATTN"}}));
}

TEST(DescribeSpecTest, DottedVllmConfigAndEngineSpecificMethodsStayMtp) {
  recipe::SpecDecoding spec;
  DescribeSpec({"vllm", "serve", "m", "--speculative-config.method", "deepseek_mtp",
                "--speculative-config.num_speculative_tokens", "2"},
               {}, &spec);
  EXPECT_EQ(spec.method, SpecMethod::kMtp);
  EXPECT_EQ(spec.num_speculative_tokens, 2);
  EXPECT_EQ(spec.extra.at("method"), "deepseek_mtp");
  EXPECT_EQ(spec.acceptance, AcceptanceMode::kReal);
  recipe::SpecDecoding dspark;
  DescribeSpec({"vllm", "serve", "m", "--speculative-config",
                R"({"method": "dspark", "model": "org/dspark", "num_speculative_tokens": 5})"},
               {}, &dspark);
  EXPECT_EQ(dspark.method, SpecMethod::kMtp);
  EXPECT_EQ(dspark.draft_model, "") << "only eagle, eagle3 and draft_model name a draft";
  EXPECT_EQ(dspark.extra.at("model"), "org/dspark");
}

TEST(DescribeSpecTest, SglangFlagsAndSimulatedAcceptance) {
  recipe::SpecDecoding spec;
  DescribeSpec({"python3", "-m", "sglang.launch_server", "--speculative-algorithm", "EAGLE3",
                "--speculative-draft-model-path", "org/d", "--speculative-num-steps", "3",
                "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4"},
               {{"SGLANG_SIMULATE_ACC_LEN", "2.5"}}, &spec);
  EXPECT_EQ(spec.method, SpecMethod::kEagle3);
  EXPECT_EQ(spec.draft_model, "org/d");
  EXPECT_EQ(spec.num_speculative_tokens, 3);
  EXPECT_EQ(spec.acceptance, AcceptanceMode::kSyntheticTarget);
  EXPECT_DOUBLE_EQ(spec.synthetic_acceptance_length, 2.5);
  EXPECT_EQ(spec.extra.at("speculative-num-draft-tokens"), "4");
  recipe::SpecDecoding untouched;
  untouched.method = SpecMethod::kMtp;
  untouched.num_speculative_tokens = 3;
  DescribeSpec({"trtllm-serve", "m", "--extra_llm_api_options=x.yml"}, {}, &untouched);
  EXPECT_EQ(untouched.method, SpecMethod::kMtp) << "a config file's spec stays as labelled";
}

TEST(ApplyClientTest, BenchmarkServingFlagsBecomeTheLoadAndTheChatTemplateTheChatPath) {
  recipe::LoadSpec load;
  load.concurrency = 4;
  auto notes = ApplyClient({"python3",
                            "/workspace/utils/bench_serving/benchmark_serving.py",
                            "--model",
                            "m",
                            "--backend",
                            "vllm",
                            "--dataset-name",
                            "random",
                            "--random-input-len",
                            "8192",
                            "--random-output-len",
                            "1024",
                            "--random-range-ratio",
                            "0.8",
                            "--num-prompts",
                            "40",
                            "--max-concurrency",
                            "4",
                            "--request-rate",
                            "inf",
                            "--ignore-eos",
                            "--num-warmups",
                            "8",
                            "--use-chat-template",
                            "--trust-remote-code"},
                           &load);
  EXPECT_EQ(load.isl, 8192);
  EXPECT_EQ(load.osl, 1024);
  EXPECT_DOUBLE_EQ(load.random_range_ratio, 0.8);
  EXPECT_EQ(load.num_prompts, 40);
  EXPECT_EQ(load.concurrency, 4);
  EXPECT_EQ(load.request_rate_per_s, 0);
  EXPECT_TRUE(load.ignore_eos);
  EXPECT_EQ(load.num_warmups, 0);
  EXPECT_EQ(load.warmups_per_concurrency, 2);
  EXPECT_EQ(load.backend, "openai-chat");
  EXPECT_EQ(load.endpoint, "/v1/chat/completions");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_THAT(notes[0], HasSubstr("client --trust-remote-code is not carried"));
  recipe::LoadSpec plain;
  plain.concurrency = 3;
  ApplyClient({"python3", "benchmark_serving.py", "--backend", "openai", "--max-concurrency", "3",
               "--num-warmups", "4"},
              &plain);
  EXPECT_EQ(plain.endpoint, "/v1/completions");
  EXPECT_FALSE(plain.ignore_eos);
  EXPECT_EQ(plain.num_warmups, 4) << "not a multiple of the concurrency: kept as a count";
  recipe::LoadSpec agentic;
  agentic.scenario = "agentic-coding";
  agentic.endpoint = "/v1/chat/completions";
  EXPECT_TRUE(ApplyClient({"aiperf", "profile", "--concurrency", "4"}, &agentic).empty());
  EXPECT_EQ(agentic.endpoint, "/v1/chat/completions");
  EXPECT_EQ(agentic.concurrency, 4);
}

// InferenceX's build_replay_cmd as its agentic scripts run it: the lanes and the
// duration become the load, the lane settings servebench shares pass silently, and
// one that differs (a fast-mode warm-up) or has no counterpart is noted.
TEST(ApplyCaptureTest, AnAgenticClientGivesTheLanesAndTheDurationAndNotesWhatDiffers) {
  recipe::LoadSpec load;
  load.scenario = "agentic-coding";
  load.duration_s = 3600;
  std::vector<std::string> replay = {"/opt/aiperf/bin/aiperf",
                                     "profile",
                                     "--scenario",
                                     "inferencex-agentx-mvp",
                                     "--url",
                                     "http://localhost:8888",
                                     "--endpoint",
                                     "/v1/chat/completions",
                                     "--streaming",
                                     "--concurrency",
                                     "16",
                                     "--benchmark-duration",
                                     "1200",
                                     "--random-seed",
                                     "42",
                                     "--trajectory-start-min-ratio",
                                     "0.25",
                                     "--trajectory-start-max-ratio",
                                     "0.75",
                                     "--warmup-requests-per-lane",
                                     "1",
                                     "--trace-idle-gap-cap-seconds",
                                     "300",
                                     "--failed-request-threshold",
                                     "0.05"};
  std::vector<std::string> notes = ApplyClient(replay, &load);
  EXPECT_EQ(load.concurrency, 16);
  EXPECT_EQ(load.duration_s, 1200);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0],
            "client --warmup-requests-per-lane 1 differs from servebench's agentic lanes, which "
            "replay with 10");
  EXPECT_THAT(notes[1], HasSubstr("client --failed-request-threshold 0.05 is not carried"));
}

TEST(ApplyCaptureTest, ThePointRunsTheCapturedCommand) {
  LaunchCapture c;
  c.script = "benchmarks/single_node/fixed_seq_len/m_fp8_h200.sh";
  c.argv = {"vllm", "serve", "/models/m", "--served-model-name", "org/m", "--port", "8888"};
  c.port = 8888;
  c.env = {{"VLLM_X", "1"}};
  c.env_from = {{"HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"}};
  c.prepare = {{"hf", "download", "org/m"}};
  c.client_argv = {"python3",    "benchmark_serving.py", "--model",
                   "org/served", "--max-concurrency",    "2"};
  recipe::Point p;
  p.serve.model = "org/m";
  p.serve.extra_args = {"--stale"};
  p.serve.env = {{"OLD", "1"}};
  ApplyCapture(c, &p);
  EXPECT_EQ(p.serve.command.argv, c.argv);
  EXPECT_EQ(p.serve.command.source, "inferencex:" + c.script);
  EXPECT_EQ(p.serve.env, c.env);
  EXPECT_EQ(p.serve.env_from, c.env_from);
  EXPECT_EQ(p.serve.prepare, c.prepare);
  EXPECT_TRUE(p.serve.extra_args.empty());
  EXPECT_EQ(p.serve.served_model_name, "org/served");
  EXPECT_EQ(p.load.concurrency, 2);
}

}  // namespace
}  // namespace servebench::capture
