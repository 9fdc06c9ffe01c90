#include "verdict/judge.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "common/exit_codes.h"
#include "verdict/accuracy_gate.h"
#include "verdict/curve_history.h"
#include "verdict/metric_catalogue.h"
#include "verdict/robust_stats.h"

namespace servebench::verdict {

std::string_view VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kRegression:
      return "regression";
    case Verdict::kMissing:
      return "missing";
    case Verdict::kInvalid:
      return "invalid";
    case Verdict::kBlocked:
      return "blocked";
    case Verdict::kImprovement:
      return "improvement";
    case Verdict::kUnblocked:
      return "unblocked";
    case Verdict::kNew:
      return "new";
    case Verdict::kUnchanged:
      return "unchanged";
  }
  return "?";
}

size_t Report::Count(Verdict verdict) const {
  return static_cast<size_t>(
      std::count_if(verdicts.begin(), verdicts.end(),
                    [&](const SeriesVerdict& v) { return v.verdict == verdict; }));
}

bool SeriesVerdict::GateFailedOnly() const {
  if (verdict != Verdict::kRegression) return false;
  bool gate = false;
  for (const MetricVerdict& m : metrics) {
    if (!m.counted || m.outcome != MetricOutcome::kRegression) continue;
    if (m.confirmed_by != Confirmation::kFloor) return false;
    gate = true;
  }
  return gate;
}

int Report::ExitCode() const {
  bool gate_failed = false;
  for (const SeriesVerdict& v : verdicts) {
    if (v.verdict != Verdict::kRegression) continue;
    if (!v.GateFailedOnly()) return kExitRegression;
    gate_failed = true;
  }
  return gate_failed ? kExitGateFailed : kExitOk;
}

namespace {

// Stage 0 for an ok observation: "" when it may be compared, else why not.
std::string Stage0Problem(const Observation& o, const VerdictSettings& s) {
  if (s.require_build_identity && (o.build.image.empty() || o.build.commit.empty())) {
    return "build identity missing (build.image and build.commit are required)";
  }
  if (o.metrics.empty() && o.accuracy.empty()) return "no judged metric in the record";
  for (const auto& [name, value] : o.metrics) {
    if (!std::isfinite(value)) return fmt::format("{} is not a finite number", name);
  }
  auto tput = o.metrics.find("tput_per_gpu");
  if (tput != o.metrics.end() && tput->second <= 0) {
    return fmt::format("tput_per_gpu = {}: a served run has positive throughput", tput->second);
  }
  return "";
}

bool IsValid(const Observation& o, const VerdictSettings& s) {
  return o.status == NightStatus::kOk && Stage0Problem(o, s).empty();
}

// Folds the metric verdicts into the series verdict (counted metrics only).
void Combine(SeriesVerdict& sv) {
  bool any_regression = false, any_improvement = false, any_judged = false, any_suspect = false;
  sv.severity = 0;
  for (const MetricVerdict& m : sv.metrics) {
    if (!m.counted) continue;
    if (m.outcome != MetricOutcome::kInsufficient) any_judged = true;
    if (m.outcome == MetricOutcome::kRegression) {
      any_regression = true;
      sv.severity = std::max(sv.severity, -m.worse_rel);
    }
    if (m.outcome == MetricOutcome::kImprovement) any_improvement = true;
    any_suspect = any_suspect || m.suspect;
  }
  if (any_regression) {
    sv.verdict = Verdict::kRegression;
  } else if (any_improvement) {
    sv.verdict = Verdict::kImprovement;
  } else if (!any_judged) {
    sv.verdict = Verdict::kNew;
    if (sv.note.empty()) {
      for (const MetricVerdict& m : sv.metrics) {
        if (m.counted) {
          sv.note = "too little history: " + m.rule;
          break;
        }
      }
    }
  } else {
    sv.verdict = Verdict::kUnchanged;
    if (any_suspect && sv.note.empty()) sv.note = "suspect: flagged tonight, not confirmed";
  }
}

MetricVerdict JudgeOneMetric(const MetricSpec& spec, const std::vector<const Observation*>& valid,
                             const VerdictSettings& s, std::vector<ChangePointReport>& cps_out) {
  MetricSeries ms;
  std::vector<const Observation*> nights;
  for (const Observation* o : valid) {
    auto it = o->metrics.find(spec.name);
    if (it == o->metrics.end()) continue;
    ms.values.push_back(it->second);
    auto raw = o->raw_runs.find(spec.name);
    ms.raw_runs.push_back(raw == o->raw_runs.end() ? std::vector<double>{} : raw->second);
    nights.push_back(o);
  }
  size_t n = ms.values.size();
  double sign = spec.better == Better::kHigher ? 1.0 : -1.0;
  // Stage 2 over the longer history: segments and first bad builds.
  std::vector<ChangePoint> cps = FindChangePoints(ms.values, s);
  size_t seg_start = 0;
  const ChangePoint* last_cp = nullptr;
  for (const ChangePoint& cp : cps) {
    // A split with only the minimum segment after it is forced to the edge (a step
    // on the last two nights lands one night early), so it neither names a build
    // nor starts a segment until one more night has come in.
    if (cp.index + s.change_point_min_segment >= n) continue;
    if (cp.index + s.window_nights < n) {
      seg_start = cp.index;
      last_cp = &cp;
    }
    if (cp.index + s.change_point_report_nights >= n && cp.index > 0) {
      cps_out.push_back({spec.name, nights[cp.index]->build, nights[cp.index - 1]->build,
                         cp.change_rel, sign * cp.change_rel, cp.p});
    }
  }
  MetricSeries seg;
  seg.values.assign(ms.values.begin() + static_cast<long>(seg_start), ms.values.end());
  seg.raw_runs.assign(ms.raw_runs.begin() + static_cast<long>(seg_start), ms.raw_runs.end());
  MetricVerdict mv = GateMetric(spec, seg, s);
  if (mv.outcome == MetricOutcome::kInsufficient && last_cp != nullptr) {
    mv.outcome = MetricOutcome::kUnchanged;
    mv.rule = fmt::format("baseline re-forming after the {:+.2f} % change at {}",
                          100 * last_cp->change_rel, nights[last_cp->index]->build.date);
  }
  if ((mv.outcome == MetricOutcome::kRegression || mv.outcome == MetricOutcome::kImprovement) &&
      mv.first_moved_nights_ago + 1 < n) {
    const Build& first = nights[n - 1 - mv.first_moved_nights_ago]->build;
    const Build& good = nights[n - 2 - mv.first_moved_nights_ago]->build;
    mv.rule += fmt::format("; first moved with {} {} ({}), last good {} {} ({})", first.image,
                           first.commit, first.date, good.image, good.commit, good.date);
  }
  return mv;
}

}  // namespace

SeriesVerdict JudgeSeries(const SeriesHistory& h, const std::string& date,
                          const VerdictSettings& s) {
  SeriesVerdict sv;
  sv.series_id = h.series_id;
  sv.label = h.label;
  const Observation* tonight = nullptr;
  std::vector<const Observation*> past;
  for (const Observation& o : h.nights) {
    if (o.build.date < date) past.push_back(&o);
    if (o.build.date == date) tonight = &o;
  }
  if (tonight == nullptr) {
    sv.verdict = Verdict::kMissing;
    sv.note = "no record tonight";
    return sv;
  }
  sv.build = tonight->build;
  const Observation* last_valid = nullptr;
  std::vector<const Observation*> valid;
  for (const Observation* o : past) {
    if (IsValid(*o, s)) {
      valid.push_back(o);
      last_valid = o;
    }
  }
  switch (tonight->status) {
    case NightStatus::kBlocked:
      sv.verdict = Verdict::kBlocked;
      sv.note = tonight->reason.empty() ? "known blocked" : tonight->reason;
      return sv;
    case NightStatus::kFailed:
      if (last_valid != nullptr) {
        sv.verdict = Verdict::kRegression;
        sv.severity = 1;  // a run that no longer completes is worse than any slowdown
        sv.note =
            fmt::format("failed ({}) after passing on {}", tonight->reason, last_valid->build.date);
      } else {
        sv.verdict = Verdict::kInvalid;
        sv.note =
            fmt::format("failed ({}); it never passed, so nothing regressed", tonight->reason);
      }
      return sv;
    case NightStatus::kInvalid:
      sv.verdict = Verdict::kInvalid;
      sv.note = tonight->reason;
      return sv;
    case NightStatus::kOk:
      break;
  }
  if (std::string problem = Stage0Problem(*tonight, s); !problem.empty()) {
    sv.verdict = Verdict::kInvalid;
    sv.note = problem;
    return sv;
  }
  if (past.empty()) {
    sv.verdict = Verdict::kNew;
    sv.note = "first night of this series";
    return sv;
  }
  if (valid.size() > s.change_point_history_nights) {
    valid.erase(valid.begin(), valid.end() - static_cast<long>(s.change_point_history_nights));
  }
  valid.push_back(tonight);
  for (const MetricSpec& spec : AllMetrics()) {
    if (tonight->metrics.count(spec.name) == 0) continue;
    sv.metrics.push_back(JudgeOneMetric(spec, valid, s, sv.change_points));
  }
  for (const AccuracyResult& acc : tonight->accuracy) {
    // This task's earlier valid results, newest first.
    std::vector<const AccuracyResult*> earlier;
    for (auto it = valid.rbegin() + 1; it != valid.rend(); ++it) {
      for (const AccuracyResult& a : (*it)->accuracy) {
        if (a.task == acc.task) earlier.push_back(&a);
      }
    }
    // The last good night: the newest earlier result that was not itself a
    // regression against the one before it, so a drop that persists stays red.
    const AccuracyResult* last_good = nullptr;
    for (size_t i = 0; i < earlier.size() && last_good == nullptr; ++i) {
      const AccuracyResult* before = i + 1 < earlier.size() ? earlier[i + 1] : nullptr;
      if (JudgeAccuracy(*earlier[i], before, s).outcome != MetricOutcome::kRegression)
        last_good = earlier[i];
    }
    sv.metrics.push_back(JudgeAccuracy(acc, last_good, s));
  }
  Combine(sv);
  if (sv.verdict != Verdict::kRegression && past.back()->status == NightStatus::kBlocked) {
    sv.verdict = Verdict::kUnblocked;
    sv.note = fmt::format("passed after being blocked on {} ({})", past.back()->build.date,
                          past.back()->reason);
  }
  return sv;
}

StatusOr<Report> Judge(const std::vector<SeriesHistory>& histories,
                       const std::set<std::string>& expected, const std::string& date,
                       const VerdictSettings& s) {
  std::set<std::string> dates;
  for (const SeriesHistory& h : histories) {
    for (const Observation& o : h.nights) dates.insert(o.build.date);
  }
  Report report;
  report.date = date;
  if (date.empty()) {
    if (dates.empty()) return report;  // nothing at all: an empty report, never green
    report.date = *dates.rbegin();
  } else if (dates.count(date) == 0) {
    return Status::InvalidArgument(fmt::format(
        "--date {}: no record is from that night (the data has {} nights{}); pick one of them "
        "or leave --date out for the latest",
        date, dates.size(), dates.empty() ? "" : ", " + *dates.begin() + " .. " + *dates.rbegin()));
  }
  std::vector<std::string> earlier(dates.begin(), dates.lower_bound(report.date));
  std::set<std::string> lookback(
      earlier.end() - static_cast<long>(std::min(earlier.size(), s.missing_lookback_nights)),
      earlier.end());
  std::set<std::string> seen;
  for (const SeriesHistory& h : histories) {
    seen.insert(h.series_id);
    bool tonight = false;
    const Observation* last = nullptr;
    for (const Observation& o : h.nights) {
      if (o.build.date == report.date) tonight = true;
      if (o.build.date < report.date) last = &o;
    }
    if (tonight) {
      report.verdicts.push_back(JudgeSeries(h, report.date, s));
      continue;
    }
    bool recent = last != nullptr && lookback.count(last->build.date) > 0;
    if (expected.count(h.series_id) > 0 || recent) {
      SeriesVerdict sv;
      sv.series_id = h.series_id;
      sv.label = h.label;
      sv.verdict = Verdict::kMissing;
      sv.note = last == nullptr ? "expected by the recipes; no record tonight"
                                : fmt::format("no record tonight; last reported {} ({})",
                                              last->build.date, NightStatusName(last->status));
      report.verdicts.push_back(std::move(sv));
    }
  }
  for (const std::string& id : expected) {
    if (seen.count(id) > 0) continue;
    SeriesVerdict sv;
    sv.series_id = id;
    sv.label = id;
    sv.verdict = Verdict::kMissing;
    sv.note = "expected by the recipes; never reported";
    report.verdicts.push_back(std::move(sv));
  }
  for (const SeriesHistory& curve : BuildCurveHistories(histories, s)) {
    bool tonight = std::any_of(curve.nights.begin(), curve.nights.end(),
                               [&](const Observation& o) { return o.build.date == report.date; });
    if (!tonight) continue;
    SeriesVerdict sv = JudgeSeries(curve, report.date, s);
    sv.kind = "curve";
    report.verdicts.push_back(std::move(sv));
  }
  // Multiplicity: the night's rerun confirmations pass Benjamini-Hochberg together.
  std::vector<std::pair<SeriesVerdict*, MetricVerdict*>> tested;
  std::vector<double> ps;
  for (SeriesVerdict& sv : report.verdicts) {
    for (MetricVerdict& m : sv.metrics) {
      if (m.confirmed_by == Confirmation::kRerun) {
        tested.emplace_back(&sv, &m);
        ps.push_back(m.p_value);
      }
    }
  }
  std::vector<bool> keep = BenjaminiHochberg(ps, s.fdr_q);
  for (size_t i = 0; i < tested.size(); ++i) {
    if (keep[i]) continue;
    tested[i].second->outcome = MetricOutcome::kUnchanged;
    tested[i].second->confirmed_by = Confirmation::kNone;
    tested[i].second->suspect = true;
    tested[i].second->rule += fmt::format(" (not kept at FDR q = {})", s.fdr_q);
    Combine(*tested[i].first);
  }
  std::stable_sort(report.verdicts.begin(), report.verdicts.end(),
                   [](const SeriesVerdict& a, const SeriesVerdict& b) {
                     if (a.verdict != b.verdict) return a.verdict < b.verdict;
                     if (a.severity != b.severity) return a.severity > b.severity;
                     return a.label < b.label;
                   });
  return report;
}

}  // namespace servebench::verdict
