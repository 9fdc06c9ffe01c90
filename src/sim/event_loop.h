// EventLoop: one epoll instance, one thread. The simulated server runs its HTTP
// connections and its engine steps on the same loop, so nothing on the hot path
// takes a lock (design.md principle 6). Timers have nanosecond resolution (one
// timerfd armed at the earliest deadline), because simulated step times of a few
// milliseconds must not be rounded to epoll_wait's milliseconds.
//
// Order inside one iteration: ready fds are dispatched, due timers run, posted
// tasks run, then the "before wait" hooks (the server flushes its write buffers
// there, so every event produced in an iteration leaves in one write per socket).
// Not thread-safe: every method must be called from the loop's thread, except
// Stop(), which may be called from a signal handler or another thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
#include <unordered_map>
#include <vector>

#include "common/status.h"

namespace servebench::sim {

class EventLoop {
 public:
  // Receives the epoll event mask (EPOLLIN, EPOLLOUT, EPOLLHUP...).
  class FdHandler {
   public:
    virtual ~FdHandler() = default;
    virtual void OnFdEvents(uint32_t events) = 0;
  };

  static StatusOr<std::unique_ptr<EventLoop>> Create();
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  // Registers, changes or removes interest in `fd`; `handler` must outlive it.
  Status Add(int fd, uint32_t events, FdHandler* handler);
  Status Modify(int fd, uint32_t events, FdHandler* handler);
  void Remove(int fd);

  // Runs `task` once at or after `deadline_ns` (CLOCK_MONOTONIC). Returns an id
  // for Cancel(). Timers due at the same instant run in the order they were set.
  uint64_t RunAt(int64_t deadline_ns, std::function<void()> task);
  void Cancel(uint64_t timer_id);

  // Runs `task` in this iteration's task phase (or the next, if called from it);
  // the loop does not block while tasks are pending.
  void Post(std::function<void()> task);

  // Called every iteration just before the loop may block.
  void AddBeforeWaitHook(std::function<void()> hook);

  // Runs until Stop(). Returns an error only if epoll itself fails.
  Status Run();
  void Stop();

 private:
  struct Timer {
    int64_t deadline_ns;
    uint64_t id;
    bool operator>(const Timer& other) const {
      return deadline_ns != other.deadline_ns ? deadline_ns > other.deadline_ns : id > other.id;
    }
  };
  EventLoop(int epoll_fd, int timer_fd, int wake_fd);
  void ArmTimerFd();
  void RunDueTimers();

  int epoll_fd_;
  int timer_fd_;
  int wake_fd_;  // eventfd written by Stop() so a blocked epoll_wait returns
  std::atomic<bool> stop_{false};
  uint64_t next_timer_id_ = 1;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<>> timers_;
  std::unordered_map<uint64_t, std::function<void()>> timer_tasks_;  // cancelled = absent
  int64_t armed_deadline_ns_ = -1;
  std::vector<std::function<void()>> posted_;
  std::vector<std::function<void()>> before_wait_;
};

}  // namespace servebench::sim
