#include "run/report.h"

#include <fmt/format.h>

#include <map>

#include "run/pareto.h"

namespace servebench::run {
namespace {

namespace json = boost::json;

double Number(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr) return 0;
  if (v->is_double()) return v->as_double();
  if (v->is_int64()) return static_cast<double>(v->as_int64());
  if (v->is_uint64()) return static_cast<double>(v->as_uint64());
  return 0;
}

const json::object* Summary(const PointReport& p) {
  const json::value* s = p.record.if_contains("summary");
  return s != nullptr && s->is_object() ? &s->as_object() : nullptr;
}

std::string AcceptanceLength(const json::object& summary) {
  const json::value* sb = summary.if_contains("servebench");
  if (sb == nullptr || !sb->is_object()) return "-";
  const json::value* sd = sb->as_object().if_contains("spec_decode");
  if (sd == nullptr || !sd->is_object()) return "-";
  const json::value* al = sd->as_object().if_contains("acceptance_length");
  if (al == nullptr || !al->is_number()) return "-";
  return fmt::format("{:.2f}", al->to_number<double>());
}

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

}  // namespace

std::string ConfigLabel(const recipe::Point& p) {
  std::string label = fmt::format("tp{}", p.serve.tp);
  if (p.serve.ep > 1) label += fmt::format(" ep{}", p.serve.ep);
  if (p.serve.dp_attn) label += " dpa";
  if (p.serve.spec.method != recipe::SpecMethod::kNone) {
    label += fmt::format(" {} n{}", recipe::SpecMethodName(p.serve.spec.method),
                         p.serve.spec.num_speculative_tokens);
  }
  return label;
}

std::string FormatSweepSummaryLine(const SweepReport& r) {
  int resumed = 0;
  for (const auto& p : r.points) resumed += p.resumed ? 1 : 0;
  std::string line = fmt::format(
      "{} point(s): {} ok, {} failed, {} invalid, {} blocked, {} skipped{}; {} server start(s) "
      "for {} session(s), {} fewer than one start per point",
      r.points.size(), r.Count(PointStatus::kOk), r.Count(PointStatus::kFailed),
      r.Count(PointStatus::kInvalid), r.Count(PointStatus::kBlocked),
      r.Count(PointStatus::kSkipped),
      resumed > 0 ? fmt::format(", {} already ok (resumed)", resumed) : "", r.server_starts,
      r.sessions, std::max(0, r.starts_one_per_point - r.server_starts));
  if (r.canary_failed) {
    line += fmt::format("\ncanary failed: {}: {}", r.canary_failure.failure_class,
                        r.canary_failure.reason);
  }
  if (r.interrupted) line += "\ninterrupted: the point in flight was recorded as interrupted";
  return line;
}

std::string FormatSweepReport(const SweepReport& r, ReportStyle style) {
  std::string out;
  bool md = style == ReportStyle::kMarkdown;
  if (md) out += "# servebench run report\n\n";
  out += FormatSweepSummaryLine(r) + "\n\n";

  // Per session, in run order.
  std::map<std::string, std::vector<const PointReport*>> by_session;
  std::vector<std::string> order;
  for (const auto& p : r.points) {
    if (!by_session.count(p.point.session_id)) order.push_back(p.point.session_id);
    by_session[p.point.session_id].push_back(&p);
  }
  for (const auto& sid : order) {
    const auto& pts = by_session[sid];
    const recipe::Point& first = pts.front()->point;
    std::string kind = "measured";
    if (first.serve.engine == "sim") {
      auto scale = first.serve.sim_options.find("time-scale");
      kind = scale == first.serve.sim_options.end() || scale->second == "1"
                 ? "simulated"
                 : "simulated at time scale " + scale->second +
                       ": times are wall-clock, i.e. simulated times × the scale";
    }
    out += fmt::format("{}session {} — {} {} {} on {} ({}; {})\n\n", md ? "## " : "",
                       sid.substr(0, 12), first.recipe, first.serve.engine, first.serve.model,
                       first.serve.hardware, ConfigLabel(first), kind);
    std::vector<std::vector<std::string>> rows;
    for (const PointReport* p : pts) {
      std::vector<std::string> row = {
          std::to_string(p->point.load.concurrency),
          p->resumed ? "ok (resumed)" : std::string(PointStatusName(p->status))};
      // Numbers only for points that measured validly: a failed, invalid or blocked
      // point is told by its status and failure, never as a number (design.md).
      const json::object* s = p->status == PointStatus::kOk ? Summary(*p) : nullptr;
      if (s != nullptr) {
        double tpot = Number(*s, "median_tpot_ms");
        int gpus = NumGpus(p->point.serve);
        row.push_back(fmt::format("{:.2f}", Number(*s, "request_throughput")));
        row.push_back(fmt::format("{:.1f}", Number(*s, "output_throughput")));
        row.push_back(fmt::format("{:.1f}", Number(*s, "output_throughput") / gpus));
        row.push_back(fmt::format("{:.1f}", Number(*s, "median_ttft_ms")));
        row.push_back(fmt::format("{:.2f}", tpot));
        row.push_back(tpot > 0 ? fmt::format("{:.1f}", 1000.0 / tpot) : "-");
        row.push_back(AcceptanceLength(*s));
      } else {
        for (int i = 0; i < 7; ++i) row.push_back("-");
      }
      row.push_back(p->failure.failure_class.empty() ? "" : p->failure.failure_class);
      rows.push_back(std::move(row));
    }
    out += Table({"conc", "status", "req/s", "out tok/s", "out tok/s/gpu", "TTFT p50 ms",
                  "TPOT p50 ms", "tok/s/user", "AL", "failure"},
                 rows);
    out += "\n";
  }

  // Per recipe: the Pareto frontier over all its configurations.
  std::map<std::string, std::vector<CurvePoint>> curves;
  for (const auto& p : r.points) {
    const json::object* s = Summary(p);
    if (s == nullptr || p.status != PointStatus::kOk) continue;
    double tpot = Number(*s, "median_tpot_ms");
    if (tpot <= 0) continue;
    curves[p.point.recipe].push_back({1000.0 / tpot,
                                      Number(*s, "output_throughput") / NumGpus(p.point.serve),
                                      p.point.load.concurrency, ConfigLabel(p.point)});
  }
  for (const auto& [recipe_name, pts] : curves) {
    out += fmt::format("{}Pareto frontier — {} (output tok/s/gpu vs tok/s/user)\n\n",
                       md ? "## " : "", recipe_name);
    std::vector<std::vector<std::string>> rows;
    for (const auto& c : ParetoFrontier(pts)) {
      rows.push_back({fmt::format("{:.1f}", c.interactivity),
                      fmt::format("{:.1f}", c.throughput_per_gpu), c.label,
                      std::to_string(c.concurrency)});
    }
    out += Table({"tok/s/user", "out tok/s/gpu", "config", "conc"}, rows);
    out += "\n";
  }
  return out;
}

}  // namespace servebench::run
