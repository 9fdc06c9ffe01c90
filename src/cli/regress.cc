// `servebench regress`: one verdict per series for a night, from the store and/or
// folders of record JSON files, as Markdown, JUnit XML or JSON (verdict/).
// Exit status: 0 no confirmed regression; 1 a confirmed regression; 3 the data
// could not be read (store unreachable, a broken record file); 64 usage.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <set>
#include <sstream>

#include "cli/command.h"
#include "cli/command_line.h"
#include "cli/flag_checks.h"
#include "cli/record_sources.h"
#include "common/atomic_file.h"
#include "common/calendar_date.h"
#include "common/exit_codes.h"
#include "recipe/recipe.h"
#include "run/record.h"
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

// Recipe files: every point they expand to is expected tonight (nightly points only,
// when any point is marked nightly), as the series id `servebench run` records.
Status ReadExpectedRecipes(const std::vector<std::string>& paths, std::set<std::string>& out) {
  recipe::Diagnostics diagnostics;
  recipe::RecipeSet set = recipe::LoadRecipes(paths, &diagnostics);
  if (!diagnostics.ok()) return Status::InvalidArgument(diagnostics.ToString());
  SB_ASSIGN_OR_RETURN(recipe::Plan plan, recipe::ExpandRecipes(set, recipe::MatrixFilters{}));
  bool any_nightly = false;
  for (const auto& p : plan.points) any_nightly = any_nightly || p.nightly;
  for (const auto& p : plan.points) {
    if (!any_nightly || p.nightly) out.insert(run::SeriesId(p));
  }
  return Status::Ok();
}

bool IsRecipeFile(const std::string& path) {
  auto ends = [&](const char* suffix) {
    std::string s = suffix;
    return path.size() >= s.size() && path.compare(path.size() - s.size(), s.size(), s) == 0;
  };
  return ends(".yaml") || ends(".yml");
}

int Fail(const Status& status) {
  std::fprintf(stderr, "servebench regress: %s\n", status.message().c_str());
  return kExitRunFailed;
}

int RunRegress(int argc, char** argv) {
  CLI::App app{
      "Judge one night of results against history: one verdict per series "
      "(regression, improvement, unchanged, new, missing, invalid, blocked, "
      "unblocked). Exit 1 on a confirmed regression. See docs/regression.md.",
      "servebench regress"};
  std::string db, date, format = "md", output;
  std::vector<std::string> record_dirs, expected_files;
  bool require_build = false;
  AddDbFlag(&app, &db, "results store: a SQLite path or a postgresql:// URL");
  app.add_option("--records", record_dirs, "folder(s) of record JSON files (read recursively)");
  app.add_option("--date", date,
                 "the night judged, YYYY-MM-DD (default: the latest night in the data)");
  app.add_option("--expected", expected_files,
                 "recipe files (.yaml: their nightly points) or files of series ids, one per "
                 "line: expected series without a record tonight are 'missing'");
  app.add_option("--format", format, "md, junit or json")
      ->check(CLI::IsMember({"md", "junit", "json"}));
  app.add_option("--output", output, "write the report here (atomically) instead of stdout");
  app.add_flag("--require-build-identity", require_build,
               "refuse (invalid) ok records without build.image and build.commit");
  if (auto done = ParseCommandLine(app, argc, argv)) return *done;
  if (db.empty() && record_dirs.empty()) {
    std::fprintf(stderr,
                 "servebench regress: give --db URL (or set $%s) and/or --records DIR (where the "
                 "records are)\n",
                 store::kStoreUrlEnv);
    return kExitUsage;
  }
  for (Status st : {date.empty() ? Status::Ok() : CheckCalendarDate("--date", date),
                    CheckOutputFile("--output", output), CheckStoreToRead(db)}) {
    if (!st.ok()) {
      std::fprintf(stderr, "servebench regress: %s\n", st.message().c_str());
      return kExitInvalidInput;
    }
  }
  StatusOr<LoadedRecords> loaded = LoadRecords(db, record_dirs);
  if (!loaded.ok()) {
    if (loaded.status().code() != StatusCode::kNotFound) return Fail(loaded.status());
    std::fprintf(stderr, "servebench regress: %s\n", loaded.status().message().c_str());
    return kExitInvalidInput;
  }
  verdict::HistoryBuilder builder;
  for (const boost::json::object& r : loaded->records) {
    if (Status st = builder.Add(r); !st.ok()) return Fail(st);
  }
  std::set<std::string> expected;
  std::vector<std::string> expected_recipes;
  for (const std::string& f : expected_files) {
    if (IsRecipeFile(f)) {
      expected_recipes.push_back(f);
      continue;
    }
    if (Status st = ReadExpected(f, expected); !st.ok()) {
      std::fprintf(stderr, "servebench regress: --expected %s\n", st.message().c_str());
      return kExitInvalidInput;
    }
  }
  if (!expected_recipes.empty()) {
    if (Status st = ReadExpectedRecipes(expected_recipes, expected); !st.ok()) {
      std::fprintf(stderr, "servebench regress: --expected: %s\n", st.message().c_str());
      return kExitInvalidInput;
    }
  }
  verdict::VerdictSettings settings;
  settings.require_build_identity = require_build;
  StatusOr<verdict::Report> report = verdict::Judge(builder.Finish(), expected, date, settings);
  if (!report.ok()) {
    std::fprintf(stderr, "servebench regress: %s\n", report.status().message().c_str());
    return ExitCodeFor(report.status());
  }
  std::string text = format == "junit"  ? verdict::RenderJunit(*report)
                     : format == "json" ? verdict::RenderJson(*report)
                                        : verdict::RenderMarkdown(*report);
  if (output.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    if (Status st = WriteFileAtomically(output, text); !st.ok()) return Fail(st);
    std::fprintf(
        stderr, "servebench regress: %s: %zu series, %zu regression(s), %zu missing -> %s\n",
        report->date.c_str(), report->verdicts.size(), report->Count(verdict::Verdict::kRegression),
        report->Count(verdict::Verdict::kMissing), output.c_str());
  }
  return report->ExitCode();
}

const CommandRegistration kRegister{
    {"regress", "verdicts for a night against history (store or record folders)", RunRegress}};

}  // namespace
}  // namespace servebench::cli
