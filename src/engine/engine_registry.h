// Internal to engine/: the registry of live engines behind StopAllEngines() and
// KillAllEnginesFromSignalHandler() (supervisor.h). A fixed table of atomics, so a
// signal handler can read it without locks or allocation.
#pragma once

#include <sys/types.h>

namespace servebench::engine {
class Supervisor;
namespace internal {

inline constexpr int kMaxRegisteredEngines = 256;

// Records a live engine; returns its slot (-1 when the table is full: the engine
// still dies with servebench through its watchdog, only the signal path misses it).
int RegisterEngine(Supervisor* supervisor, pid_t watchdog_pid, pid_t engine_pgid);
void UnregisterEngine(int slot);

}  // namespace internal
}  // namespace servebench::engine
