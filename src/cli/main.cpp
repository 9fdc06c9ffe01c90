// servebench: the single binary. Dispatches `servebench <subcommand> ...` to the
// subcommand registered under that name (cli/command.h).
#include <cstdio>
#include <string>
#include <string_view>

#include "cli/command.h"
#include "common/exit_codes.h"
#include "common/version.h"

namespace {

void PrintUsage(std::FILE* out) {
  std::fprintf(out,
               "servebench %s: benchmark LLM serving engines exactly.\n\n"
               "Usage: servebench <command> [options]   (servebench <command> --help for more)\n\n"
               "Commands:\n",
               servebench::kVersion);
  for (const auto& command : servebench::cli::AllCommands()) {
    std::fprintf(out, "  %-12.*s %.*s\n", static_cast<int>(command.name.size()),
                 command.name.data(), static_cast<int>(command.summary.size()),
                 command.summary.data());
  }
  std::fprintf(out,
               "\nOptions:\n  --help       this text\n  --version    version and git revision\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    PrintUsage(stderr);
    return servebench::kExitUsage;
  }
  std::string_view first = argv[1];
  if (first == "--help" || first == "-h" || first == "help") {
    PrintUsage(stdout);
    return servebench::kExitOk;
  }
  if (first == "--version" || first == "version") {
    std::printf("servebench %s (git %s)\n", servebench::kVersion, servebench::kGitRevision);
    return servebench::kExitOk;
  }
  for (const auto& command : servebench::cli::AllCommands()) {
    if (command.name == first) {
      std::string program = "servebench " + std::string(first);
      argv[1] = program.data();
      return command.run(argc - 1, argv + 1);
    }
  }
  std::fprintf(stderr, "servebench: unknown command '%s'; run 'servebench --help' for the list\n",
               argv[1]);
  return servebench::kExitUsage;
}
