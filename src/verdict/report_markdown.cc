#include <fmt/format.h>

#include <set>

#include "verdict/report.h"

namespace servebench::verdict {
namespace {

// A table cell: '|' would end the cell and a newline the row.
std::string Cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string Pct(double v) { return fmt::format("{:+.2f} %", 100 * v); }
std::string Num(double v) { return fmt::format("{:.4g}", v); }

// One row per metric that decided or moved; statuses without numbers get one row.
void Rows(const SeriesVerdict& sv, std::string& out) {
  std::string status(VerdictName(sv.verdict));
  if (sv.kind == "curve") status += " (curve)";
  bool any = false;
  bool judged = sv.verdict == Verdict::kRegression || sv.verdict == Verdict::kImprovement ||
                sv.verdict == Verdict::kUnchanged || sv.verdict == Verdict::kUnblocked;
  if (judged) {
    for (const MetricVerdict& m : sv.metrics) {
      bool show = m.outcome == MetricOutcome::kRegression ||
                  m.outcome == MetricOutcome::kImprovement || m.suspect;
      // Derived metrics move with the ones they derive from; JSON keeps them.
      if (!show || !m.counted) continue;
      bool accuracy = m.metric.rfind("accuracy:", 0) == 0;
      out +=
          fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", status, Cell(sv.label),
                      m.metric, Num(m.value), Num(m.baseline),
                      accuracy ? fmt::format("{:+.2f} pts", 100 * m.change_rel) : Pct(m.change_rel),
                      accuracy ? "-" : fmt::format("{:.2f} %", 100 * m.noise_rel),
                      accuracy ? fmt::format("{:.2f} pts", 100 * m.threshold_rel)
                               : fmt::format("{:.2f} %", 100 * m.threshold_rel),
                      Cell(m.rule));
      any = true;
    }
  }
  if (!any) {
    out += fmt::format("| {} | {} | | | | | | | {} |\n", status, Cell(sv.label), Cell(sv.note));
  } else if (!sv.note.empty()) {
    out += fmt::format("| | | | | | | | | {} |\n", Cell(sv.note));
  }
}

}  // namespace

std::string RenderMarkdown(const Report& r) {
  std::string out =
      fmt::format("## servebench regress: night of {}\n\n", r.date.empty() ? "(no data)" : r.date);
  if (r.verdicts.empty()) {
    out += "Nothing to compare: no records for this night and no expected series.\n";
    return out;
  }
  out += fmt::format(
      "**{} regression{}**, {} missing, {} invalid, {} blocked, {} improvement{}, {} unblocked, "
      "{} new, {} unchanged ({} series). Exit status {}.\n\n",
      r.Count(Verdict::kRegression), r.Count(Verdict::kRegression) == 1 ? "" : "s",
      r.Count(Verdict::kMissing), r.Count(Verdict::kInvalid), r.Count(Verdict::kBlocked),
      r.Count(Verdict::kImprovement), r.Count(Verdict::kImprovement) == 1 ? "" : "s",
      r.Count(Verdict::kUnblocked), r.Count(Verdict::kNew), r.Count(Verdict::kUnchanged),
      r.verdicts.size(), r.ExitCode());
  std::set<std::string> builds;
  for (const SeriesVerdict& sv : r.verdicts) {
    if (!sv.build.image.empty() || !sv.build.commit.empty()) {
      builds.insert(fmt::format("`{}` {}", sv.build.image, sv.build.commit));
    }
  }
  if (!builds.empty()) {
    std::string list;
    for (const std::string& b : builds) list += (list.empty() ? "" : ", ") + b;
    out += fmt::format("Build{} judged: {}.\n\n", builds.size() == 1 ? "" : "s", list);
  }
  out += "| Status | Series | Metric | Tonight | Baseline | Change | Noise | Threshold | Rule |\n";
  out += "|---|---|---|---|---|---|---|---|---|\n";
  size_t unchanged = 0;
  for (const SeriesVerdict& sv : r.verdicts) {
    bool quiet = sv.verdict == Verdict::kUnchanged && sv.note.empty();
    if (quiet) {
      ++unchanged;
      continue;
    }
    Rows(sv, out);
  }
  if (unchanged > 0)
    out += fmt::format("\n{} series unchanged within noise (not listed).\n", unchanged);
  bool header = false;
  for (const SeriesVerdict& sv : r.verdicts) {
    for (const ChangePointReport& cp : sv.change_points) {
      if (!header) {
        out += "\n### Change points (first bad build)\n\n";
        out +=
            "| Series | Metric | Last good | First bad | Change | p |\n|---|---|---|---|---|---|\n";
        header = true;
      }
      out += fmt::format("| {} | {} | {} {} {} | {} {} {} | {} | {:.2g} |\n", Cell(sv.label),
                         cp.metric, cp.last_good.date, cp.last_good.image, cp.last_good.commit,
                         cp.first_bad.date, cp.first_bad.image, cp.first_bad.commit,
                         Pct(cp.change_rel), cp.p);
    }
  }
  return out;
}

}  // namespace servebench::verdict
