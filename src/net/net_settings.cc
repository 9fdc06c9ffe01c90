#include "net/net_settings.h"

#include <fmt/format.h>

namespace servebench::net {

Status Validate(const FetchSettings& s) {
  if (s.timeout_ms == 0) {
    return Status::InvalidArgument(
        "timeout_ms = 0: must be > 0 (milliseconds for connect, write and read of one attempt)");
  }
  if (s.max_body_bytes == 0) {
    return Status::InvalidArgument("max_body_bytes = 0: must be > 0");
  }
  if (s.max_retries > 100) {
    return Status::InvalidArgument(
        fmt::format("max_retries = {}: must be at most 100 (each retry waits up to {} ms)",
                    s.max_retries, 8000));
  }
  return Status::Ok();
}

}  // namespace servebench::net
