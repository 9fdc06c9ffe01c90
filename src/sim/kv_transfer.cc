#include "sim/kv_transfer.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>

#include "common/json_string.h"
#include "sim/role_settings.h"

namespace servebench::sim {
namespace json = boost::json;

const char* SimRoleName(SimRole role) {
  switch (role) {
    case SimRole::kAggregated:
      return "aggregated";
    case SimRole::kPrefill:
      return "prefill";
    case SimRole::kDecode:
      return "decode";
    case SimRole::kRouter:
      return "router";
  }
  return "aggregated";
}

Status Validate(const RoleSettings& s) {
  const bool router = s.role == SimRole::kRouter;
  const bool pd = !s.prefill_urls.empty() || !s.decode_urls.empty();
  if (!router && (pd || !s.worker_urls.empty())) {
    return Status::InvalidArgument(fmt::format(
        "--prefill/--decode/--worker: only a router (--role router) has workers; this is --role "
        "{}",
        SimRoleName(s.role)));
  }
  if (router) {
    if (pd && !s.worker_urls.empty()) {
      return Status::InvalidArgument(
          "--worker with --prefill/--decode: a router fronts either prefill and decode workers "
          "(disaggregated) or aggregated workers, not both");
    }
    if (pd && (s.prefill_urls.empty() || s.decode_urls.empty())) {
      return Status::InvalidArgument(fmt::format(
          "--prefill {} URL(s), --decode {} URL(s): a disaggregated router needs at least one of "
          "each",
          s.prefill_urls.size(), s.decode_urls.size()));
    }
    if (!pd && s.worker_urls.empty()) {
      return Status::InvalidArgument(
          "--role router needs workers: --prefill URL... --decode URL... or --worker URL...");
    }
    for (const auto* list : {&s.prefill_urls, &s.decode_urls, &s.worker_urls}) {
      for (const auto& url : *list) {
        if (url.rfind("http://", 0) != 0) {
          return Status::InvalidArgument(
              fmt::format("worker URL '{}': must be http://host:port", url));
        }
      }
    }
    if (s.policy != "round_robin" && s.policy != "random") {
      return Status::InvalidArgument(
          fmt::format("--policy {}: allowed: round_robin, random", s.policy));
    }
  }
  if (!(s.kv_link_gb_per_s > 0) || !(s.kv_link_latency_us >= 0)) {
    return Status::InvalidArgument(fmt::format(
        "--kv-link-gb-per-s {} / --kv-link-latency-us {}: bandwidth must be > 0, latency >= 0",
        s.kv_link_gb_per_s, s.kv_link_latency_us));
  }
  return Status::Ok();
}

std::optional<KvTransferParams> ParseKvTransferParams(const json::value& v, std::string* error) {
  if (!v.is_object()) {
    *error = "'kv_transfer_params' must be an object";
    return std::nullopt;
  }
  KvTransferParams p;
  for (const auto& kv : v.as_object()) {
    const std::string_view k = kv.key();
    const json::value& x = kv.value();
    auto bad = [&](const char* what) {
      *error = fmt::format("'kv_transfer_params.{}' must be {}", k, what);
      return std::nullopt;
    };
    if (k == "do_remote_decode" || k == "do_remote_prefill") {
      if (!x.is_bool()) return bad("true or false");
      (k == "do_remote_decode" ? p.do_remote_decode : p.do_remote_prefill) = x.as_bool();
    } else if (k == "remote_engine_id" || k == "remote_host" || k == "kv_connector") {
      if (!x.is_string() && !x.is_null()) return bad("a string");
      if (x.is_string()) {
        std::string s(x.as_string());
        (k == "remote_engine_id" ? p.remote_engine_id
         : k == "remote_host"    ? p.remote_host
                                 : p.kv_connector) = std::move(s);
      }
    } else if (k == "session_arrival_mono_ns") {
      if (!x.is_int64() || x.as_int64() < 0) return bad("an integer >= 0");
      p.session_arrival_mono_ns = x.as_int64();
    } else if (k == "remote_port" || k == "prompt_tokens" || k == "prefill_tp") {
      if (!x.is_int64() || x.as_int64() < 0 || x.as_int64() > (1 << 30))
        return bad("an integer >= 0");
      const int n = static_cast<int>(x.as_int64());
      (k == "remote_port"     ? p.remote_port
       : k == "prompt_tokens" ? p.prompt_tokens
                              : p.prefill_tp) = n;
    } else if (k == "kv_bytes_per_gpu") {
      if (!x.is_int64() || x.as_int64() < 0) return bad("an integer >= 0");
      p.kv_bytes_per_gpu = x.as_int64();
    } else {
      // vLLM's other keys (remote_block_ids, tp_size, ...) are accepted and unused.
    }
  }
  if (p.prefill_tp < 1) p.prefill_tp = 1;
  return p;
}

std::string KvTransferParamsJson(const KvTransferParams& p) {
  std::string out = "{\"do_remote_decode\":false,\"do_remote_prefill\":true,\"remote_engine_id\":";
  AppendJsonString(&out, p.remote_engine_id);
  out += ",\"remote_host\":";
  AppendJsonString(&out, p.remote_host);
  out += fmt::format(
      ",\"remote_port\":{},\"prompt_tokens\":{},\"kv_bytes_per_gpu\":{},"
      "\"prefill_tp\":{},\"kv_connector\":",
      p.remote_port, p.prompt_tokens, p.kv_bytes_per_gpu, p.prefill_tp);
  AppendJsonString(&out, p.kv_connector);
  return out + "}";
}

double KvLink::TransferSeconds(int64_t decode_bytes_per_gpu, int64_t prefill_bytes_per_gpu) const {
  const double bytes = static_cast<double>(std::max(decode_bytes_per_gpu, prefill_bytes_per_gpu));
  return latency_s_ + bytes / bytes_per_s_;
}

double KvLink::Reserve(double now_s, int64_t decode_bytes_per_gpu, int64_t prefill_bytes_per_gpu) {
  const double start = std::max(now_s, free_at_s_);
  free_at_s_ = start + TransferSeconds(decode_bytes_per_gpu, prefill_bytes_per_gpu);
  return free_at_s_;
}

}  // namespace servebench::sim
