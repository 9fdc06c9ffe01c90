// PredictDisaggregated: a closed-loop benchmark against a simulated disaggregated
// session in simulated time — the prefill engines, the decode engines with their KV
// links and the router's round-robin flow of `servebench sim --role ...`, with the
// same Engine, Scheduler, PerfModel and KvLink (kv_transfer.h), but no sockets and
// no waiting. What the live session's numbers must move like; the tests of
// docs/simulator.md "Roles" assert its effects (decode-only TPOT, TTFT with the
// transfer, throughput per GPU against the prefill:decode ratio).
//
// Per request: a prefill engine computes the prompt (max_tokens 1); the KV is
// reserved on the chosen decode engine's link (FIFO, bytes / bandwidth + latency);
// when it arrives the decode engine admits the request with its KV present and
// decodes osl tokens. TTFT is from the request's issue to the decode engine's first
// token; TPOT over the decode tokens. Per GPU as metrics.md §6: total / (P + D),
// output / D, input / P.
// Thread-safe (pure function of its inputs).
#pragma once

#include "common/status.h"
#include "sim/engine.h"
#include "sim/predict.h"

namespace servebench::sim {

struct DisaggSession {
  int prefill_replicas = 1;
  int decode_replicas = 1;
  const PerfModel* prefill_perf = nullptr;  // one prefill replica
  const PerfModel* decode_perf = nullptr;   // one decode replica
  SchedulerSettings prefill_scheduler, decode_scheduler;
  EngineSettings engine;  // speculative decoding applies to decode
  double kv_link_gb_per_s = 50;
  double kv_link_latency_us = 20;
};

struct DisaggPredictedPoint {
  PredictedPoint point;  // latency and throughput; its per-GPU fields are over P + D
  int prefill_gpus = 0, decode_gpus = 0;
  double tput_per_gpu = 0;         // total tok/s / (P + D)
  double output_tput_per_gpu = 0;  // output tok/s / D
  double input_tput_per_gpu = 0;   // input tok/s / P
  double mean_transfer_ms = 0;     // KV transfer alone (no queueing on the link)
  double mean_link_wait_ms = 0;    // waiting for the link, on top of the transfer
  // Fraction of the run each role's engines spent in steps (1 = never idle): the role
  // near 1 is the session's bottleneck.
  double prefill_busy = 0, decode_busy = 0;
};

StatusOr<DisaggPredictedPoint> PredictDisaggregated(const DisaggSession& session,
                                                    const PredictLoad& load);

}  // namespace servebench::sim
