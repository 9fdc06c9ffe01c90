// Picks a TCP port for an engine to listen on, so concurrent sessions (and stale
// servers from earlier runs) do not collide (infra.port_in_use). Thread-safe.
#pragma once

#include <string>

#include "common/status.h"

namespace servebench::engine {

// A port on `host` (an IPv4 address, default loopback) that nothing listened on at
// the time of the call: the kernel's pick for a socket bound to port 0. The engine
// binds it moments later; a race with another process is possible but rare, and is
// then classified infra.port_in_use. Unavailable when no socket can be bound.
StatusOr<int> FindFreePort(const std::string& host = "127.0.0.1");

}  // namespace servebench::engine
