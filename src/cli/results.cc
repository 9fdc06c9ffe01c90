// `servebench results list | show | export`: read the results store. Filters select
// records by identity (recipe, engine, model, hardware, status, run, point, series)
// and by start time; list prints a table, show one whole record, export CSV or JSON.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/command_line.h"
#include "cli/flag_checks.h"
#include "common/atomic_file.h"
#include "common/calendar_date.h"
#include "common/exit_codes.h"
#include "metrics/headline.h"
#include "record/labels.h"
#include "record/record_export.h"
#include "record/record_json.h"
#include "record/role_metrics_view.h"
#include "store/store.h"

namespace servebench::cli {
namespace {

struct Options {
  std::string db = "servebench.db";
  store::RecordFilter filter;
  std::string record_id;       // show
  bool role_metrics = false;   // show: each role's metrics as a table, not the JSON
  std::string format = "csv";  // export
  std::string output;          // export: file, or "" for stdout
  int64_t limit = 0;           // --limit, checked before it becomes filter.limit
};

void AddCommon(CLI::App* sub, Options* o) {
  AddDbFlag(sub, &o->db, "SQLite file or postgresql:// URL");
}

void AddFilters(CLI::App* sub, Options* o) {
  store::RecordFilter& f = o->filter;
  sub->add_option("--recipe", f.recipe, "only this recipe");
  sub->add_option("--engine", f.engine, "only this engine (vllm, sglang, trtllm, llamacpp, sim)");
  sub->add_option("--model", f.model, "only this model");
  sub->add_option("--hardware", f.hardware, "only this hardware");
  sub->add_option("--status", f.status, "only this status")
      ->check(CLI::IsMember({"ok", "failed", "invalid", "blocked", "skipped"}));
  sub->add_option("--run-id", f.run_id, "only records of this run");
  sub->add_option("--point-id", f.point_id, "only records of this point");
  sub->add_option("--series-id", f.series_id, "only records of this series");
  sub->add_option("--since", f.since, "started at or after (2026-11-29 or 2026-11-29T20:30:00Z)");
  sub->add_option("--until", f.until, "started before (same forms as --since)");
  sub->add_option("--limit", o->limit, "at most this many records (the earliest); 0 = all");
}

// Every filter value, before the store is opened: times that sort like times (real
// dates), a --limit the database can take.
Status CheckFilters(Options* o) {
  store::RecordFilter& f = o->filter;
  if (!f.since.empty()) SB_RETURN_IF_ERROR(CheckDateOrUtcTime("--since", f.since));
  if (!f.until.empty()) SB_RETURN_IF_ERROR(CheckDateOrUtcTime("--until", f.until));
  constexpr int64_t kMaxLimit = 1'000'000'000;
  if (o->limit < 0 || o->limit > kMaxLimit) {
    return Status::InvalidArgument(
        fmt::format("--limit {}: must be 0 (all) .. {}", o->limit, kMaxLimit));
  }
  f.limit = static_cast<size_t>(o->limit);
  return Status::Ok();
}

int Fail(const std::string& message, int code) {
  std::fprintf(stderr, "servebench results: %s\n", message.c_str());
  return code;
}

std::string Cell(std::string text, size_t width) {
  if (text.empty()) text = "-";
  if (text.size() > width) text = text.substr(0, width - 1) + "~";
  return text;
}

// A headline metric as every report prints it (metrics/headline.h).
std::string Metric(const record::Record& r, std::string_view name) {
  const metrics::HeadlineMetric* m = metrics::FindHeadlineMetric(name);
  return metrics::FormatHeadlineValue(*m, r.headline ? (*r.headline).*(m->field) : std::nullopt);
}

// The columns of `list` after the identity: headline metrics under their one name.
// GPU power (docs/power.md) last: "-" without valid power.
constexpr std::string_view kListMetrics[] = {"tput_per_gpu",   "median_intvty",
                                             "median_ttft_ms", "median_tpot_ms",
                                             "avg_power_w",    "joules_per_output_token"};

// A metric's column is as wide as its name, 14 at least.
int Width(std::string_view metric) { return std::max<int>(14, static_cast<int>(metric.size())); }

int List(store::Store& db, const Options& o) {
  auto records = db.Query(o.filter);
  if (!records.ok()) return Fail(records.status().message(), kExitRunFailed);
  std::printf("%-20s %-8s %-28s %-9s %-10s %-26s %5s", "started_at", "status", "recipe", "engine",
              "hardware", "config", "conc");
  for (std::string_view m : kListMetrics)
    std::printf(" %*.*s", Width(m), static_cast<int>(m.size()), m.data());
  std::printf("  %s\n", "record_id");
  for (const record::Record& r : *records) {
    // The configuration as every view names it (record/labels.h), so two sessions of
    // one recipe read as two rows.
    std::printf("%-20s %-8s %-28s %-9s %-10s %-26s %5s", Cell(r.provenance.started_at, 20).c_str(),
                Cell(std::string(record::RecordStatusName(r.status)), 8).c_str(),
                Cell(r.recipe, 28).c_str(), Cell(r.engine, 9).c_str(), Cell(r.hardware, 10).c_str(),
                Cell(record::ConfigLabel(r.deployment), 26).c_str(),
                Cell(r.concurrency ? std::to_string(*r.concurrency) : "", 5).c_str());
    for (std::string_view m : kListMetrics) std::printf(" %*s", Width(m), Metric(r, m).c_str());
    std::printf("  %s\n", Cell(r.record_id, 16).c_str());
  }
  std::printf("%zu record%s in %s\n", records->size(), records->size() == 1 ? "" : "s",
              db.Describe().c_str());
  return kExitOk;
}

int Show(store::Store& db, const Options& o) {
  store::RecordFilter exact;
  exact.record_id = o.record_id;
  auto records = db.Query(exact);
  if (!records.ok()) return Fail(records.status().message(), kExitRunFailed);
  if (records->empty()) {
    // `list` shows ids cut short; accept a unique prefix of one.
    auto all = db.Query(store::RecordFilter{});
    if (!all.ok()) return Fail(all.status().message(), kExitRunFailed);
    for (auto& r : *all) {
      if (r.record_id.starts_with(o.record_id)) records->push_back(std::move(r));
    }
  }
  if (records->empty()) {
    return Fail(fmt::format("no record with id (or id prefix) \"{}\" in {}; "
                            "`servebench results list` shows the ids",
                            o.record_id, db.Describe()),
                kExitInvalidInput);
  }
  if (records->size() > 1) {
    return Fail(fmt::format("\"{}\" is the start of {} record ids; give more of the id",
                            o.record_id, records->size()),
                kExitInvalidInput);
  }
  const record::Record& r = records->front();
  if (o.role_metrics) {
    if (r.role_metrics.empty()) {
      return Fail(fmt::format("record {} has no role metrics: only the points of a serve session "
                              "of several processes (a topology: prefill, decode, router) "
                              "scrape each role's /metrics",
                              r.record_id),
                  kExitInvalidInput);
    }
    std::printf(
        "record %s — %s, concurrency %s: each role's /metrics over the point (counters "
        "as the change, gauges at its end, summed over the role's processes)\n\n",
        r.record_id.c_str(), record::ConfigLabel(r.deployment).c_str(),
        r.concurrency ? std::to_string(*r.concurrency).c_str() : "-");
    std::fputs(record::RoleMetricsTable({{"value", &r.role_metrics}}).c_str(), stdout);
    return kExitOk;
  }
  std::fputs(record::IndentedJson(record::ToJson(r)).c_str(), stdout);
  return kExitOk;
}

int Export(store::Store& db, const Options& o) {
  auto records = db.Query(o.filter);
  if (!records.ok()) return Fail(records.status().message(), kExitRunFailed);
  std::string text =
      o.format == "csv" ? record::RecordsToCsv(*records) : record::RecordsToJson(*records);
  if (o.output.empty() || o.output == "-") {
    std::fputs(text.c_str(), stdout);
    return kExitOk;
  }
  Status written = WriteFileAtomically(o.output, text);
  if (!written.ok()) return Fail(written.message(), kExitRunFailed);
  std::fprintf(stderr, "servebench results: wrote %zu records to %s\n", records->size(),
               o.output.c_str());
  return kExitOk;
}

int RunResults(int argc, char** argv) {
  CLI::App app{"Read the results store: list records, show one, export them as CSV or JSON.",
               "servebench results"};
  app.require_subcommand(1);
  Options o;
  CLI::App* list = app.add_subcommand("list", "a table of the matching records, oldest first");
  CLI::App* show = app.add_subcommand("show", "one whole record as indented JSON");
  CLI::App* exp = app.add_subcommand("export", "the matching records as CSV or JSON");
  for (CLI::App* sub : {list, show, exp}) AddCommon(sub, &o);
  AddFilters(list, &o);
  AddFilters(exp, &o);
  show->add_option("RECORD_ID", o.record_id, "a record id, or the start of one")->required();
  show->add_flag("--role-metrics", o.role_metrics,
                 "instead of the JSON, a table of each role's scraped /metrics (prefill, decode, "
                 "router: a point of a serve session of several processes)");
  exp->add_option("--format", o.format,
                  "csv (one row per record: identity, status, every headline metric under "
                  "its name) or json (the whole records)")
      ->check(CLI::IsMember({"csv", "json"}))
      ->capture_default_str();
  exp->add_option("-o,--output", o.output, "write to this file (atomically) instead of stdout");
  if (auto done = ParseCommandLine(app, argc, argv)) return *done;
  for (Status st :
       {CheckFilters(&o), CheckStoreToRead(o.db), CheckOutputFile("--output", o.output)}) {
    if (!st.ok()) return Fail(st.message(), ExitCodeFor(st));
  }
  auto opened = store::Open(o.db);
  if (!opened.ok()) return Fail(opened.status().message(), ExitCodeFor(opened.status()));
  if (list->parsed()) return List(**opened, o);
  if (show->parsed()) return Show(**opened, o);
  return Export(**opened, o);
}

const CommandRegistration kRegister{
    {"results", "read the results store: list, show, export (csv, json)", RunResults}};

}  // namespace
}  // namespace servebench::cli
