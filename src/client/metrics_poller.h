// MetricsPoller scrapes the engine's /metrics once per interval on a thread of its own
// while the measured phase runs, for KV usage over time (metrics/scrape_series.h;
// docs/agentic.md "KV usage over time"). Ticks are on absolute times (start + k ×
// interval), so a slow scrape does not stretch the period; a tick already past is
// skipped. A failed scrape is a gap, not an error (the run's before/after scrapes
// already warn when the endpoint does not answer).
// Lifecycle: Start() once, Stop() once (also on destruction). Thread-safety: the owner
// calls Start and Stop from one thread; scrapes run on the poller's thread.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "metrics/scrape_series.h"

namespace servebench::client {

class MetricsPoller {
 public:
  // One scrape of the engine's /metrics; nullopt when it failed.
  using ScrapeFn = std::function<std::optional<std::vector<metrics::PromSample>>()>;
  MetricsPoller(ScrapeFn scrape, double interval_s);
  ~MetricsPoller();
  MetricsPoller(const MetricsPoller&) = delete;
  MetricsPoller& operator=(const MetricsPoller&) = delete;

  // Starts scraping: the first scrape at once, then one per interval.
  void Start();
  // Stops (waiting for a scrape in flight), scrapes once more (the phase's end) and
  // returns every scrape, in time order. Later calls return nothing.
  std::vector<metrics::TimedScrape> Stop();

 private:
  void Loop();

  ScrapeFn scrape_;
  double interval_s_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;                      // GUARDED_BY(mu_)
  std::vector<metrics::TimedScrape> scrapes_;  // written by the thread; read after join
};

}  // namespace servebench::client
