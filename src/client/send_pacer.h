// SendPacer: the thread that sends an open-loop schedule's requests on time (a trace's
// fixed schedule, docs/agentic.md; a request rate's arrivals, docs/run.md). The load worker's
// event-loop thread also parses every stream; a send due while it parses a burst of chunks would
// wait for the parsing, and its timer fires through epoll with the kernel's timer slack. The pacer
// has nothing else to do: for each item, in order, it sleeps on CLOCK_MONOTONIC until
// kLeadNs before the due time (timer slack set to 1 ns), calls `prepare` (the worker
// takes an idle connection off its pool and checks it there, so no check is left for
// the due instant), spins until the due time, and calls `fire` (one non-blocking
// write of the pre-built request bytes, then a hand-off to the worker). An item
// already due is prepared and fired at once.
//
// Threads: Start() and Stop() on the owner's thread; `prepare` and `fire` run on the
// pacer's thread, one item at a time, prepare(i) before fire(i) before prepare(i+1).
// `done` runs on the pacer's thread after the last item's fire, not after Stop().
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace servebench::client {

class SendPacer {
 public:
  // Woken this long before a due time, it spins the rest: a futex wake-up on a busy
  // host comes tens to hundreds of µs late, a spin of 200 µs per request costs
  // 0.02 % of a core per request/s.
  static constexpr int64_t kLeadNs = 200'000;

  using Prepare = std::function<void(size_t item)>;
  using Fire = std::function<void(size_t item, int64_t due_ns)>;
  using Done = std::function<void()>;

  // `due_ns`: monotonic due times, non-decreasing.
  SendPacer(std::vector<int64_t> due_ns, Prepare prepare, Fire fire, Done done);
  ~SendPacer();  // Stop()s
  SendPacer(const SendPacer&) = delete;
  SendPacer& operator=(const SendPacer&) = delete;

  void Start();
  // Ends the pacing (a wait is cut short; an item being fired is finished) and joins
  // the thread. Idempotent. After it, taken() is final.
  void Stop();
  // Items fired so far; read it after Stop() (or after `done`).
  size_t taken() const { return next_; }
  // Whether the thread runs at a real-time priority (SCHED_FIFO 1); read it after
  // Stop(). It asks for one so that a host busy with other work (a build, the engine
  // on the same cores) cannot hold it off its due times: it sleeps between sends and
  // spins at most kLeadNs per send, and the kernel's real-time throttling bounds
  // it even then. Without the privilege (CAP_SYS_NICE or an RLIMIT_RTPRIO) it runs at
  // normal priority, and a busy host's delay shows in the issue delay.
  bool realtime() const { return realtime_; }

 private:
  void Loop();
  // SCHED_FIFO at priority 1 for the calling thread, on a host with 2 or more CPUs.
  static bool TryRealtime();
  // Sleeps until `t_ns` or Stop(); false when stopped.
  bool SleepUntil(int64_t t_ns);

  std::vector<int64_t> due_ns_;
  Prepare prepare_;
  Fire fire_;
  Done done_;
  size_t next_ = 0;  // owned by the pacer's thread while it runs
  bool realtime_ = false;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;  // GUARDED_BY(mu_)
  std::thread thread_;
};

}  // namespace servebench::client
