// How every subcommand reads its command line, so each exits the same way and every
// --help ends with the same exit-code table (common/exit_codes.h):
//   0  after --help / --version
//   64 (kExitUsage) when the command line cannot be read: an unknown flag, a missing
//      argument, conflicting flags, a value of the wrong type ("abc" for a number)
//   1  (kExitInvalidInput) when a value was read but is not allowed: a choice outside
//      its set (CLI11 validators), and everything the settings' Validate() refuses
// Values are checked before any engine, socket or file is touched; CheckedArgs and
// the Validate() functions of the settings structs say what each value may be.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "common/status.h"

namespace servebench::cli {

// The text every --help ends with: one line per exit code.
std::string ExitCodeHelp();

// Adds ExitCodeHelp() as the footer of `app` and of every subcommand below it (call
// after the subcommands are added), then parses. Returns nullopt when the command
// should go on, otherwise the exit code to return (the message was printed).
std::optional<int> ParseCommandLine(CLI::App& app, int argc, char** argv);

// Prints "<command>: <message>" on stderr and returns `code`.
int Fail(std::string_view command, int code, std::string_view message);

// Exit code for a Status that stopped a command before or during its work:
// InvalidArgument, NotFound, FailedPrecondition, AlreadyExists -> 1 (bad input);
// Cancelled -> 130; everything else (unreachable, timeouts, disk, internal) -> 3.
int ExitCodeFor(const Status& status);

}  // namespace servebench::cli
