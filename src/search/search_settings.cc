#include "search/search_settings.h"

#include <fmt/format.h>

#include <cmath>

#include "common/limits.h"

namespace servebench::search {

Status Validate(const SearchSettings& s) {
  auto bad = [](std::string m) { return Status::InvalidArgument(std::move(m)); };
  if (s.slos.empty()) {
    return bad("no --slo given: name at least one limit, e.g. --slo ttft_p99_ms<=500");
  }
  if (!(s.min > 0) || !std::isfinite(s.max) || !(s.max >= s.min)) {
    return bad(fmt::format("--search-min {} / --search-max {}: need 0 < min <= max", s.min, s.max));
  }
  if (s.vary == Vary::kConcurrency) {
    if (s.min != std::floor(s.min) || s.max != std::floor(s.max) ||
        s.max > static_cast<double>(limits::kMaxConcurrency)) {
      return bad(fmt::format(
          "--search-min {} / --search-max {}: concurrency must be whole numbers 1 .. {}", s.min,
          s.max, limits::kMaxConcurrency));
    }
    if (s.concurrency_step < 1) {
      return bad(fmt::format("--search-step {}: must be >= 1", s.concurrency_step));
    }
    if (s.prompts_per_concurrency < 0 || static_cast<double>(s.prompts_per_concurrency) * s.max >
                                             static_cast<double>(limits::kMaxPromptsPerRun)) {
      return bad(
          fmt::format("--search-prompts-per-concurrency {}: must be 0 (--num-prompts) .. {} at "
                      "--search-max {}",
                      s.prompts_per_concurrency,
                      limits::kMaxPromptsPerRun / static_cast<int64_t>(s.max), s.max));
    }
    if (s.bench.request_rate_per_s > 0) {
      return bad("--vary concurrency runs closed loops: leave --request-rate at inf");
    }
  } else if (!(s.rate_resolution > 0 && s.rate_resolution < 1)) {
    return bad(fmt::format("--search-resolution {}: must be a fraction in (0, 1), e.g. 0.05",
                           s.rate_resolution));
  }
  if (s.repeats < 1 || s.repeats > 9) {
    return bad(fmt::format("--search-repeats {}: must be 1 .. 9", s.repeats));
  }
  if (s.max_probes < 2 || s.max_probes > 200) {
    return bad(fmt::format("--search-max-probes {}: must be 2 .. 200", s.max_probes));
  }
  // The load itself, as the first probe would run it.
  client::BenchSettings probe = s.bench;
  if (s.vary == Vary::kConcurrency) {
    probe.max_concurrency = static_cast<int64_t>(s.max);
    if (s.prompts_per_concurrency > 0)
      probe.num_prompts = s.prompts_per_concurrency * probe.max_concurrency;
  } else {
    probe.request_rate_per_s = s.max;
  }
  return client::Validate(probe);
}

}  // namespace servebench::search
