// `servebench ingest DIR...`: store the records that runs wrote (on this machine or
// others) into the results store. Every `records/*.json` under each DIR is ingested;
// ingesting again changes nothing. Each file gets one line saying what happened.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/command_line.h"
#include "cli/flag_checks.h"
#include "common/exit_codes.h"
#include "store/record_files.h"
#include "store/store.h"

namespace servebench::cli {
namespace {

int RunIngest(int argc, char** argv) {
  CLI::App app{
      "Ingest record files (<dir>/records/<record_id>.json, written by `servebench run`) into "
      "the results store. Idempotent: a record already stored is left as it is.",
      "servebench ingest"};
  std::vector<std::string> dirs;
  std::string db = "servebench.db";
  bool quiet = false;
  app.add_option("DIR", dirs, "run output folders (or folders of them, or records/ folders)")
      ->required();
  AddDbFlag(&app, &db, "SQLite file or postgresql:// URL");
  app.add_flag("-q,--quiet", quiet, "print only files that were refused, and the totals");
  if (auto done = ParseCommandLine(app, argc, argv)) return *done;
  if (Status st = CheckStoreToWrite(db); !st.ok()) {
    return Fail("servebench ingest", ExitCodeFor(st), st.message());
  }

  std::vector<std::string> files;
  for (const std::string& dir : dirs) {
    auto found = store::FindRecordFiles(dir);
    if (!found.ok()) {
      std::fprintf(stderr, "servebench ingest: %s\n", found.status().message().c_str());
      return kExitInvalidInput;
    }
    files.insert(files.end(), found->begin(), found->end());
  }
  if (files.empty()) {
    std::fprintf(stderr,
                 "servebench ingest: no record files found (looked for records/*.json under "
                 "each DIR); give the --out folder of a servebench run\n");
    return kExitInvalidInput;
  }
  auto opened = store::Open(db);
  if (!opened.ok()) {
    return Fail("servebench ingest", ExitCodeFor(opened.status()), opened.status().message());
  }
  store::Store& results = **opened;
  auto outcomes = store::IngestRecordFiles(results, files);
  if (!outcomes.ok()) {
    std::fprintf(stderr, "servebench ingest: %s\n", outcomes.status().message().c_str());
    return kExitRunFailed;
  }
  int inserted = 0, present = 0, invalid = 0, conflicts = 0;
  for (const store::FileOutcome& o : *outcomes) {
    if (!o.outcome) {
      ++invalid;
      std::printf("invalid          %s\n", o.error.message().c_str());
    } else if (*o.outcome == store::IngestOutcome::kConflict) {
      ++conflicts;
      std::printf(
          "conflict         %s: a different record with this record_id is already "
          "stored; it was kept and this file was not stored\n",
          o.path.c_str());
    } else if (*o.outcome == store::IngestOutcome::kInserted) {
      ++inserted;
      if (!quiet) std::printf("inserted         %s\n", o.path.c_str());
    } else {
      ++present;
      if (!quiet) std::printf("already-present  %s\n", o.path.c_str());
    }
  }
  std::printf("%d inserted, %d already present, %d invalid, %d conflicting (%zu files) into %s\n",
              inserted, present, invalid, conflicts, files.size(), results.Describe().c_str());
  return invalid + conflicts > 0 ? kExitInvalidInput : kExitOk;
}

const CommandRegistration kRegister{
    {"ingest", "store record files from run output folders (idempotent)", RunIngest}};

}  // namespace
}  // namespace servebench::cli
