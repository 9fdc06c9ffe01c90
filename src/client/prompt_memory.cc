// The prompt-memory rule (prompt_memory.h).
#include "client/prompt_memory.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>

#include "common/limits.h"

namespace servebench::client {

int64_t HostMemoryBytes() {
  long pages = ::sysconf(_SC_PHYS_PAGES);
  long page_size = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page_size > 0 ? static_cast<int64_t>(pages) * page_size : 0;
}

namespace {

// `tokens` of `kind` ("prompt", "output") at `bytes_per_token`, under `ceiling`, within a
// quarter of the host's memory; `when` says when the memory is held, `advice` what to
// change ("fewer or shorter prompts").
Status CheckTokenMemory(double tokens, std::string_view kind, int64_t bytes_per_token,
                        int64_t ceiling, std::string_view when, std::string_view advice,
                        std::string_view what, int64_t host_memory_bytes) {
  const int64_t host = host_memory_bytes > 0 ? host_memory_bytes : HostMemoryBytes();
  const double bytes = tokens * static_cast<double>(bytes_per_token);
  constexpr double kGB = 1e9;
  if (tokens > static_cast<double>(ceiling)) {
    return Status::InvalidArgument(
        fmt::format("{}: up to {:.0f} {} tokens; at most {} per run: "
                    "use {}",
                    what, tokens, kind, ceiling, advice));
  }
  if (host > 0 && bytes > static_cast<double>(host) / 4) {
    return Status::InvalidArgument(fmt::format(
        "{}: up to {:.0f} {} tokens, ~{:.1f} GB {}; this host has {:.1f} GB of memory and a run "
        "may take a quarter of it: use {}, or run the client on a host with at least {:.0f} GB",
        what, tokens, kind, bytes / kGB, when, static_cast<double>(host) / kGB, advice,
        std::ceil(4 * bytes / kGB)));
  }
  return Status::Ok();
}

}  // namespace

Status CheckPromptMemory(double prompt_tokens, std::string_view what, int64_t host_memory_bytes) {
  return CheckTokenMemory(prompt_tokens, "prompt", limits::kPromptBytesPerToken,
                          limits::kMaxPromptTokensPerRun, "prepared before the run starts",
                          "fewer or shorter prompts", what, host_memory_bytes);
}

Status CheckOutputMemory(double output_tokens, std::string_view what, int64_t host_memory_bytes) {
  return CheckTokenMemory(output_tokens, "output", limits::kOutputBytesPerToken,
                          limits::kMaxOutputTokensPerRun, "of recorded stream events",
                          "fewer prompts or shorter outputs", what, host_memory_bytes);
}

}  // namespace servebench::client
