// Human- and shell-readable renderings of a ServerCommand, for `servebench run
// --dry-run` and for logs. The text pastes into bash: config files as here-documents,
// environment as assignments before the command, every word quoted when needed.
#pragma once

#include <string>
#include <vector>

#include "engine/server_command.h"

namespace servebench::engine {

// `word` quoted for POSIX sh: unchanged when it has only safe characters
// ([A-Za-z0-9_@%+=:,./-]), else in single quotes ('it'\''s').
std::string ShellQuote(const std::string& word);

// argv as one line, each word ShellQuote'd.
std::string JoinForShell(const std::vector<std::string>& argv);

// The whole command as a block: `mkdir -p DIR && cd DIR` when the command has its
// own folder (and the folders of its files), the prepare steps (after "# before
// the engine starts:"), a comment per env_from variable saying where its value
// comes from, a shell variable per hub snapshot the command names (resolved from the
// HF cache after the downloads, as at launch: engine/hub_snapshots.h; "$hf_snapshot_1"
// in the words), each config file as
// `cat > PATH <<'EOF'` ... `EOF`, then `ENV=value` assignments, then the program
// with one flag (and its value) per continued line ("--tensor-parallel-size 8"),
// backslash-newline between them. A docker/podman cleanup command follows as a
// comment. With a router (ServerCommand::router) the engine ends in ` &`, then a
// `curl .../health` loop waits for it, then the router's command, so pasted into bash
// it starts both as servebench does. Ends with a newline.
std::string FormatCommandForDisplay(const ServerCommand& command);

// One serve session for `servebench run --dry-run`: "# <title>", a comment line with
// the address and readiness rule (and the router's address, when one fronts it),
// then FormatCommandForDisplay(command).
std::string FormatSessionForDisplay(const std::string& title, const ServerCommand& command);

}  // namespace servebench::engine
