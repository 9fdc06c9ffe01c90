// Judging one night against history and writing its report: what `servebench
// regress` does once its flags are read, and what `servebench nightly --regress`
// does after its run, so the two give one verdict and one exit code.
#pragma once

#include <string>
#include <vector>

namespace servebench::cli {

struct JudgeRequest {
  std::string command = "regress";  // for messages: "servebench <command>: ..."
  std::string db;                   // the store; "" = none
  std::vector<std::string> record_dirs;
  std::string date;  // YYYY-MM-DD; "" = the latest night in the data
  // Recipe files (their nightly points) or files of series ids, one per line.
  std::vector<std::string> expected_files;
  std::string format = "md";  // md, junit, json
  std::string output;         // "" = stdout
  bool require_build_identity = false;
};

// Reads the records, judges the night (verdict/) and writes the report. Returns the
// exit code (common/exit_codes.h): 0 no confirmed regression; kExitRegression (4) a
// confirmed regression; kExitGateFailed (5) only an accuracy gate failed; 1 bad
// input (no such --db file or --records folder, a record that does not read, a bad
// --expected recipe or series list, a --date with no record); 3 the store could not
// be read or the report not written.
int JudgeNight(const JudgeRequest& request);

}  // namespace servebench::cli
