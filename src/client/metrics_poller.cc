#include "client/metrics_poller.h"

#include <chrono>

#include "common/clock.h"

namespace servebench::client {

MetricsPoller::MetricsPoller(ScrapeFn scrape, double interval_s)
    : scrape_(std::move(scrape)), interval_s_(interval_s) {}

MetricsPoller::~MetricsPoller() { Stop(); }

void MetricsPoller::Start() {
  thread_ = std::thread([this] { Loop(); });
}

std::vector<metrics::TimedScrape> MetricsPoller::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (!thread_.joinable()) return std::move(scrapes_);
  thread_.join();
  // A last scrape at the phase's end, so counters' totals span the whole phase.
  if (std::optional<std::vector<metrics::PromSample>> samples = scrape_()) {
    scrapes_.push_back(metrics::ScrapeOf(RealtimeNowNs(), std::move(*samples)));
  }
  return std::move(scrapes_);
}

void MetricsPoller::Loop() {
  using Clock = std::chrono::steady_clock;
  const auto period =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(interval_s_));
  const Clock::time_point start = Clock::now();
  for (int64_t tick = 0;; ++tick) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (cv_.wait_until(lock, start + tick * period, [this] { return stopping_; })) return;
    }
    if (std::optional<std::vector<metrics::PromSample>> samples = scrape_()) {
      scrapes_.push_back(metrics::ScrapeOf(RealtimeNowNs(), std::move(*samples)));
    }
    // Skip the ticks the scrape overran.
    const int64_t now_tick = (Clock::now() - start) / period;
    if (now_tick > tick) tick = now_tick;
  }
}

}  // namespace servebench::client
