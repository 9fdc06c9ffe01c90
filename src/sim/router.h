// SimRouter: `servebench sim --role router` — the router of a simulated serve session
// (docs/simulator.md "Roles"). The client talks to it as to one OpenAI server.
//
// Disaggregated (--prefill URL... --decode URL...), per request, vLLM's flow
// (kv_transfer.h): the prompt goes to a prefill worker with max_tokens 1, stream
// false and kv_transfer_params {do_remote_decode: true}; its answer's
// kv_transfer_params are copied into the original request, which is then sent to a
// decode worker and its response (SSE stream or JSON) relayed to the client as it
// arrives. Aggregated (--worker URL...): the request goes to one worker, relayed.
// Workers are picked by --policy (round_robin, random) among the healthy ones.
//
// Readiness: GET /health answers 200 once every worker's /health does (polled every
// --health-poll-ms), so a session is ready only when the whole topology is.
// /v1/models is a worker's. /metrics counts routed requests and errors with the
// SGLang router's names (disagg.md §6): sgl_router_pd_requests_total,
// sgl_router_pd_prefill_requests_total{worker}, sgl_router_pd_decode_requests_total
// {worker}, sgl_router_pd_errors_total. Errors are logged with the SGLang router's
// words, so the failure classifier reads a simulated session as a real one ("No
// available prefill workers", "Stream error from decode server").
// The router adds no simulated time. Single-threaded: one EventLoop.
#pragma once

#include <memory>

#include "common/status.h"
#include "sim/sim.h"
#include "sim/sim_settings.h"

namespace servebench::sim {

// Builds the router `settings.role` describes (role must be kRouter); binds its port.
StatusOr<std::unique_ptr<SimServer>> CreateSimRouter(const SimSettings& settings);

}  // namespace servebench::sim
