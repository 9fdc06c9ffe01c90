// The subcommand registry. Each subcommand lives in its own file in cli/
// (validate.cc, matrix.cc, sim.cc, ...) and registers itself with
//
//   static const CommandRegistration kRegister{
//       {"validate", "check recipes; every problem, with location", RunValidate}};
//
// so main.cpp never changes when a subcommand is added. `Run` receives argv with
// argv[0] = "servebench <name>" and the subcommand's own arguments after it; it
// returns a process exit code (common/exit_codes.h).
#pragma once

#include <string_view>
#include <vector>

namespace servebench::cli {

struct Command {
  std::string_view name;
  std::string_view summary;  // one line for `servebench --help`
  int (*run)(int argc, char** argv);
};

// All registered subcommands, sorted by name.
std::vector<Command> AllCommands();

struct CommandRegistration {
  explicit CommandRegistration(Command command);
};

}  // namespace servebench::cli
