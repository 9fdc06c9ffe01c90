#include "search/slo_limit.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace servebench::search {

StatusOr<SloLimit> ParseSloLimit(std::string_view text) {
  size_t at = text.find("<=");
  if (at == std::string_view::npos) {
    return Status::InvalidArgument(fmt::format(
        "--slo '{}': must be <stat><=<ms>, e.g. ttft_p99_ms<=500 (only <= limits)", text));
  }
  auto stat = metrics::ParseStatSelector(text.substr(0, at));
  if (!stat.ok()) return Status::InvalidArgument("--slo " + stat.status().message());
  std::string_view number = text.substr(at + 2);
  double v = 0;
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
  if (ec != std::errc() || end != number.data() + number.size() || !(v > 0) || !std::isfinite(v)) {
    return Status::InvalidArgument(
        fmt::format("--slo '{}': the limit '{}' must be a number of ms > 0", text, number));
  }
  return SloLimit{*stat, v, std::string(text)};
}

std::vector<SloCheck> CheckSlos(const metrics::RunSummary& summary,
                                const std::vector<SloLimit>& limits) {
  std::vector<SloCheck> out;
  for (const SloLimit& l : limits) {
    SloCheck c;
    c.stat = l.stat.name;
    c.value = metrics::SelectStat(summary, l.stat);
    c.max_ms = l.max_ms;
    c.met = c.value && *c.value <= l.max_ms;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace servebench::search
