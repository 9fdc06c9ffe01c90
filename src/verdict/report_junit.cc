#include <fmt/format.h>

#include "common/markup.h"
#include "verdict/report.h"

namespace servebench::verdict {
namespace {

std::string Details(const SeriesVerdict& sv) {
  std::string d;
  if (!sv.note.empty()) d += sv.note + "\n";
  for (const MetricVerdict& m : sv.metrics) {
    d += fmt::format(
        "{}: {} tonight {:.4g} baseline {:.4g} change {:+.2f} % noise {:.2f} % threshold {:.2f} "
        "%{}\n",
        m.metric, MetricOutcomeName(m.outcome), m.value, m.baseline, 100 * m.change_rel,
        100 * m.noise_rel, 100 * m.threshold_rel, m.rule.empty() ? "" : " (" + m.rule + ")");
  }
  return d;
}

std::string Message(const SeriesVerdict& sv) {
  for (const MetricVerdict& m : sv.metrics) {
    if (m.outcome == MetricOutcome::kRegression) {
      return fmt::format("{} {:+.2f} % vs baseline {:.4g}: {}", m.metric, 100 * m.change_rel,
                         m.baseline, m.rule);
    }
  }
  return sv.note.empty() ? std::string(VerdictName(sv.verdict)) : sv.note;
}

}  // namespace

std::string RenderJunit(const Report& r) {
  size_t failures = r.Count(Verdict::kRegression) + r.Count(Verdict::kMissing);
  size_t errors = r.Count(Verdict::kInvalid);
  size_t skipped = r.Count(Verdict::kBlocked) + r.Count(Verdict::kNew);
  std::string cases;
  for (const SeriesVerdict& sv : r.verdicts) {
    cases += fmt::format("    <testcase classname=\"servebench.regress.{}\" name=\"{} [{}]\">\n",
                         sv.kind, EscapeMarkup(sv.label), EscapeMarkup(sv.series_id.substr(0, 12)));
    std::string msg = EscapeMarkup(Message(sv));
    switch (sv.verdict) {
      case Verdict::kRegression:
      case Verdict::kMissing:
        cases += fmt::format("      <failure type=\"{}\" message=\"{}\">{}</failure>\n",
                             VerdictName(sv.verdict), msg, EscapeMarkup(Details(sv)));
        break;
      case Verdict::kInvalid:
        cases += fmt::format("      <error type=\"invalid\" message=\"{}\"/>\n", msg);
        break;
      case Verdict::kBlocked:
      case Verdict::kNew:
        cases += fmt::format("      <skipped message=\"{}: {}\"/>\n", VerdictName(sv.verdict), msg);
        break;
      default:
        cases += fmt::format("      <system-out>{}: {}</system-out>\n", VerdictName(sv.verdict),
                             EscapeMarkup(Details(sv)));
    }
    cases += "    </testcase>\n";
  }
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<testsuites name=\"servebench regress\" tests=\"{0}\" failures=\"{1}\" errors=\"{2}\" "
      "skipped=\"{3}\">\n"
      "  <testsuite name=\"night {4}\" tests=\"{0}\" failures=\"{1}\" errors=\"{2}\" "
      "skipped=\"{3}\">\n"
      "{5}  </testsuite>\n</testsuites>\n",
      r.verdicts.size(), failures, errors, skipped, EscapeMarkup(r.date), cases);
}

}  // namespace servebench::verdict
