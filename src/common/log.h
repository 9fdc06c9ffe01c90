// Logging to stderr for people watching a run. Results never go through here:
// they are written by metrics/ and store/. Thread-safe: one write() per line.
#pragma once

#include <fmt/format.h>

#include <string_view>

namespace servebench {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3 };

// Lines below this level are dropped. Default kInfo; SERVEBENCH_LOG=debug lowers it.
void SetLogLevel(LogLevel level);
LogLevel GetLogLevel();

// Writes "servebench: <level>: <message>\n" (level omitted for info) as one write.
void LogLine(LogLevel level, std::string_view message);

template <typename... Args>
void Log(LogLevel level, fmt::format_string<Args...> format, Args&&... args) {
  if (level < GetLogLevel()) return;
  LogLine(level, fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace servebench
