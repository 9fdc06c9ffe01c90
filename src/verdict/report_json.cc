#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include "verdict/report.h"

namespace servebench::verdict {
namespace {

namespace json = boost::json;

json::object BuildJson(const Build& b) {
  return {{"date", b.date}, {"image", b.image}, {"commit", b.commit}};
}

}  // namespace

std::string RenderJson(const Report& r) {
  json::object counts;
  for (Verdict v :
       {Verdict::kRegression, Verdict::kMissing, Verdict::kInvalid, Verdict::kBlocked,
        Verdict::kImprovement, Verdict::kUnblocked, Verdict::kNew, Verdict::kUnchanged}) {
    counts[VerdictName(v)] = r.Count(v);
  }
  json::array verdicts;
  for (const SeriesVerdict& sv : r.verdicts) {
    json::array metrics;
    for (const MetricVerdict& m : sv.metrics) {
      json::object o{{"metric", m.metric},
                     {"counted", m.counted},
                     {"outcome", MetricOutcomeName(m.outcome)},
                     {"suspect", m.suspect},
                     {"confirmed_by", ConfirmationName(m.confirmed_by)},
                     {"value", m.value},
                     {"baseline", m.baseline},
                     {"baseline_nights", m.baseline_nights},
                     {"change_rel", m.change_rel},
                     {"worse_rel", m.worse_rel},
                     {"noise_rel", m.noise_rel},
                     {"threshold_rel", m.threshold_rel},
                     {"rule", m.rule}};
      o["p_value"] = m.p_value >= 0 ? json::value(m.p_value) : json::value(nullptr);
      metrics.push_back(std::move(o));
    }
    json::array cps;
    for (const ChangePointReport& cp : sv.change_points) {
      cps.push_back(json::object{{"metric", cp.metric},
                                 {"first_bad", BuildJson(cp.first_bad)},
                                 {"last_good", BuildJson(cp.last_good)},
                                 {"change_rel", cp.change_rel},
                                 {"worse_rel", cp.worse_rel},
                                 {"p", cp.p}});
    }
    verdicts.push_back(json::object{{"series_id", sv.series_id},
                                    {"label", sv.label},
                                    {"kind", sv.kind},
                                    {"status", VerdictName(sv.verdict)},
                                    {"note", sv.note},
                                    {"severity", sv.severity},
                                    {"build", BuildJson(sv.build)},
                                    {"metrics", std::move(metrics)},
                                    {"change_points", std::move(cps)}});
  }
  json::object root{{"date", r.date},
                    {"exit_code", r.ExitCode()},
                    {"counts", std::move(counts)},
                    {"verdicts", std::move(verdicts)}};
  return json::serialize(root) + "\n";
}

}  // namespace servebench::verdict
