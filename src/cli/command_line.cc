#include "cli/command_line.h"

#include <fmt/format.h>

#include <cstdio>

#include "common/exit_codes.h"

namespace servebench::cli {
namespace {

void SetFooter(CLI::App* app, const std::string& footer) {
  app->footer(footer);
  for (CLI::App* sub : app->get_subcommands([](CLI::App*) { return true; })) {
    SetFooter(sub, footer);
  }
}

}  // namespace

std::string ExitCodeHelp() {
  std::string out = "Exit codes (the same for every servebench command):\n";
  for (const ExitCodeMeaning& e : kExitCodeTable) {
    out += fmt::format("  {:<4} {}\n", e.code, e.meaning);
  }
  return out;
}

std::optional<int> ParseCommandLine(CLI::App& app, int argc, char** argv) {
  SetFooter(&app, ExitCodeHelp());
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int printed = app.exit(e);
    if (printed == 0) return kExitOk;  // --help, --version
    // A validator refused a value of the right type: bad input, not a malformed line.
    if (dynamic_cast<const CLI::ValidationError*>(&e) != nullptr) return kExitInvalidInput;
    return kExitUsage;
  }
  return std::nullopt;
}

int Fail(std::string_view command, int code, std::string_view message) {
  std::fprintf(stderr, "%.*s: %.*s\n", static_cast<int>(command.size()), command.data(),
               static_cast<int>(message.size()), message.data());
  return code;
}

int ExitCodeFor(const Status& status) {
  switch (status.code()) {
    case StatusCode::kOk:
      return kExitOk;
    case StatusCode::kInvalidArgument:
    case StatusCode::kNotFound:
    case StatusCode::kFailedPrecondition:
    case StatusCode::kAlreadyExists:
      return kExitInvalidInput;
    case StatusCode::kCancelled:
      return kExitInterrupted;
    default:
      return kExitRunFailed;
  }
}

}  // namespace servebench::cli
