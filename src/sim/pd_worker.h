// What a simulated prefill or decode worker does beyond an aggregated server
// (`servebench sim --role prefill|decode`, kv_transfer.h for the request flow):
//
//   PrefillHandoff  the sink of a prefill-only request (kv_transfer_params
//                   do_remote_decode): when the engine has computed the prompt and
//                   sampled its token, it answers with one JSON completion carrying
//                   kv_transfer_params (KV bytes per GPU, TP, where the KV is).
//   PdMetrics       the KV transfer metrics under vLLM's NIXL names (disagg.md §6):
//                   vllm:nixl_xfer_time_seconds and vllm:nixl_bytes_transferred
//                   histograms (recorded by the decode side, which pulls), and
//                   vllm:nixl_num_failed_transfers; prefill: handoffs answered.
//
// A decode worker holds a request whose KV is remote for its transfer on the
// worker's KvLink, then submits it to the engine with the prompt's KV present
// (EngineRequest::kv_preloaded): it never computes a prefill for it, so its steps
// — and TPOT — do not grow with the prefill load (server.cc).
// Not thread-safe: the server's loop thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "sim/engine.h"
#include "sim/engine_metrics.h"
#include "sim/http_server.h"
#include "sim/kv_transfer.h"
#include "sim/openai_request.h"

namespace servebench::sim {

class PrefillHandoff final : public TokenSink {
 public:
  // `params` describes the KV the worker will hold (filled by the server);
  // `on_done` runs once the response is written or the client is gone.
  PrefillHandoff(HttpServer* http, ConnId conn, std::string request_id, std::string model,
                 Endpoint endpoint, int prompt_tokens, KvTransferParams params,
                 std::function<void()> on_done);
  void Start(Engine* engine, uint64_t engine_id) {
    engine_ = engine;
    engine_id_ = engine_id;
  }
  bool OnTokens(int count, FinishReason finish) override;
  void ConnectionLost();

 private:
  HttpServer* http_;
  ConnId conn_;
  std::string id_, model_;
  Endpoint endpoint_;
  int prompt_tokens_;
  KvTransferParams params_;
  std::function<void()> on_done_;
  Engine* engine_ = nullptr;
  uint64_t engine_id_ = 0;
  bool done_ = false;
};

struct PdMetrics {
  PdMetrics();
  Histogram xfer_time_seconds;  // decode: transfer time of each pulled KV (simulated s)
  Histogram bytes_transferred;  // decode: bytes per transfer (per decode GPU)
  uint64_t failed_transfers = 0;
  uint64_t kv_handoffs = 0;  // prefill: prompts computed and handed off
  // Prometheus text (label model_name, as the engine's metrics).
  std::string Render(const std::string& model_name) const;
};

}  // namespace servebench::sim
