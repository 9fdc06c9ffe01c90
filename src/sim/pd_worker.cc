#include "sim/pd_worker.h"

#include <fmt/format.h>

#include "common/clock.h"
#include "common/json_string.h"

namespace servebench::sim {

PrefillHandoff::PrefillHandoff(HttpServer* http, ConnId conn, std::string request_id,
                               std::string model, Endpoint endpoint, int prompt_tokens,
                               KvTransferParams params, std::function<void()> on_done)
    : http_(http),
      conn_(conn),
      id_(std::move(request_id)),
      model_(std::move(model)),
      endpoint_(endpoint),
      prompt_tokens_(prompt_tokens),
      params_(std::move(params)),
      on_done_(std::move(on_done)) {}

bool PrefillHandoff::OnTokens(int count, FinishReason finish) {
  if (done_) return false;
  if (finish == FinishReason::kNone && count == 0) return true;
  done_ = true;
  // The prompt is computed and its token sampled: hand the KV off. (max_tokens is 1,
  // so the first delivery finishes the request.)
  std::string body =
      fmt::format("{{\"id\":\"{}\",\"object\":\"{}\",\"created\":{},\"model\":", id_,
                  endpoint_ == Endpoint::kChat ? "chat.completion" : "text_completion",
                  RealtimeNowNs() / 1000000000);
  AppendJsonString(&body, model_);
  body += endpoint_ == Endpoint::kChat
              ? ",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"\"},"
                "\"finish_reason\":\"length\"}]"
              : ",\"choices\":[{\"index\":0,\"text\":\"\",\"logprobs\":null,"
                "\"finish_reason\":\"length\"}]";
  fmt::format_to(std::back_inserter(body),
                 ",\"usage\":{{\"prompt_tokens\":{},\"total_tokens\":{},\"completion_tokens\":1}}"
                 ",\"kv_transfer_params\":",
                 prompt_tokens_, prompt_tokens_ + 1);
  body += KvTransferParamsJson(params_) + "}";
  http_->Respond(conn_, 200, "application/json", body);
  on_done_();
  return false;
}

void PrefillHandoff::ConnectionLost() {
  if (done_) return;
  done_ = true;
  if (engine_ != nullptr) engine_->Abort(engine_id_);
  on_done_();
}

namespace {
std::vector<double> TransferBuckets() {
  return {0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0};
}
std::vector<double> ByteBuckets() { return {1e5, 1e6, 1e7, 5e7, 1e8, 5e8, 1e9, 5e9, 1e10}; }
}  // namespace

PdMetrics::PdMetrics() : xfer_time_seconds(TransferBuckets()), bytes_transferred(ByteBuckets()) {}

std::string PdMetrics::Render(const std::string& model_name) const {
  std::string out;
  const std::string labels = fmt::format("model_name=\"{}\"", model_name);
  out +=
      "# HELP vllm:nixl_xfer_time_seconds KV transfer time of each pulled request (simulated).\n";
  out += "# TYPE vllm:nixl_xfer_time_seconds histogram\n";
  xfer_time_seconds.Render("vllm:nixl_xfer_time_seconds", labels, &out);
  out += "# HELP vllm:nixl_bytes_transferred KV bytes one decode GPU pulled per request.\n";
  out += "# TYPE vllm:nixl_bytes_transferred histogram\n";
  bytes_transferred.Render("vllm:nixl_bytes_transferred", labels, &out);
  out += "# TYPE vllm:nixl_num_failed_transfers counter\n";
  out += fmt::format("vllm:nixl_num_failed_transfers{{{}}} {}\n", labels, failed_transfers);
  out += "# HELP servebench:kv_handoffs_total Prompts a prefill worker computed and handed off.\n";
  out += "# TYPE servebench:kv_handoffs_total counter\n";
  out += fmt::format("servebench:kv_handoffs_total{{{}}} {}\n", labels, kv_handoffs);
  return out;
}

}  // namespace servebench::sim
