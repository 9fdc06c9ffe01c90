#include "record/labels.h"

#include <fmt/format.h>

namespace servebench::record {

std::string ConfigLabel(const Deployment& d) {
  std::string label = fmt::format("tp{}", d.tp);
  if (d.ep > 1) label += fmt::format(" ep{}", d.ep);
  if (d.dp_attn) label += " dpa";
  if (d.spec_method != recipe::SpecMethod::kNone) {
    label +=
        fmt::format(" {} n{}", recipe::SpecMethodName(d.spec_method), d.num_speculative_tokens);
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
  std::string label = CurveLabel(r);
  if (r.concurrency) label += fmt::format(" c{}", *r.concurrency);
  return label;
}

}  // namespace servebench::record
