// `servebench regress`: one verdict per series for a night, from the store and/or
// folders of record JSON files, as Markdown, JUnit XML or JSON (verdict/).
// Exit status (common/exit_codes.h): 0 no confirmed regression; 4 a confirmed
// regression; 5 only an accuracy gate failed; 1 bad input (a record that does not
// read, a bad --expected recipe); 3 the data could not be read; 64 usage.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "cli/command.h"
#include "cli/command_line.h"
#include "cli/flag_checks.h"
#include "cli/judge_night.h"
#include "common/calendar_date.h"
#include "common/exit_codes.h"
#include "store/store.h"

namespace servebench::cli {
namespace {

int RunRegress(int argc, char** argv) {
  CLI::App app{
      "Judge one night of results against history: one verdict per series "
      "(regression, improvement, unchanged, new, missing, invalid, blocked, "
      "unblocked). See docs/regression.md.\n"
      "Exit status: 0 no confirmed regression; 4 a confirmed regression; 5 only an "
      "accuracy gate failed (a task below its floor); 1 bad input; 3 the data could not "
      "be read; 64 usage.",
      "servebench regress"};
  JudgeRequest q;
  AddDbFlag(&app, &q.db, "results store: a SQLite path or a postgresql:// URL");
  app.add_option("--records", q.record_dirs, "folder(s) of record JSON files (read recursively)");
  app.add_option("--date", q.date,
                 "the night judged, YYYY-MM-DD (default: the latest night in the data)");
  app.add_option("--expected", q.expected_files,
                 "recipe files (.yaml: their nightly points) or files of series ids, one per "
                 "line: expected series without a record tonight are 'missing'");
  app.add_option("--format", q.format, "md, junit or json")
      ->check(CLI::IsMember({"md", "junit", "json"}));
  app.add_option("--output", q.output, "write the report here (atomically) instead of stdout");
  app.add_flag("--require-build-identity", q.require_build_identity,
               "refuse (invalid) ok records without build.image and build.commit");
  if (auto done = ParseCommandLine(app, argc, argv)) return *done;
  if (q.db.empty() && q.record_dirs.empty()) {
    std::fprintf(stderr,
                 "servebench regress: give --db URL (or set $%s) and/or --records DIR (where the "
                 "records are)\n",
                 store::kStoreUrlEnv);
    return kExitUsage;
  }
  for (Status st : {q.date.empty() ? Status::Ok() : CheckCalendarDate("--date", q.date),
                    CheckOutputFile("--output", q.output), CheckStoreToRead(q.db)}) {
    if (!st.ok()) return Fail("servebench regress", kExitInvalidInput, st.message());
  }
  return JudgeNight(q);
}

const CommandRegistration kRegister{
    {"regress", "verdicts for a night against history (store or record folders)", RunRegress}};

}  // namespace
}  // namespace servebench::cli
