#include "sim/event_loop.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "common/clock.h"

namespace servebench::sim {
namespace {
// Sentinel handler pointers for the loop's own fds.
EventLoop::FdHandler* const kTimerTag = reinterpret_cast<EventLoop::FdHandler*>(1);
EventLoop::FdHandler* const kWakeTag = reinterpret_cast<EventLoop::FdHandler*>(2);
constexpr int kMaxEvents = 256;

std::string Errno(const char* what) { return std::string(what) + ": " + std::strerror(errno); }
}  // namespace

StatusOr<std::unique_ptr<EventLoop>> EventLoop::Create() {
  int ep = epoll_create1(EPOLL_CLOEXEC);
  if (ep < 0) return Status::Internal(Errno("epoll_create1"));
  int tf = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (tf < 0) {
    close(ep);
    return Status::Internal(Errno("timerfd_create"));
  }
  int wf = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wf < 0) {
    close(ep);
    close(tf);
    return Status::Internal(Errno("eventfd"));
  }
  std::unique_ptr<EventLoop> loop(new EventLoop(ep, tf, wf));
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = kTimerTag;
  epoll_ctl(ep, EPOLL_CTL_ADD, tf, &ev);
  ev.data.ptr = kWakeTag;
  epoll_ctl(ep, EPOLL_CTL_ADD, wf, &ev);
  return loop;
}

EventLoop::EventLoop(int epoll_fd, int timer_fd, int wake_fd)
    : epoll_fd_(epoll_fd), timer_fd_(timer_fd), wake_fd_(wake_fd) {}

EventLoop::~EventLoop() {
  close(epoll_fd_);
  close(timer_fd_);
  close(wake_fd_);
}

Status EventLoop::Add(int fd, uint32_t events, FdHandler* handler) {
  epoll_event ev{};
  ev.events = events;
  ev.data.ptr = handler;
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0)
    return Status::Internal(Errno("epoll_ctl ADD"));
  return Status::Ok();
}

Status EventLoop::Modify(int fd, uint32_t events, FdHandler* handler) {
  epoll_event ev{};
  ev.events = events;
  ev.data.ptr = handler;
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, fd, &ev) != 0)
    return Status::Internal(Errno("epoll_ctl MOD"));
  return Status::Ok();
}

void EventLoop::Remove(int fd) { epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr); }

uint64_t EventLoop::RunAt(int64_t deadline_ns, std::function<void()> task) {
  uint64_t id = next_timer_id_++;
  timers_.push(Timer{deadline_ns, id});
  timer_tasks_.emplace(id, std::move(task));
  if (armed_deadline_ns_ < 0 || deadline_ns < armed_deadline_ns_) ArmTimerFd();
  return id;
}

void EventLoop::Cancel(uint64_t timer_id) { timer_tasks_.erase(timer_id); }

void EventLoop::Post(std::function<void()> task) { posted_.push_back(std::move(task)); }

void EventLoop::AddBeforeWaitHook(std::function<void()> hook) {
  before_wait_.push_back(std::move(hook));
}

void EventLoop::Stop() {
  stop_.store(true);
  uint64_t one = 1;
  ssize_t ignored = write(wake_fd_, &one, sizeof one);
  (void)ignored;
}

void EventLoop::ArmTimerFd() {
  // Drop cancelled timers at the top so the fd is armed for a live one.
  while (!timers_.empty() && !timer_tasks_.count(timers_.top().id)) timers_.pop();
  itimerspec spec{};
  if (timers_.empty()) {
    armed_deadline_ns_ = -1;
  } else {
    int64_t d = timers_.top().deadline_ns;
    if (d <= 0) d = 1;  // 0 would disarm the timer
    spec.it_value.tv_sec = d / 1'000'000'000;
    spec.it_value.tv_nsec = d % 1'000'000'000;
    armed_deadline_ns_ = d;
  }
  timerfd_settime(timer_fd_, TFD_TIMER_ABSTIME, &spec, nullptr);
}

void EventLoop::RunDueTimers() {
  int64_t now = MonotonicNowNs();
  while (!timers_.empty() && timers_.top().deadline_ns <= now) {
    Timer t = timers_.top();
    timers_.pop();
    auto it = timer_tasks_.find(t.id);
    if (it == timer_tasks_.end()) continue;
    std::function<void()> task = std::move(it->second);
    timer_tasks_.erase(it);
    task();
  }
  ArmTimerFd();
}

Status EventLoop::Run() {
  epoll_event events[kMaxEvents];
  while (!stop_.load(std::memory_order_relaxed)) {
    for (auto& hook : before_wait_) hook();
    int timeout_ms = posted_.empty() ? -1 : 0;
    // A timer already due (e.g. set by a hook for "now") must not wait for the fd.
    if (!timers_.empty() && timers_.top().deadline_ns <= MonotonicNowNs()) timeout_ms = 0;
    int n = epoll_wait(epoll_fd_, events, kMaxEvents, timeout_ms);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::Internal(Errno("epoll_wait"));
    }
    for (int i = 0; i < n; ++i) {
      FdHandler* h = static_cast<FdHandler*>(events[i].data.ptr);
      if (h == kTimerTag) {
        uint64_t expirations;
        ssize_t ignored = read(timer_fd_, &expirations, sizeof expirations);
        (void)ignored;
      } else if (h == kWakeTag) {
        uint64_t v;
        ssize_t ignored = read(wake_fd_, &v, sizeof v);
        (void)ignored;
      } else {
        h->OnFdEvents(events[i].events);
      }
    }
    RunDueTimers();
    if (!posted_.empty()) {
      std::vector<std::function<void()>> tasks;
      tasks.swap(posted_);
      for (auto& task : tasks) task();
    }
  }
  return Status::Ok();
}

}  // namespace servebench::sim
