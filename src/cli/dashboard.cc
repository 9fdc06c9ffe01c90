// `servebench dashboard`: the web view of stored results as one self-contained HTML
// file (web/): curves of throughput per GPU against interactivity, tonight's
// regression verdicts with each series' history, and every record in a sortable,
// filterable table. It reads the store (--db) and/or folders of record files
// (--records), like `servebench regress`.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/command_line.h"
#include "cli/flag_checks.h"
#include "cli/record_sources.h"
#include "common/atomic_file.h"
#include "common/calendar_date.h"
#include "common/exit_codes.h"
#include "store/store.h"
#include "web/dashboard_data.h"
#include "web/dashboard_page.h"

namespace servebench::cli {
namespace {

int Fail(int code, const std::string& message) {
  std::fprintf(stderr, "servebench dashboard: %s\n", message.c_str());
  return code;
}

int RunDashboard(int argc, char** argv) {
  CLI::App app{
      "Write the dashboard: one self-contained HTML file (no network needed to view it) "
      "with the throughput/interactivity curves, the newest night's regression verdicts "
      "and every record. See docs/dashboard.md.",
      "servebench dashboard"};
  std::string db, out = "dashboard.html";
  std::vector<std::string> record_dirs;
  store::RecordFilter filter;
  web::DashboardOptions options;
  AddDbFlag(&app, &db, "results store: a SQLite path or a postgresql:// URL");
  app.add_option("--records", record_dirs, "folder(s) of record JSON files (read recursively)");
  app.add_option("--out", out, "the HTML file to write (atomically)")->capture_default_str();
  app.add_option("--title", options.title, "the page's title")->capture_default_str();
  app.add_option("--recipe", filter.recipe, "--db: only this recipe");
  app.add_option("--hardware", filter.hardware, "--db: only this hardware");
  app.add_option("--since", filter.since, "--db: only records started at or after (2026-11-29)");
  if (auto done = ParseCommandLine(app, argc, argv)) return *done;
  if (db.empty() && record_dirs.empty()) {
    return Fail(kExitUsage, fmt::format("give --db URL (or set ${}) and/or --records DIR (where "
                                        "the records are)",
                                        store::kStoreUrlEnv));
  }
  if (!filter.since.empty()) {
    if (Status st = CheckDateOrUtcTime("--since", filter.since); !st.ok()) {
      return Fail(kExitInvalidInput, st.message());
    }
  }
  if (Status st = CheckOutputFile("--out", out); !st.ok()) {
    return Fail(kExitInvalidInput, st.message());
  }
  StatusOr<LoadedRecords> loaded = LoadRecords(db, record_dirs, filter);
  if (!loaded.ok()) {
    StatusCode c = loaded.status().code();
    bool bad_input = c == StatusCode::kNotFound || c == StatusCode::kInvalidArgument;
    return Fail(bad_input ? kExitInvalidInput : kExitRunFailed, loaded.status().message());
  }
  const std::vector<record::Record>& records = loaded->records;
  options.source = fmt::format("{}", fmt::join(loaded->sources, ", "));
  StatusOr<boost::json::object> data = web::BuildDashboardData(records, options);
  if (!data.ok()) return Fail(kExitInvalidInput, data.status().message());
  Status w = WriteFileAtomically(out, web::RenderDashboardHtml(*data));
  if (!w.ok()) return Fail(kExitRunFailed, w.ToString());
  std::fprintf(stderr, "servebench dashboard: %zu record(s) -> %s\n", records.size(), out.c_str());
  return kExitOk;
}

const CommandRegistration kRegister{
    {"dashboard", "the web view: one self-contained HTML file of curves, verdicts and records",
     RunDashboard}};

}  // namespace
}  // namespace servebench::cli
