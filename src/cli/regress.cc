// `servebench regress`: one verdict per series for a night, from the store and/or
// folders of record JSON files, as Markdown, JUnit XML or JSON (verdict/).
// Exit status: 0 no confirmed regression; 1 a confirmed regression; 3 the data
// could not be read (store unreachable, a broken record file); 64 usage.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <set>
#include <sstream>

#include "cli/command.h"
#include "common/atomic_file.h"
#include "common/exit_codes.h"
#include "store/store.h"
#include "verdict/verdict.h"

namespace servebench::cli {
namespace {

// A file of expected series ids: one per line; blank lines and '#' comments skipped.
Status ReadExpected(const std::string& path, std::set<std::string>& out) {
  SB_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    size_t b = line.find_first_not_of(" \t\r"), e = line.find_last_not_of(" \t\r");
    if (b == std::string::npos) continue;
    std::string id = line.substr(b, e - b + 1);
    if (id.find_first_of(" \t") != std::string::npos) {
      return Status::InvalidArgument(fmt::format(
          "{}: '{}' is not a series id; the file lists one series_id per line", path, id));
    }
    out.insert(id);
  }
  return Status::Ok();
}

int Fail(const Status& status) {
  std::fprintf(stderr, "servebench regress: %s\n", status.message().c_str());
  return kExitRunFailed;
}

int RunRegress(int argc, char** argv) {
  CLI::App app{"Judge one night of results against history: one verdict per series "
               "(regression, improvement, unchanged, new, missing, invalid, blocked, "
               "unblocked). Exit 1 on a confirmed regression. See docs/regression.md.",
               "servebench regress"};
  std::string db, date, format = "md", output;
  std::vector<std::string> record_dirs, expected_files;
  bool require_build = false;
  app.add_option("--db", db, "results store: a SQLite path or a postgresql:// URL");
  app.add_option("--records", record_dirs, "folder(s) of record JSON files (read recursively)");
  app.add_option("--date", date, "the night judged, YYYY-MM-DD (default: the latest night in the data)");
  app.add_option("--expected", expected_files,
                 "file(s) of series ids the recipes expect, one per line: absent ones are 'missing'");
  app.add_option("--format", format, "md, junit or json")->check(CLI::IsMember({"md", "junit", "json"}));
  app.add_option("--output", output, "write the report here (atomically) instead of stdout");
  app.add_flag("--require-build-identity", require_build,
               "refuse (invalid) ok records without build.image and build.commit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }
  if (db.empty() && record_dirs.empty()) {
    std::fprintf(stderr, "servebench regress: give --db URL and/or --records DIR (where the records are)\n");
    return kExitUsage;
  }
  verdict::HistoryBuilder builder;
  if (!db.empty()) {
    StatusOr<std::unique_ptr<store::Store>> s = store::Open(db);
    if (!s.ok()) return Fail(s.status());
    store::RecordFilter filter;
    filter.order = store::RecordFilter::Order::kBuildDate;
    StatusOr<std::vector<boost::json::object>> records = (*s)->Query(filter);
    if (!records.ok()) return Fail(records.status().WithContext((*s)->Describe()));
    for (const boost::json::object& r : *records) {
      if (Status st = builder.Add(r); !st.ok()) return Fail(st.WithContext((*s)->Describe()));
    }
  }
  for (const std::string& dir : record_dirs) {
    StatusOr<std::vector<boost::json::object>> records = verdict::ReadRecordDir(dir);
    if (!records.ok()) return Fail(records.status());
    for (const boost::json::object& r : *records) {
      if (Status st = builder.Add(r); !st.ok()) return Fail(st.WithContext(dir));
    }
  }
  std::set<std::string> expected;
  for (const std::string& f : expected_files) {
    if (Status st = ReadExpected(f, expected); !st.ok()) {
      std::fprintf(stderr, "servebench regress: --expected %s\n", st.message().c_str());
      return kExitUsage;
    }
  }
  verdict::VerdictSettings settings;
  settings.require_build_identity = require_build;
  StatusOr<verdict::Report> report = verdict::Judge(builder.Finish(), expected, date, settings);
  if (!report.ok()) {
    std::fprintf(stderr, "servebench regress: %s\n", report.status().message().c_str());
    return kExitUsage;
  }
  std::string text = format == "junit"  ? verdict::RenderJunit(*report)
                     : format == "json" ? verdict::RenderJson(*report)
                                        : verdict::RenderMarkdown(*report);
  if (output.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    if (Status st = WriteFileAtomically(output, text); !st.ok()) return Fail(st);
    std::fprintf(stderr, "servebench regress: %s: %zu series, %zu regression(s), %zu missing -> %s\n",
                 report->date.c_str(), report->verdicts.size(),
                 report->Count(verdict::Verdict::kRegression), report->Count(verdict::Verdict::kMissing),
                 output.c_str());
  }
  return report->ExitCode();
}

const CommandRegistration kRegister{
    {"regress", "verdicts for a night against history (store or record folders)", RunRegress}};

}  // namespace
}  // namespace servebench::cli
