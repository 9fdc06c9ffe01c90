#include "common/log.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

namespace servebench {
namespace {
LogLevel InitialLevel() {
  const char* env = std::getenv("SERVEBENCH_LOG");
  if (env != nullptr && std::strcmp(env, "debug") == 0) return LogLevel::kDebug;
  return LogLevel::kInfo;
}
std::atomic<LogLevel>& Level() {
  static std::atomic<LogLevel> level{InitialLevel()};
  return level;
}
}  // namespace

void SetLogLevel(LogLevel level) { Level().store(level); }
LogLevel GetLogLevel() { return Level().load(); }

void LogLine(LogLevel level, std::string_view message) {
  std::string line = "servebench: ";
  switch (level) {
    case LogLevel::kDebug:
      line += "debug: ";
      break;
    case LogLevel::kInfo:
      break;
    case LogLevel::kWarning:
      line += "warning: ";
      break;
    case LogLevel::kError:
      line += "error: ";
      break;
  }
  line.append(message);
  line.push_back('\n');
  // One write so lines from several threads never interleave mid-line.
  ssize_t ignored = ::write(STDERR_FILENO, line.data(), line.size());
  (void)ignored;
}

}  // namespace servebench
