// KV transfer between a simulated prefill worker and a decode worker.
//
// The request flow is vLLM's disaggregated one (its toy proxy and NixlConnector,
// disagg.md §2.3): the router sends the prompt to a prefill worker with
// max_tokens 1, stream false and "kv_transfer_params": {"do_remote_decode": true};
// the prefill worker computes the prompt (one engine prefill, the step that ends it
// samples the first token) and answers with "kv_transfer_params" describing the KV
// it holds; the router copies those into the original request and streams it from a
// decode worker, which pulls the KV and only decodes.
//
// Transfer time (simulated seconds), at the decode worker:
//   t = latency + max(B_d / bw, (B_p × tp_p) / (tp_p × bw)) = latency + max(B_d, B_p) / bw
// where B_d is the KV bytes one decode GPU holds for the prompt (its shard), B_p the
// bytes one prefill GPU sends, bw the per-GPU link bandwidth: each decode GPU pulls
// its shard over its own link, each prefill GPU serves its own share over its own.
// Transfers queue on the decode worker's links (FIFO): a burst of prompts waits its
// turn, so TTFT includes the queueing the link causes.
// Not thread-safe: the server's loop thread only.
#pragma once

#include <boost/json/fwd.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace servebench::sim {

// The kv_transfer_params of a request or a prefill response.
struct KvTransferParams {
  bool do_remote_decode = false;   // to a prefill worker: prefill only, keep the KV
  bool do_remote_prefill = false;  // to a decode worker: the KV is remote, pull it
  std::string remote_engine_id;    // the prefill worker that holds the KV
  std::string remote_host;
  int remote_port = 0;
  int prompt_tokens = 0;         // tokens whose KV is held
  int64_t kv_bytes_per_gpu = 0;  // B_p: what one prefill GPU holds and sends
  int prefill_tp = 1;
  std::string kv_connector;
  // To a decode worker, from the sim router: when the router received the request
  // (CLOCK_MONOTONIC ns; 0 = not given). The decode worker stamps it, in the session's
  // shared simulated clock, as the request's arrival, so the client's TTFT spans the
  // prefill and the KV transfer as it does at time scale 1.
  int64_t session_arrival_mono_ns = 0;
};

// Parses a request's "kv_transfer_params" object. nullopt with `error` set (naming
// the key) when it is malformed.
std::optional<KvTransferParams> ParseKvTransferParams(const boost::json::value& v,
                                                      std::string* error);

// The JSON object a prefill worker answers with (do_remote_prefill true).
std::string KvTransferParamsJson(const KvTransferParams& p);

// The decode worker's links: FIFO over one shared per-GPU bandwidth.
class KvLink {
 public:
  KvLink(double gb_per_s, double latency_us)
      : bytes_per_s_(gb_per_s * 1e9), latency_s_(latency_us * 1e-6) {}
  // Reserves a transfer of max(decode_bytes_per_gpu, prefill_bytes_per_gpu) bytes
  // starting no earlier than `now_s` (simulated seconds); returns when it completes.
  double Reserve(double now_s, int64_t decode_bytes_per_gpu, int64_t prefill_bytes_per_gpu);
  // The transfer time alone (no queueing), for reports and tests.
  double TransferSeconds(int64_t decode_bytes_per_gpu, int64_t prefill_bytes_per_gpu) const;
  double busy_until_s() const { return free_at_s_; }

 private:
  double bytes_per_s_;
  double latency_s_;
  double free_at_s_ = 0;
};

}  // namespace servebench::sim
