// Picks a TCP port for an engine to listen on, so concurrent sessions (and stale
// servers from earlier runs) do not collide (infra.port_in_use). Thread-safe.
#pragma once

#include <string>

#include "common/failure_class.h"
#include "common/status.h"

namespace servebench::engine {

// A port on `host` (an IPv4 address, default loopback) that nothing listened on at
// the time of the call. It is drawn at random from below the kernel's ephemeral range
// (/proc/sys/net/ipv4/ip_local_port_range), not the kernel's own pick for port 0:
// that pick comes from the ephemeral range, where every outgoing connection on the
// host (the load generator's among them) takes its local port too, so between the
// pick and the engine's bind a client socket could hold it. Where the range leaves
// no room below it, the kernel's pick. The engine binds the port moments later; a
// race with another process is still possible, only rare, and is then classified
// infra.port_in_use (see IsPortTaken). Unavailable when no socket can be bound.
StatusOr<int> FindFreePort(const std::string& host = "127.0.0.1");

// Whether `c` is the class of an engine that could not bind its port (the engine
// catalogue's port_held situation, data/engine/failure_signatures.yaml): a start on a
// port FindFreePort picked that failed so is worth one more try on fresh ports.
bool IsPortTaken(const FailureClass& c);

}  // namespace servebench::engine
