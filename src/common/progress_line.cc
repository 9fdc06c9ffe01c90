#include "common/progress_line.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>

#include "common/clock.h"

namespace servebench {

namespace {
constexpr double kTerminalPeriodS = 0.1;
}  // namespace

ProgressLine::ProgressLine(std::string prefix, bool enabled, double plain_period_s)
    : ProgressLine(std::move(prefix), enabled, ::isatty(STDERR_FILENO) == 1, plain_period_s) {}

ProgressLine::ProgressLine(std::string prefix, bool enabled, bool terminal, double plain_period_s)
    : prefix_(std::move(prefix)),
      enabled_(enabled),
      terminal_(terminal),
      period_s_(terminal ? kTerminalPeriodS : plain_period_s),
      // A log gets its first line one period in: a short task shows only its end.
      last_shown_ns_(terminal ? -1 : MonotonicNowNs()) {}

void ProgressLine::Update(const std::string& text) {
  if (!enabled_) return;
  int64_t now = MonotonicNowNs();
  if (last_shown_ns_ >= 0 && static_cast<double>(now - last_shown_ns_) / 1e9 < period_s_) return;
  last_shown_ns_ = now;
  Show(text, false);
}

void ProgressLine::Finish(const std::string& text) {
  if (!enabled_) return;
  Show(text, true);
  last_shown_ns_ = terminal_ ? -1 : MonotonicNowNs();
  last_width_ = 0;
}

void ProgressLine::Show(const std::string& text, bool final) {
  std::string line = prefix_ + text;
  if (terminal_) {
    // Pad over what the previous, longer line left on screen.
    size_t width = line.size();
    if (width < last_width_) line.append(last_width_ - width, ' ');
    last_width_ = width;
    std::fprintf(stderr, "\r%s%s", line.c_str(), final ? "\n" : "");
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::fflush(stderr);
}

std::string FormatDuration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  auto s = static_cast<int64_t>(std::llround(seconds));
  if (s >= 3600) return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
  if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

}  // namespace servebench
