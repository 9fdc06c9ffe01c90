#include "telemetry/role_gpus.h"

#include <fmt/format.h>

#include <set>

namespace servebench::telemetry {

std::optional<RoleGpus> RoleGpusOf(const std::vector<SessionWorker>& workers,
                                   const std::vector<GpuInfo>& sampled, std::string* why) {
  why->clear();
  bool prefill = false, decode = false;
  for (const SessionWorker& w : workers) {
    prefill = prefill || w.role == "prefill";
    decode = decode || w.role == "decode";
  }
  if (!prefill || !decode) return std::nullopt;
  RoleGpus out;
  std::set<std::string> assigned;
  for (const SessionWorker& w : workers) {
    std::vector<std::string>* role = w.role == "prefill"  ? &out.prefill
                                     : w.role == "decode" ? &out.decode
                                                          : nullptr;
    if (role == nullptr) continue;
    for (int index : w.gpus) {
      const GpuInfo* match = nullptr;
      for (const GpuInfo& g : sampled) {
        if (g.endpoint == w.metrics_url && g.index == index) match = &g;
      }
      if (match == nullptr) {
        *why = fmt::format(
            "no prefill/decode split: the {} worker at {} runs on GPU {}, which no sampled GPU "
            "of that endpoint is",
            w.role, w.metrics_url, index);
        return std::nullopt;
      }
      role->push_back(match->key);
      assigned.insert(match->key);
    }
  }
  for (const GpuInfo& g : sampled) {
    if (assigned.count(g.key) == 0) {
      *why = fmt::format("no prefill/decode split: sampled GPU {} ({}) belongs to no worker", g.key,
                         g.endpoint.empty() ? "a local source" : g.endpoint);
      return std::nullopt;
    }
  }
  return out;
}

}  // namespace servebench::telemetry
