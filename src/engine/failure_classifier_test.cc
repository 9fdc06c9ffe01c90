#include "engine/failure_classifier.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace servebench::engine {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const SignatureCatalog& Signatures() {
  static const EngineCatalog* catalog = [] {
    auto loaded = LoadEngineCatalog(std::string(SERVEBENCH_SOURCE_DIR) + "/data/engine");
    EXPECT_TRUE(loaded.ok()) << loaded.status().ToString();
    return new EngineCatalog(std::move(loaded).value());
  }();
  return catalog->signatures;
}

EngineFailure Classify(const std::string& log, Situation situation = Situation::kDiedBeforeReady) {
  return ClassifyFailure(log, situation, "engine exited with code 1 before it became ready",
                         Signatures());
}

TEST(FailureClassifierTest, SeedEagle3LineIsClassifiedAndQuoted) {
  const std::string log =
      "INFO 08-20 10:00:01 api_server.py:100] vLLM API server version 0.11.0\n"
      "ERROR 08-20 10:01:12 core.py:700] ValueError: Model does not support EAGLE3 interface but "
      "aux_hidden_state_outputs was requested\n"
      "ERROR 08-20 10:01:12 core.py:701] Engine core initialization failed. See root cause "
      "above.\n";
  EngineFailure f = Classify(log);
  EXPECT_EQ(f.failure_class.name(), "server.spec.eagle3_unsupported");
  EXPECT_EQ(f.line_number, 2);
  EXPECT_THAT(
      f.summary,
      HasSubstr("log line 2: \"ERROR 08-20 10:01:12 core.py:700] ValueError: Model does not "
                "support EAGLE3 interface"));
  EXPECT_THAT(f.summary, HasSubstr("engine exited with code 1 before it became ready"));
}

TEST(FailureClassifierTest, FirstMatchingLineWinsOverLaterConsequences) {
  const std::string log =
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
      "NCCL error: unhandled system error\n";
  EXPECT_EQ(Classify(log).failure_class.name(), "server.oom.weights");
}

TEST(FailureClassifierTest, SecondaryLineCountsOnlyWithoutAPrimaryOne) {
  EXPECT_EQ(
      Classify("Engine core initialization failed. See root cause above.\n").failure_class.name(),
      "server.engine_init_failed");
  EXPECT_EQ(Classify("Engine core initialization failed.\n[Errno 98] Address already in use\n")
                .failure_class.name(),
            "infra.port_in_use");
}

TEST(FailureClassifierTest, OutOfMemoryNearGraphCaptureIsCudagraphElseWeights) {
  const std::string capture =
      "INFO Capturing CUDA graph shapes: 100%\nRuntimeError: CUDA error: out of memory\n"
      "  File \"torch/cuda/graphs.py\", line 88, in capture_end\n";
  EXPECT_EQ(Classify(capture).failure_class.name(), "server.oom.cudagraph");
  EXPECT_EQ(Classify("RuntimeError: CUDA error: out of memory\n").failure_class.name(),
            "server.oom.weights");
}

TEST(FailureClassifierTest, EveryCatalogueClassHasAWorkingSignature) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate", "server.oom.weights"},
      {"ValueError: No available memory for the cache blocks.", "server.oom.kv_cache"},
      {"RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.",
       "server.oom.kv_cache"},
      {"CUDA_ERROR_ILLEGAL_ADDRESS (700)", "server.kernel.illegal_address"},
      {"trtllm_batched_gemm_runner failed: numBatches=512", "server.kernel.gemm_runner"},
      {"AssertionError: assert sm_100 <= arch <= sm_110f", "server.arch_unsupported"},
      {"RuntimeError: q2k_indices must be contiguous", "server.model_bug"},
      {"OSError: [Errno 98] Address already in use", "infra.port_in_use"},
      {"torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970",
       "server.nccl"},
      {"[Rank 3] Watchdog caught collective operation timeout: WorkNCCL", "server.nccl"},
      {"enroot-nsenter: failed to create user namespace: Permission denied",
       "infra.container_userns"},
      {"docker: permission denied while trying to connect to the docker API at "
       "unix:///var/run/docker.sock",
       "infra.docker_socket"},
      {"write /var/lib/docker/tmp: No space left on device", "infra.disk_full"},
      {"srun: error: pyxis is broken", "infra.node_unhealthy"},
      {"docker: Error response from daemon: manifest unknown: manifest unknown.",
       "image.not_found"},
      {"huggingface_hub.errors.GatedRepoError: 401 Client Error.", "model.access"},
      {"servebench: cannot execute vllm (errno 2)", "infra.command_not_found"},
  };
  for (const auto& [line, expected] : cases) {
    EXPECT_EQ(Classify("INFO boot\n" + line + "\n").failure_class.name(), expected) << line;
  }
}

TEST(FailureClassifierTest, NoSignatureGivesTheSituationClassAndQuotesTheLastLine) {
  EngineFailure f =
      ClassifyFailure("loading weights\nstill loading\n\n", Situation::kReadinessTimeout,
                      "engine not ready after 30 s", Signatures());
  EXPECT_EQ(f.failure_class.name(), "server.readiness_timeout");
  EXPECT_THAT(f.summary, HasSubstr("last line: \"still loading\""));
  EXPECT_EQ(
      ClassifyFailure("", Situation::kDiedDuringRun, "died", Signatures()).failure_class.name(),
      "server.died_during_run");
  EXPECT_EQ(
      ClassifyFailure("", Situation::kDiedBeforeReady, "x", Signatures()).failure_class.name(),
      "server.died_before_ready");
}

TEST(FailureClassifierTest, WithoutASignatureTheErrorLineIsQuotedNotTheHintAfterIt) {
  EngineFailure f = ClassifyFailure(
      "starting server\nerror: --ctx-size abc is not a number\n"
      "Run with --help for more information.\n",
      Situation::kDiedBeforeReady, "engine exited with code 1 before it became ready",
      Signatures());
  EXPECT_EQ(f.failure_class, failure_class::kServerDiedBeforeReady);
  EXPECT_FALSE(f.signature_matched);
  EXPECT_EQ(f.line_number, 2);
  EXPECT_THAT(f.summary, HasSubstr("log line 2: \"error: --ctx-size abc is not a number\""));
  EXPECT_THAT(f.summary, Not(HasSubstr("--help for more")));
}

TEST(FailureClassifierTest, SummaryLeavesTheClassToTheCaller) {
  EngineFailure f =
      ClassifyFailure("error: boom\n", Situation::kDiedBeforeReady, "exited", Signatures());
  EXPECT_THAT(f.summary, Not(HasSubstr(f.failure_class.name())));
}

TEST(FailureClassifierTest, MissingLogFileClassifiesAsEmptyLog) {
  EngineFailure f =
      ClassifyLogFile("/nonexistent/engine.log", Situation::kDiedDuringRun, "died", Signatures());
  EXPECT_EQ(f.failure_class.name(), "server.died_during_run");
  EXPECT_THAT(f.summary, HasSubstr("the log is empty"));
}

// One log line per disaggregated/multi-node signature of disagg.md §4, each as the
// engine, router or launcher prints it, classified as the reference says.
TEST(FailureClassifierTest, DisaggregatedSessionSignaturesGetTheirReferenceClasses) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"[2026-08-20 10:00:01 DP0 TP0] Some requests fail to receive KV Cache transfer done "
       "signal after bootstrapping. These requests will be aborted.",
       "disagg.kv_wait_timeout"},
      {"Decode transfer failed for request rid=7: KVTransferError(bootstrap_room=12): Request "
       "12 timed out after 300.0s in KVPoll.WaitingForInput",
       "disagg.kv_wait_timeout"},
      {"Prefill bootstrap failed for request rid=3: timed out in KVPoll.Bootstrapping",
       "disagg.bootstrap_timeout"},
      {"ERROR router: No available prefill workers (all circuits open or unhealthy)",
       "router.no_workers"},
      {"Stream error from decode server: error decoding response body", "router.decode_stream"},
      {"ERROR nixl_connector.py:412] Remote NIXL agent engine ID mismatch. Expected abc",
       "disagg.nixl_handshake"},
      {"E nixl: NIXL_ERR_REMOTE_DISCONNECT while posting transfer", "disagg.nixl_disconnect"},
      {"WARNING nixl_connector.py:900] Releasing expired KV blocks for request cmpl-1",
       "disagg.kv_lease_expired"},
      {"RuntimeError: Worker failed with error 'UCX', please check the stack trace",
       "disagg.ucx_init"},
      {"UCX ERROR cuMemImportFromShareableHandle failed: invalid resource handle",
       "disagg.ucx_mnnvl"},
      {"[TRT-LLM] Terminating generation request 17 due to KV cache transfer timeout",
       "disagg.kv_transfer_timeout"},
      {"nats: maximum payload exceeded", "infra.nats_payload"},
      {"ERROR dynamo: no instances found for endpoint dyn://dynamo.prefill.generate",
       "dynamo.no_instances"},
      {"ERROR srtctl: Server did not become healthy after 720 attempts",
       "server.readiness_timeout"},
      {"[E ProcessGroupGloo.cpp:144] gloo: Connection reset by peer", "server.dist_reset"},
      {"ERROR: RDMA QoS/DCQCN pre-flight check failed on node 3", "infra.rdma_qos"},
      {"ERROR: local sglang server (pid 4242) died", "server.died_before_ready"},
      {"srun: error: Invalid --segment specification", "infra.sbatch_directive"},
  };
  for (const auto& [line, expected] : cases) {
    EXPECT_EQ(Classify("INFO starting\n" + line + "\n").failure_class.name(), expected) << line;
  }
  // An abort is a consequence: the cause further back wins.
  EXPECT_EQ(Classify("Prefill bootstrap failed for request r: KVPoll.Bootstrapping\n"
                     "KVTransferError(room=1): Aborted by AbortReq\n")
                .failure_class.name(),
            "disagg.bootstrap_timeout");
  EXPECT_EQ(Classify("KVTransferError(room=1): Aborted by AbortReq\n").failure_class.name(),
            "disagg.aborted");
}

}  // namespace
}  // namespace servebench::engine
