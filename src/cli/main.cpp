// servebench: the single binary. Dispatches `servebench <subcommand> ...` to the
// subcommand registered under that name (cli/command.h).
//
// Last resort: an exception that escapes a command (or any thread: std::terminate)
// is a bug, but it must not end in abort() (exit 134) with engines left running.
// It prints one line naming the command and the exception, stops every engine this
// process started, and exits 3 (kExitRunFailed). Records already written stay.
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <string_view>

#include "cli/command.h"
#include "common/exit_codes.h"
#include "common/version.h"
#include "engine/supervisor.h"

namespace {

// The command being run, for the last-resort message ("servebench" before dispatch).
const char* g_command = "servebench";

std::string DescribeCurrentException() {
  std::exception_ptr current = std::current_exception();
  if (current == nullptr) return "std::terminate was called without an exception";
  try {
    std::rethrow_exception(current);
  } catch (const std::bad_alloc&) {
    return "out of memory (std::bad_alloc): an input asked for more than this machine has";
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "an exception of unknown type";
  }
}

[[noreturn]] void LastResort(const std::string& what) {
  std::fprintf(stderr, "%s: internal error: %s; stopping (exit %d). Please report this.\n",
               g_command, what.c_str(), servebench::kExitRunFailed);
  std::fflush(stderr);
  servebench::engine::KillAllEnginesFromSignalHandler();
  ::_exit(servebench::kExitRunFailed);
}

// Also reached from threads, where an escaping exception calls std::terminate.
[[noreturn]] void OnTerminate() { LastResort(DescribeCurrentException()); }

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
  std::set_terminate(OnTerminate);
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
      static std::string program;
      program = "servebench " + std::string(first);
      g_command = program.c_str();
      argv[1] = program.data();
      try {
        return command.run(argc - 1, argv + 1);
      } catch (...) {
        LastResort(DescribeCurrentException());
      }
    }
  }
  std::fprintf(stderr, "servebench: unknown command '%s'; run 'servebench --help' for the list\n",
               argv[1]);
  return servebench::kExitUsage;
}
