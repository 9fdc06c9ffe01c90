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

Status CheckPromptMemory(double prompt_tokens, std::string_view what, int64_t host_memory_bytes) {
  const int64_t host = host_memory_bytes > 0 ? host_memory_bytes : HostMemoryBytes();
  const double bytes = prompt_tokens * static_cast<double>(limits::kPromptBytesPerToken);
  constexpr double kGB = 1e9;
  if (prompt_tokens > static_cast<double>(limits::kMaxPromptTokensPerRun)) {
    return Status::InvalidArgument(fmt::format(
        "{}: up to {:.0f} prompt tokens; at most {} are prepared per run: use fewer or shorter "
        "prompts",
        what, prompt_tokens, limits::kMaxPromptTokensPerRun));
  }
  if (host > 0 && bytes > static_cast<double>(host) / 4) {
    return Status::InvalidArgument(fmt::format(
        "{}: up to {:.0f} prompt tokens, ~{:.1f} GB prepared before the run starts; this host has "
        "{:.1f} GB of memory and prompts may take a quarter of it: use fewer or shorter prompts, "
        "or run the client on a host with at least {:.0f} GB",
        what, prompt_tokens, bytes / kGB, static_cast<double>(host) / kGB,
        std::ceil(4 * bytes / kGB)));
  }
  return Status::Ok();
}

}  // namespace servebench::client
