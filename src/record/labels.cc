#include "record/labels.h"

#include <fmt/format.h>

#include <cstdlib>

namespace servebench::record {

std::string ConfigLabel(const Deployment& d) {
  std::string label;
  if (!d.topology.empty()) {
    // A serve session of several processes: its roles carry their own parallelism.
    label = fmt::format("{} P{} D{}", d.topology, d.prefill_gpus, d.decode_gpus);
  } else if (d.prefill_gpus > 0) {
    // Multinode: each role has its own parallelism; the GPUs per role tell them apart.
    label = fmt::format("disagg P{} D{}", d.prefill_gpus, d.decode_gpus);
  } else {
    label = fmt::format("tp{}", d.tp);
    if (d.pp > 1) label += fmt::format(" pp{}", d.pp);
    if (d.pcp_size > 1) label += fmt::format(" pcp{}", d.pcp_size);
    if (d.ep > 1) label += fmt::format(" ep{}", d.ep);
    if (d.dp_attn) label += " dpa";
    if (d.disagg) label += " disagg";
  }
  if (d.spec_method != recipe::SpecMethod::kNone) {
    label += fmt::format(" {}", recipe::SpecMethodName(d.spec_method));
    if (d.num_speculative_tokens > 0) label += fmt::format(" n{}", d.num_speculative_tokens);
  }
  return label;
}

std::string WorkloadLabel(const Record& r) {
  std::string w = fmt::format("{} · {} · {}", r.recipe, r.model, r.hardware);
  if (r.isl && r.osl) w += fmt::format(" · {}/{}", *r.isl, *r.osl);
  return w;
}

std::string CurveLabel(const Record& r) {
  std::string label = fmt::format("{} {} {} {}", r.recipe, r.model, r.hardware, r.engine);
  if (r.isl && r.osl) label += fmt::format(" {}/{}", *r.isl, *r.osl);
  return label;
}

std::string SeriesLabel(const Record& r) {
  std::string label = CurveLabel(r) + " " + ConfigLabel(r.deployment);
  if (r.concurrency) label += fmt::format(" c{}", *r.concurrency);
  return label;
}

std::optional<double> SimTimeScale(const Record& r) {
  if (!r.simulated) return std::nullopt;
  // Records since schema 2 carry the scale; older ones only in their point.
  if (r.time_scale) return *r.time_scale == 1 ? std::nullopt : r.time_scale;
  if (!r.point) return std::nullopt;
  const boost::json::object* serve =
      r.point->if_contains("serve") ? r.point->at("serve").if_object() : nullptr;
  if (serve == nullptr || !serve->contains("sim_options")) return std::nullopt;
  const boost::json::object* options = serve->at("sim_options").if_object();
  if (options == nullptr || !options->contains("time-scale")) return std::nullopt;
  const boost::json::string* text = options->at("time-scale").if_string();
  if (text == nullptr) return std::nullopt;
  char* end = nullptr;
  double scale = std::strtod(text->c_str(), &end);
  if (end == text->c_str() || *end != '\0' || !(scale >= 0) || scale == 1) return std::nullopt;
  return scale;
}

}  // namespace servebench::record
