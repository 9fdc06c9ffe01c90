#include "run/report.h"

#include <fmt/format.h>

#include <map>

#include "metrics/pareto.h"
#include "record/labels.h"
#include "record/record_builder.h"
#include "record/role_metrics_view.h"

namespace servebench::run {
namespace {

using record::RecordStatus;

// A table rendered as Markdown, padded so it also reads well in a terminal.
std::string Table(const std::vector<std::string>& header,
                  const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
  for (const auto& row : rows)
    for (size_t c = 0; c < row.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], row[c].size());
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out = "|";
    for (size_t c = 0; c < width.size(); ++c)
      out += fmt::format(" {:<{}} |", c < cells.size() ? cells[c] : "", width[c]);
    return out + "\n";
  };
  std::string out = line(header);
  std::vector<std::string> rule;
  for (size_t w : width) rule.push_back(std::string(w, '-'));
  out += line(rule);
  for (const auto& row : rows) out += line(row);
  return out;
}

std::string Cell(std::string_view name, const std::optional<metrics::Headline>& h) {
  const metrics::HeadlineMetric* m = metrics::FindHeadlineMetric(name);
  return metrics::FormatHeadlineValue(*m, h ? (*h).*(m->field) : std::nullopt);
}

// "measured", or "simulated" with the engine a rehearsal stands in for and the scale a
// compressed clock ran at. Whatever the scale, the numbers are simulated time
// (docs/metrics.md, "Simulated time").
std::string Kind(const recipe::Point& first) {
  if (first.serve.engine != "sim") return "measured";
  std::string kind = "simulated";
  if (!first.serve.stands_in_for.empty()) kind += ", standing in for " + first.serve.stands_in_for;
  double scale = recipe::SimTimeScale(first.serve).value_or(1.0);
  if (scale != 1.0)
    kind += fmt::format(", clock at time scale {}; numbers in simulated time", scale);
  return kind;
}

// report.md only (a serve session's roles expose dozens of metrics each): each role's
// scraped metrics of every ok point of a serve session of several processes, a column
// per point. Like the numbers above, none for a point that did not measure validly.
std::string RoleMetricsSection(const std::string& sid, const std::vector<const PointReport*>& pts) {
  std::vector<record::RoleMetricsColumn> columns;
  for (const PointReport* p : pts) {
    if (p->status != RecordStatus::kOk || p->record.role_metrics.empty()) continue;
    columns.push_back({fmt::format("conc {}", p->point.load.concurrency), &p->record.role_metrics});
  }
  const std::string table = record::RoleMetricsTable(columns);
  if (table.empty()) return "";
  return fmt::format(
             "### Role metrics — session {}\n\nEach role's own /metrics over each point: "
             "counters as the change, gauges at the point's end, summed over the role's "
             "processes (`servebench results show RECORD_ID --role-metrics` shows one point).\n\n",
             sid.substr(0, 12)) +
         table + "\n";
}

// A point's concurrency; a search's answer (its probes are records of their own).
std::string ConcurrencyCell(const PointReport& p) {
  const recipe::SloSearchSpec& search = p.point.load.search;
  if (!search.enabled()) return std::to_string(p.point.load.concurrency);
  const std::optional<metrics::Headline>& h = p.record.headline;
  std::optional<double> answer;
  if (h) answer = search.vary == "rate" ? h->max_request_rate_at_slo : h->max_concurrency_at_slo;
  const char* what = search.vary == "rate" ? "req/s" : "conc";
  return answer ? fmt::format("max {:g} {} at SLO", *answer, what)
                : fmt::format("search ({})", what);
}

std::string SessionTables(const SweepReport& r, bool md) {
  std::string out;
  std::map<std::string, std::vector<const PointReport*>> by_session;
  std::vector<std::string> order;
  for (const auto& p : r.points) {
    if (!by_session.count(p.point.session_id)) order.push_back(p.point.session_id);
    by_session[p.point.session_id].push_back(&p);
  }
  std::vector<std::string> header = {"conc", "status"};
  for (std::string_view m : ReportedMetrics()) header.emplace_back(m);
  header.push_back("failure");
  for (const auto& sid : order) {
    const auto& pts = by_session[sid];
    const PointReport& first = *pts.front();
    out += fmt::format("{}session {} — {} {} {} on {} ({}; {})\n\n", md ? "## " : "",
                       sid.substr(0, 12), first.point.recipe, first.point.serve.engine,
                       first.point.serve.model, first.point.serve.hardware,
                       record::ConfigLabel(record::DeploymentOf(first.point.serve)),
                       Kind(first.point));
    std::vector<std::vector<std::string>> rows;
    for (const PointReport* p : pts) {
      std::vector<std::string> row = {
          ConcurrencyCell(*p),
          p->resumed ? "ok (resumed)" : std::string(record::RecordStatusName(p->status))};
      // Numbers only for points that measured validly: a failed, invalid or blocked
      // point is told by its status and failure, never as a number (design.md).
      static const std::optional<metrics::Headline> kNone;
      const std::optional<metrics::Headline>& h =
          p->status == RecordStatus::kOk ? p->record.headline : kNone;
      for (std::string_view m : ReportedMetrics()) row.push_back(Cell(m, h));
      std::string failure(p->failure.failure_class.name());
      if (!p->request_failures.empty()) {
        failure += (failure.empty() ? "" : ": ") + p->request_failures;
      }
      row.push_back(failure);
      rows.push_back(std::move(row));
    }
    out += Table(header, rows) + "\n";
    if (md) out += RoleMetricsSection(sid, pts);
  }
  return out;
}

// Per recipe: the Pareto frontier over all its configurations.
std::string Frontiers(const SweepReport& r, bool md) {
  std::string out;
  std::map<std::string, std::vector<metrics::CurvePoint>> curves;
  for (size_t i = 0; i < r.points.size(); ++i) {
    const PointReport& p = r.points[i];
    const std::optional<metrics::Headline>& h = p.record.headline;
    if (p.status != RecordStatus::kOk || !h || !h->median_intvty || !h->tput_per_gpu) continue;
    curves[p.point.recipe].push_back({*h->median_intvty, *h->tput_per_gpu, i});
  }
  for (const auto& [recipe_name, pts] : curves) {
    out += fmt::format("{}Pareto frontier — {} (tput_per_gpu vs median_intvty)\n\n",
                       md ? "## " : "", recipe_name);
    std::vector<std::vector<std::string>> rows;
    for (const metrics::CurvePoint& c : metrics::ParetoFrontier(pts)) {
      const PointReport& p = r.points[c.tag];
      rows.push_back(
          {Cell("median_intvty", p.record.headline), Cell("tput_per_gpu", p.record.headline),
           record::ConfigLabel(p.record.deployment), std::to_string(p.point.load.concurrency)});
    }
    out += Table({"median_intvty", "tput_per_gpu", "config", "conc"}, rows) + "\n";
  }
  return out;
}

}  // namespace

const std::vector<std::string_view>& ReportedMetrics() {
  static const std::vector<std::string_view> kMetrics = {
      "request_throughput", "output_throughput",      "tput_per_gpu",  "output_tput_per_gpu",
      "median_ttft_ms",     "median_tpot_ms",         "median_intvty", "acceptance_length",
      "avg_power_w",        "joules_per_output_token"};
  return kMetrics;
}

std::string FormatSweepSummaryLine(const SweepReport& r) {
  int resumed = 0;
  for (const auto& p : r.points) resumed += p.resumed ? 1 : 0;
  std::string line = fmt::format(
      "{} point(s): {} ok, {} failed, {} invalid, {} blocked, {} skipped{}; {} server start(s) "
      "for {} session(s), {} fewer than one start per point",
      r.points.size(), r.Count(RecordStatus::kOk), r.Count(RecordStatus::kFailed),
      r.Count(RecordStatus::kInvalid), r.Count(RecordStatus::kBlocked),
      r.Count(RecordStatus::kSkipped),
      resumed > 0 ? fmt::format(", {} already ok (resumed)", resumed) : "", r.server_starts,
      r.sessions, std::max(0, r.starts_one_per_point - r.server_starts));
  if (r.canary_failed) {
    line += fmt::format("\ncanary failed: {}: {}", r.canary_failure.failure_class.name(),
                        r.canary_failure.reason);
  }
  if (r.interrupted) line += "\ninterrupted: the point in flight was recorded as interrupted";
  return line;
}

std::string FormatSweepReport(const SweepReport& r, ReportStyle style) {
  bool md = style == ReportStyle::kMarkdown;
  std::string out;
  if (md) out += "# servebench run report\n\n";
  out += FormatSweepSummaryLine(r) + "\n\n";
  out += SessionTables(r, md);
  out += Frontiers(r, md);
  return out;
}

}  // namespace servebench::run
