#include "verdict/curve_history.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "verdict/curve_scores.h"

namespace servebench::verdict {

std::vector<SeriesHistory> BuildCurveHistories(const std::vector<SeriesHistory>& points,
                                               const VerdictSettings& settings) {
  std::map<std::string, std::vector<const SeriesHistory*>> groups;
  for (const SeriesHistory& h : points) {
    if (!h.curve_id.empty()) groups[h.curve_id].push_back(&h);
  }
  std::vector<SeriesHistory> out;
  for (const auto& [curve_id, members] : groups) {
    if (members.size() < 2) continue;
    // date -> (points, a build seen that night, any member failed)
    struct Night {
      std::vector<CurvePoint> pts;
      Build build;
    };
    std::map<std::string, Night> nights;
    for (const SeriesHistory* m : members) {
      for (const Observation& o : m->nights) {
        Night& night = nights[o.build.date];
        if (night.build.date.empty()) night.build = o.build;
        if (o.status != NightStatus::kOk) continue;
        auto x = o.metrics.find("median_intvty");
        auto y = o.metrics.find("tput_per_gpu");
        if (x == o.metrics.end() || y == o.metrics.end() || x->second <= 0) continue;
        night.pts.push_back({x->second, y->second, night.pts.size()});
      }
    }
    std::map<std::string, std::vector<CurvePoint>> frontiers;
    std::vector<double> lows, highs;
    for (const auto& [date, night] : nights) {
      if (night.pts.size() < 2) continue;
      std::vector<CurvePoint> f = metrics::ParetoFrontier(night.pts);
      if (f.size() < 2) continue;
      lows.push_back(f.front().intvty);
      highs.push_back(f.back().intvty);
      frontiers[date] = std::move(f);
    }
    // Fixed range: nearly every night covers it (80th percentile of the lower
    // ends, 20th of the upper ends), so the nightly jitter of the end points does
    // not move the score while a real loss of coverage still lowers it.
    std::sort(lows.begin(), lows.end());
    std::sort(highs.begin(), highs.end());
    double lo = lows.empty() ? 0 : lows[lows.size() * 4 / 5];
    double hi = highs.empty() ? 0 : highs[highs.size() / 5];
    SeriesHistory curve;
    curve.series_id = "curve:" + curve_id;
    curve.label = members.front()->curve_label.empty() ? curve_id : members.front()->curve_label;
    for (const auto& [date, night] : nights) {
      Observation o;
      o.build = night.build;
      auto f = frontiers.find(date);
      if (f == frontiers.end()) {
        o.status = NightStatus::kInvalid;
        o.reason = fmt::format("{} valid points on the curve; scores need 2 on the frontier",
                               night.pts.size());
        curve.nights.push_back(std::move(o));
        continue;
      }
      if (auto auc = ParetoAuc(f->second, lo, hi)) o.metrics["pareto_auc"] = *auc;
      for (double target : settings.intvty_targets) {
        if (auto y = TputAtIntvty(f->second, target)) {
          o.metrics[fmt::format("tput_at_intvty({:g})", target)] = *y;
        }
      }
      curve.nights.push_back(std::move(o));
    }
    out.push_back(std::move(curve));
  }
  return out;
}

}  // namespace servebench::verdict
