#include "cli/command.h"

#include <algorithm>

namespace servebench::cli {
namespace {
// Function-local static: registration runs during static initialisation of other
// files, whose order is unspecified.
std::vector<Command>& Registry() {
  static std::vector<Command> commands;
  return commands;
}
}  // namespace

CommandRegistration::CommandRegistration(Command command) { Registry().push_back(command); }

std::vector<Command> AllCommands() {
  std::vector<Command> sorted = Registry();
  std::sort(sorted.begin(), sorted.end(),
            [](const Command& a, const Command& b) { return a.name < b.name; });
  return sorted;
}

}  // namespace servebench::cli
