// ProgressLine: live progress for people watching a long command (bench inside a
// point, each run point, eval questions) on stderr. On a terminal it is one line
// redrawn in place ("\r...") at most every 0.1 s; when stderr is not a terminal (CI
// logs, files) it prints a plain line every `plain_period_s` (the first one period
// after the start), so a log shows progress without a line per redraw. Finish()
// always prints the final state once.
// Not thread-safe: one thread (a progress thread, or the worker loop) drives it.
#pragma once

#include <cstdint>
#include <string>

namespace servebench {

class ProgressLine {
 public:
  static constexpr double kDefaultPlainPeriodS = 10.0;

  // `prefix` starts every line ("servebench eval: "). Disabled lines print nothing.
  ProgressLine(std::string prefix, bool enabled, double plain_period_s = kDefaultPlainPeriodS);
  // For tests: decide the terminal-ness instead of asking isatty(stderr).
  ProgressLine(std::string prefix, bool enabled, bool terminal, double plain_period_s);

  // Shows `text` if enough time has passed since the last line shown.
  void Update(const std::string& text);
  // Shows `text` as the last line (ending the redrawn line on a terminal).
  void Finish(const std::string& text);

  bool terminal() const { return terminal_; }

 private:
  void Show(const std::string& text, bool final);
  std::string prefix_;
  bool enabled_;
  bool terminal_;
  double period_s_;
  int64_t last_shown_ns_ = -1;
  size_t last_width_ = 0;
};

// "1h02m", "4m05s", "12s": a duration for ETAs and elapsed times.
std::string FormatDuration(double seconds);

}  // namespace servebench
