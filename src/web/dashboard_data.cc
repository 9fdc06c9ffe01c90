#include "web/dashboard_data.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "common/time_format.h"
#include "common/version.h"
#include "recipe/recipe.h"
#include "run/pareto.h"
#include "run/record.h"
#include "run/report.h"
#include "verdict/verdict.h"

namespace servebench::web {
namespace {

namespace json = boost::json;

const json::value* Path(const json::object& o, std::initializer_list<const char*> keys) {
  const json::object* at = &o;
  const json::value* v = nullptr;
  for (const char* k : keys) {
    if (at == nullptr) return nullptr;
    v = at->if_contains(k);
    if (v == nullptr) return nullptr;
    at = v->is_object() ? &v->get_object() : nullptr;
  }
  return v;
}

std::string Str(const json::object& o, std::initializer_list<const char*> keys) {
  const json::value* v = Path(o, keys);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : "";
}

// A finite number, or null (JSON has no NaN; a missing metric stays visibly missing).
json::value Num(const json::object& o, std::initializer_list<const char*> keys) {
  const json::value* v = Path(o, keys);
  if (v == nullptr || !v->is_number()) return nullptr;
  double d = v->to_number<double>();
  return std::isfinite(d) ? json::value(d) : json::value(nullptr);
}

double NumOr(const json::value& v, double fallback) {
  return v.is_double() ? v.get_double() : fallback;
}

// The build date a record belongs to: build.date, else the day it started.
std::string BuildDate(const json::object& r) {
  std::string date = Str(r, {"build", "date"});
  if (date.empty()) date = Str(r, {"provenance", "started_at"}).substr(0, 10);
  return date;
}

std::string Label(const json::object& r) {
  if (const json::value* p = r.if_contains("point"); p != nullptr && p->is_object()) {
    StatusOr<recipe::Point> point = recipe::PointFromJson(json::serialize(*p));
    if (point.ok()) return run::ConfigLabel(*point);
  }
  const json::value* tp = r.if_contains("tp");
  return tp != nullptr && tp->is_int64() ? fmt::format("tp{}", tp->get_int64()) : "?";
}

std::string Workload(const json::object& r) {
  std::string w =
      fmt::format("{} · {} · {}", Str(r, {"recipe"}), Str(r, {"model"}), Str(r, {"hardware"}));
  json::value isl = Num(r, {"isl"}), osl = Num(r, {"osl"});
  if (isl.is_double() && osl.is_double())
    w += fmt::format(" · {:g}/{:g}", isl.get_double(), osl.get_double());
  return w;
}

json::object RecordRow(const json::object& r) {
  json::object row;
  for (const char* k : {"record_id", "series_id", "session_id", "recipe", "engine", "model",
                        "precision", "hardware", "status", "failure_class", "failure_reason"}) {
    row[k] = Str(r, {k});
  }
  row["config"] = Label(r);
  row["workload"] = Workload(r);
  row["isl"] = Num(r, {"isl"});
  row["osl"] = Num(r, {"osl"});
  row["concurrency"] = Num(r, {"concurrency"});
  row["build_date"] = BuildDate(r);
  row["build_commit"] = Str(r, {"build", "commit"});
  row["started_at"] = Str(r, {"provenance", "started_at"});
  row["simulated"] = Str(r, {"engine"}) == "sim";
  double gpus = NumOr(Num(r, {"num_gpus"}), 1);
  json::value out = Num(r, {"summary", "output_throughput"});
  json::value tpot = Num(r, {"summary", "median_tpot_ms"});
  row["request_throughput"] = Num(r, {"summary", "request_throughput"});
  row["output_throughput"] = out;
  row["tput_per_gpu"] =
      out.is_double() && gpus > 0 ? json::value(out.get_double() / gpus) : nullptr;
  // tok/s/user = 1000 / median TPOT (metrics.md §5).
  row["intvty"] =
      tpot.is_double() && tpot.get_double() > 0 ? json::value(1000.0 / tpot.get_double()) : nullptr;
  row["median_ttft_ms"] = Num(r, {"summary", "median_ttft_ms"});
  row["p99_ttft_ms"] = Num(r, {"summary", "p99_ttft_ms"});
  row["median_tpot_ms"] = tpot;
  row["median_itl_ms"] = Num(r, {"summary", "median_itl_ms"});
  row["acceptance_length"] = Num(r, {"summary", "servebench", "spec_decode", "acceptance_length"});
  return row;
}

// Per workload: each configuration's curve on its newest build date, and the
// frontier over them.
json::array Charts(const json::array& rows) {
  struct Curve {
    std::string date;
    std::map<double, json::object> by_conc;  // concurrency -> the latest-started point
  };
  std::map<std::string, std::map<std::string, Curve>> workloads;
  for (const json::value& v : rows) {
    const json::object& row = v.get_object();
    if (row.at("status").get_string() != "ok" || !row.at("intvty").is_double() ||
        !row.at("tput_per_gpu").is_double() || !row.at("concurrency").is_double()) {
      continue;
    }
    Curve& c = workloads[std::string(row.at("workload").get_string())]
                        [std::string(row.at("config").get_string())];
    std::string date(row.at("build_date").get_string());
    if (date < c.date) continue;
    if (date > c.date) {
      c.date = date;
      c.by_conc.clear();
    }
    double conc = row.at("concurrency").get_double();
    auto it = c.by_conc.find(conc);
    if (it == c.by_conc.end() ||
        it->second.at("started_at").get_string() < row.at("started_at").get_string()) {
      c.by_conc[conc] = json::object{{"concurrency", conc},
                                     {"intvty", row.at("intvty")},
                                     {"tput_per_gpu", row.at("tput_per_gpu")},
                                     {"median_ttft_ms", row.at("median_ttft_ms")},
                                     {"record_id", row.at("record_id")},
                                     {"started_at", row.at("started_at")}};
    }
  }
  json::array charts;
  for (const auto& [workload, configs] : workloads) {
    json::array curves;
    std::vector<run::CurvePoint> all;
    for (const auto& [config, curve] : configs) {
      json::array points;
      for (const auto& [conc, p] : curve.by_conc) {
        points.push_back(p);
        all.push_back({p.at("intvty").get_double(), p.at("tput_per_gpu").get_double(),
                       static_cast<int>(conc), config});
      }
      curves.push_back(json::object{
          {"config", config}, {"build_date", curve.date}, {"points", std::move(points)}});
    }
    json::array frontier;
    for (const run::CurvePoint& p : run::ParetoFrontier(all)) {
      frontier.push_back(json::object{{"intvty", p.interactivity},
                                      {"tput_per_gpu", p.throughput_per_gpu},
                                      {"concurrency", p.concurrency},
                                      {"config", p.label}});
    }
    charts.push_back(json::object{
        {"workload", workload}, {"curves", std::move(curves)}, {"frontier", std::move(frontier)}});
  }
  return charts;
}

// The verdict report of the newest night and every series' history, when the
// records span more than one build date (one night has nothing to compare with).
StatusOr<json::value> Nightly(const std::vector<json::object>& records,
                              const std::set<std::string>& dates) {
  if (dates.size() < 2) return json::value(nullptr);
  verdict::HistoryBuilder builder;
  for (const json::object& r : records) SB_RETURN_IF_ERROR(builder.Add(r));
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
      for (const char* m : {"output_tput_per_gpu", "median_ttft_ms", "median_tpot_ms"}) {
        auto it = o.metrics.find(m);
        night[m] =
            it != o.metrics.end() && std::isfinite(it->second) ? json::value(it->second) : nullptr;
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

StatusOr<json::object> BuildDashboardData(const std::vector<json::object>& records,
                                          const DashboardOptions& options) {
  json::array rows;
  std::set<std::string> dates;
  std::map<std::string, int64_t> status_counts;
  std::vector<json::object> unique;  // the same record from the store and a folder counts once
  std::set<std::string> seen;
  for (const json::object& r : records) {
    std::string id = Str(r, {"record_id"});
    if (!id.empty() && !seen.insert(id).second) continue;
    if (id.empty() || Str(r, {"series_id"}).empty()) {
      return Status::InvalidArgument(fmt::format(
          "a record without record_id or series_id (recipe '{}'): not a servebench record",
          Str(r, {"recipe"})));
    }
    if (BuildDate(r).empty()) {
      return Status::InvalidArgument(
          fmt::format("record {}: no build.date and no provenance.started_at", id));
    }
    json::object row = RecordRow(r);
    if (row.at("status").get_string() != "skipped")
      dates.insert(std::string(row.at("build_date").get_string()));
    ++status_counts[std::string(row.at("status").get_string())];
    rows.push_back(std::move(row));
    unique.push_back(r);
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
