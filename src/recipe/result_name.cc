#include "recipe/result_name.h"

#include <fmt/format.h>

namespace servebench::recipe {
namespace {

const char* Bool(bool b) { return b ? "true" : "false"; }

// The row's worker fields as the workflow exports them (PREFILL_TP, ..., *_NUM_WORKERS).
std::string Role(const char* name, const WorkerSpec& w) {
  return fmt::format("{}-tp{}-pp{}-dcp{}-pcp{}-ep{}-dp{}-nw{}", name, w.tp, w.pp, w.dcp_size,
                     w.pcp_size, w.ep, Bool(w.dp_attn), w.num_workers);
}

}  // namespace

const char* InferenceXSpecName(SpecMethod m) {
  switch (m) {
    case SpecMethod::kNone:
      return "none";
    case SpecMethod::kDraftModel:
      return "draft_model";
    default:
      return "mtp";
  }
}

std::string InferenceXResultName(const Point& point, const std::string& runner_node,
                                 const std::vector<int>& session_concurrencies) {
  const ServeSpec& s = point.serve;
  const std::string framework = s.framework.empty() ? s.engine : s.framework;
  const std::string head = fmt::format("{}_{}_{}", point.exp_name, s.precision, framework);
  if (!s.multinode) {
    return fmt::format("{}_tp{}-pp{}-dcp{}-pcp{}-ep{}-dpa{}_disagg-false_spec-{}_conc{}_{}", head,
                       s.tp, s.pp, s.dcp_size, s.pcp_size, s.ep, Bool(s.dp_attn),
                       InferenceXSpecName(s.spec.method), point.load.concurrency, runner_node);
  }
  std::string concs;
  for (int c : session_concurrencies) concs += (concs.empty() ? "" : "x") + std::to_string(c);
  if (concs.empty()) concs = std::to_string(point.load.concurrency);
  return fmt::format("{}_{}_{}_disagg-{}_spec-{}_conc{}_{}", head, Role("prefill", s.prefill),
                     Role("decode", s.decode), Bool(s.disagg), InferenceXSpecName(s.spec.method),
                     concs, runner_node);
}

std::string MultinodeResultFile(const std::string& base, int concurrency, int prefill_gpus,
                                int decode_gpus) {
  if (decode_gpus <= 0)
    return fmt::format("{}_conc{}_gpus_{}.json", base, concurrency, prefill_gpus);
  return fmt::format("{}_conc{}_gpus_{}_ctx_{}_gen_{}.json", base, concurrency,
                     prefill_gpus + decode_gpus, prefill_gpus, decode_gpus);
}

}  // namespace servebench::recipe
