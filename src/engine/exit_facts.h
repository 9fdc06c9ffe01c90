// What can still be found out about an engine that exited before it became ready
// when its log names no cause. Some engines lose their last log lines at exit:
// llama.cpp's logger thread is never joined (llama.cpp issue #22142), so the line
// written just before `return 1` ("failed to open GGUF file", "couldn't bind HTTP
// server socket") is missing from the log about half the time. These checks are
// facts about the host, not guesses from text: a file the command reads that does
// not exist, the port it was to listen on held by another process. The supervisor
// uses them only when no signature matched. Thread-safe (reads the file system and
// binds a throw-away socket).
#pragma once

#include <optional>
#include <string>

#include "engine/server_command.h"

namespace servebench::engine {

struct ExitFact {
  // The key of data/engine/failure_signatures.yaml `situations` naming the class:
  // "input_file_missing" or "port_held".
  std::string situation;
  std::string detail;  // for people: "/models/x.gguf (serve.model) does not exist"
};

// The first fact that explains the exit, or nullopt.
std::optional<ExitFact> FindExitFact(const ServerCommand& command);

}  // namespace servebench::engine
