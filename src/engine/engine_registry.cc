#include "engine/engine_registry.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <vector>

#include "engine/supervisor.h"

namespace servebench::engine {
namespace internal {
namespace {

struct Slot {
  std::atomic<pid_t> watchdog{0};
  std::atomic<pid_t> engine_pgid{0};
  std::atomic<Supervisor*> supervisor{nullptr};
};

Slot g_slots[kMaxRegisteredEngines];
std::mutex g_stop_all_mu;  // serialises StopAllEngines() callers

}  // namespace

int RegisterEngine(Supervisor* supervisor, pid_t watchdog_pid, pid_t engine_pgid) {
  for (int i = 0; i < kMaxRegisteredEngines; ++i) {
    pid_t expected = 0;
    if (g_slots[i].watchdog.compare_exchange_strong(expected, watchdog_pid)) {
      g_slots[i].engine_pgid.store(engine_pgid);
      g_slots[i].supervisor.store(supervisor);
      return i;
    }
  }
  return -1;
}

void UnregisterEngine(int slot) {
  if (slot < 0 || slot >= kMaxRegisteredEngines) return;
  g_slots[slot].supervisor.store(nullptr);
  g_slots[slot].engine_pgid.store(0);
  g_slots[slot].watchdog.store(0);
}

}  // namespace internal

void StopAllEngines() {
  std::lock_guard<std::mutex> lock(internal::g_stop_all_mu);
  for (auto& slot : internal::g_slots) {
    Supervisor* supervisor = slot.supervisor.load();
    if (supervisor != nullptr) (void)supervisor->Stop();
  }
}

void KillAllEnginesFromSignalHandler() {
  for (auto& slot : internal::g_slots) {
    const pid_t pgid = slot.engine_pgid.load();
    const pid_t watchdog = slot.watchdog.load();
    if (pgid > 0) kill(-pgid, SIGKILL);
    if (watchdog > 0) kill(watchdog, SIGKILL);
  }
}

namespace {
void OnTerminatingSignal(int sig) {
  KillAllEnginesFromSignalHandler();
  signal(sig, SIG_DFL);
  raise(sig);
}
}  // namespace

void InstallEngineCleanupSignalHandlers() {
  struct sigaction action {};
  action.sa_handler = OnTerminatingSignal;
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &action, nullptr);
}

}  // namespace servebench::engine
