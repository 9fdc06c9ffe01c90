// CallRecord: one call of a stand-in executable during a script run, as standin.sh
// wrote it (cap/calls/<ns>-<pid>/: tool, role, argv, env, cwd, stdin). Plain values.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/status.h"

namespace servebench::capture {

struct CallRecord {
  std::string id;    // the record's folder name: "<ns>-<pid>", so ids sort by time
  std::string pid;   // a launcher and the program it became share one
  std::string tool;  // the name called: "vllm", "python3", "hf", ...
  // server | aux | launcher | client | download | gpu | python | setup | other
  std::string role;
  std::vector<std::string> argv;  // the arguments after the name
  std::map<std::string, std::string> env;
  std::string cwd;
  std::string stdin_text;  // the program of `python3 -`; empty otherwise
};

// Every record under `calls_dir`, oldest first. DataLoss naming the record when one
// is unreadable (a stand-in killed mid-write leaves no argv file: such records are
// skipped, as the call never got going).
StatusOr<std::vector<CallRecord>> ReadCallRecords(const std::string& calls_dir);

// "vllm serve org/m" / "python3 -m sglang.launch_server": the call as people name it
// (the tool and the arguments up to the first flag, at most three words).
std::string CallName(const CallRecord& call);

}  // namespace servebench::capture
