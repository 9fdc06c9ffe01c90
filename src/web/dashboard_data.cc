#include "web/dashboard_data.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "common/time_format.h"
#include "common/version.h"
#include "metrics/pareto.h"
#include "record/labels.h"
#include "verdict/verdict.h"

namespace servebench::web {
namespace {

namespace json = boost::json;

json::value Num(std::optional<double> v) {
  return v && std::isfinite(*v) ? json::value(*v) : json::value(nullptr);
}
json::value Num(std::optional<int64_t> v) { return v ? json::value(*v) : json::value(nullptr); }

json::object RecordRow(const record::Record& r) {
  json::object row{{"record_id", r.record_id},
                   {"series_id", r.series_id},
                   {"session_id", r.session_id},
                   {"recipe", r.recipe},
                   {"engine", r.engine},
                   {"model", r.model},
                   {"precision", r.precision},
                   {"hardware", r.hardware},
                   {"status", record::RecordStatusName(r.status)},
                   {"failure_class", r.failure_class.name()},
                   {"failure_reason", r.failure_reason},
                   {"config", record::ConfigLabel(r.deployment)},
                   {"workload", record::WorkloadLabel(r)},
                   {"isl", Num(r.isl)},
                   {"osl", Num(r.osl)},
                   {"concurrency", Num(r.concurrency)},
                   {"build_date", r.Night()},
                   {"build_commit", r.build.commit},
                   {"started_at", r.provenance.started_at},
                   {"simulated", r.simulated},
                   // A rehearsal (`run --engine sim`): the engine the point stands in for.
                   {"stands_in_for", r.stands_in_for},
                   // How compressed the sim's clock ran; its numbers are simulated time
                   // whatever the scale (docs/metrics.md, "Simulated time").
                   {"time_scale", Num(record::SimTimeScale(r))}};
  // Every headline metric under its one name (metrics/headline.h); null when missing.
  for (const metrics::HeadlineMetric& m : metrics::HeadlineMetrics()) {
    row[m.name] = Num(r.headline ? (*r.headline).*m.field : std::nullopt);
  }
  return row;
}

// One point of a curve: what the chart draws and its tooltip says.
json::object CurvePointOf(const json::object& row) {
  return json::object{{"concurrency", row.at("concurrency")},
                      {"median_intvty", row.at("median_intvty")},
                      {"tput_per_gpu", row.at("tput_per_gpu")},
                      {"median_ttft_ms", row.at("median_ttft_ms")},
                      {"record_id", row.at("record_id")},
                      {"series_id", row.at("series_id")},
                      {"simulated", row.at("simulated")},
                      {"time_scale", row.at("time_scale")},
                      {"stands_in_for", row.at("stands_in_for")},
                      {"started_at", row.at("started_at")},
                      {"output_tokens_per_joule", row.at("output_tokens_per_joule")}};
}

// Per workload: each configuration's curve on every build date (the newest drawn over
// the earlier ones, so a slower night shows on the chart), and the frontier over the
// configurations' newest curves.
json::array Charts(const json::array& rows) {
  // workload -> config -> build date -> concurrency -> the latest-started point.
  using Night = std::map<int64_t, json::object>;
  std::map<std::string, std::map<std::string, std::map<std::string, Night>>> workloads;
  for (const json::value& v : rows) {
    const json::object& row = v.get_object();
    if (row.at("status").get_string() != "ok" || !row.at("median_intvty").is_double() ||
        !row.at("tput_per_gpu").is_double() || !row.at("concurrency").is_int64()) {
      continue;
    }
    Night& night = workloads[std::string(row.at("workload").get_string())][std::string(
        row.at("config").get_string())][std::string(row.at("build_date").get_string())];
    int64_t conc = row.at("concurrency").get_int64();
    auto it = night.find(conc);
    if (it == night.end() ||
        it->second.at("started_at").get_string() < row.at("started_at").get_string()) {
      night[conc] = CurvePointOf(row);
    }
  }
  auto points_of = [](const Night& night) {
    json::array points;
    for (const auto& [conc, p] : night) points.push_back(p);
    return points;
  };
  json::array charts;
  for (const auto& [workload, configs] : workloads) {
    json::array curves;
    std::vector<metrics::CurvePoint> all;
    std::vector<std::pair<std::string, const json::object*>> tags;  // config, point
    for (const auto& [config, nights] : configs) {
      const auto& [date, newest] = *nights.rbegin();
      for (const auto& [conc, p] : newest) {
        all.push_back(
            {p.at("median_intvty").get_double(), p.at("tput_per_gpu").get_double(), tags.size()});
        tags.emplace_back(config, &p);
      }
      json::array history;  // earlier nights, oldest first
      for (auto it = nights.begin(); it->first != date; ++it) {
        history.push_back(
            json::object{{"build_date", it->first}, {"points", points_of(it->second)}});
      }
      curves.push_back(json::object{{"config", config},
                                    {"build_date", date},
                                    {"points", points_of(newest)},
                                    {"history", std::move(history)}});
    }
    json::array frontier;
    for (const metrics::CurvePoint& p : metrics::ParetoFrontier(all)) {
      const auto& [config, point] = tags[p.tag];
      frontier.push_back(json::object{{"median_intvty", p.intvty},
                                      {"tput_per_gpu", p.tput_per_gpu},
                                      {"concurrency", point->at("concurrency")},
                                      {"config", config}});
    }
    charts.push_back(json::object{
        {"workload", workload}, {"curves", std::move(curves)}, {"frontier", std::move(frontier)}});
  }
  return charts;
}

// The verdict report of the newest night and every series' history, when the
// records span more than one build date (one night has nothing to compare with).
StatusOr<json::value> Nightly(const std::vector<const record::Record*>& records,
                              const std::set<std::string>& dates) {
  if (dates.size() < 2) return json::value(nullptr);
  verdict::HistoryBuilder builder;
  for (const record::Record* r : records) SB_RETURN_IF_ERROR(builder.Add(*r));
  std::vector<verdict::SeriesHistory> histories = builder.Finish();
  SB_ASSIGN_OR_RETURN(verdict::Report report,
                      verdict::Judge(histories, {}, "", verdict::VerdictSettings{}));
  json::array series;
  for (const verdict::SeriesHistory& h : histories) {
    json::array nights;
    for (const verdict::Observation& o : h.nights) {
      json::object night{{"date", o.build.date},
                         {"status", verdict::NightStatusName(o.status)},
                         {"reason", o.reason}};
      for (const char* m :
           {"tput_per_gpu", "output_tput_per_gpu", "median_ttft_ms", "median_tpot_ms"}) {
        auto it = o.metrics.find(m);
        night[m] = Num(it != o.metrics.end() ? std::optional(it->second) : std::nullopt);
      }
      nights.push_back(std::move(night));
    }
    series.push_back(json::object{
        {"series_id", h.series_id}, {"label", h.label}, {"nights", std::move(nights)}});
  }
  return json::value(json::object{{"report", json::parse(verdict::RenderJson(report))},
                                  {"series", std::move(series)}});
}

json::array BuildDatesNewestFirst(const std::set<std::string>& dates) {
  json::array out;
  for (auto it = dates.rbegin(); it != dates.rend(); ++it) out.emplace_back(*it);
  return out;
}

}  // namespace

StatusOr<json::object> BuildDashboardData(const std::vector<record::Record>& records,
                                          const DashboardOptions& options) {
  json::array rows;
  std::set<std::string> dates;
  std::map<std::string, int64_t> status_counts;
  std::vector<const record::Record*> unique;  // the same record from the store and a folder
  std::set<std::string> seen;
  for (const record::Record& r : records) {
    if (!r.record_id.empty() && !seen.insert(r.record_id).second) continue;
    if (r.record_id.empty() || r.series_id.empty()) {
      return Status::InvalidArgument(fmt::format(
          "a record without record_id or series_id (recipe '{}'): not a servebench record",
          r.recipe));
    }
    if (r.Night().empty()) {
      return Status::InvalidArgument(
          fmt::format("record {}: no build.date and no provenance.started_at", r.record_id));
    }
    json::object row = RecordRow(r);
    if (r.status != record::RecordStatus::kSkipped) dates.insert(r.Night());
    ++status_counts[std::string(record::RecordStatusName(r.status))];
    rows.push_back(std::move(row));
    unique.push_back(&r);
  }
  // Newest first, as people read a results table.
  std::sort(rows.begin(), rows.end(), [](const json::value& a, const json::value& b) {
    const json::object &x = a.get_object(), &y = b.get_object();
    if (x.at("build_date") != y.at("build_date"))
      return x.at("build_date").get_string() > y.at("build_date").get_string();
    if (x.at("started_at") != y.at("started_at"))
      return x.at("started_at").get_string() > y.at("started_at").get_string();
    return x.at("record_id").get_string() < y.at("record_id").get_string();
  });
  json::object counts;
  for (const auto& [status, n] : status_counts) counts[status] = n;
  SB_ASSIGN_OR_RETURN(json::value nightly, Nightly(unique, dates));
  json::array charts = Charts(rows);
  return json::object{
      {"title", options.title},
      {"source", options.source},
      {"generated_at", options.generated_at.empty() ? Rfc3339Now() : options.generated_at},
      {"servebench_version", kVersion},
      {"counts", std::move(counts)},
      {"build_dates", BuildDatesNewestFirst(dates)},
      {"records", std::move(rows)},
      {"charts", std::move(charts)},
      {"nightly", std::move(nightly)}};
}

}  // namespace servebench::web
