#include "client/stage_summary.h"

#include <algorithm>

#include "client/schedule.h"
#include "metrics/result_writer.h"

namespace servebench::client {

std::vector<StageSummary> SummarizeStages(const std::vector<metrics::RequestRecord>& records,
                                          const std::vector<LoadStage>& stages,
                                          int64_t phase_start_ns,
                                          const metrics::SummaryInputs& base) {
  std::vector<int64_t> bounds = StageBoundariesNs(stages);
  std::vector<StageSummary> out;
  int64_t first = 0;  // index of the stage's first request in the measured list
  const bool by_time = ConcurrencyStages(stages);
  for (size_t k = 0; k < stages.size(); ++k) {
    int64_t n = StagedRequests({stages[k]});
    int64_t from = phase_start_ns + bounds[k], to = phase_start_ns + bounds[k + 1];
    std::vector<metrics::RequestRecord> mine;
    int64_t sent = 0;
    double busy_ns = 0;  // request-nanoseconds in flight inside the window
    for (const metrics::RequestRecord& r : records) {
      if (r.warmup) continue;
      if (r.t_sent_ns >= 0 && r.t_done_ns > r.t_sent_ns) {
        int64_t a = std::max(r.t_sent_ns, from), b = std::min(r.t_done_ns, to);
        if (b > a) busy_ns += static_cast<double>(b - a);
      }
      bool in = by_time ? r.t_scheduled_ns >= from && r.t_scheduled_ns < to
                        : r.index >= first && r.index < first + n;
      if (!in) continue;
      mine.push_back(r);
      if (r.t_sent_ns >= 0) ++sent;
    }
    first += n;
    StageSummary s;
    s.stage = stages[k];
    s.requests = static_cast<int64_t>(mine.size());
    s.sent = sent;
    s.mean_in_flight = to > from ? busy_ns / static_cast<double>(to - from) : 0;
    s.sent_rate_per_s =
        stages[k].duration_s > 0 ? static_cast<double>(sent) / stages[k].duration_s : 0;
    metrics::SummaryInputs in = base;
    in.requested_prompts = s.requests;
    in.main_phase_start_ns = from;
    // Counter deltas cover the whole run, not one stage: no per-stage acceptance.
    in.spec_before.reset();
    in.spec_after.reset();
    in.spec_decoding_on = false;
    s.summary = metrics::ComputeRunSummary(mine, in);
    out.push_back(std::move(s));
  }
  return out;
}

boost::json::array StageSummariesJson(const std::vector<StageSummary>& stages) {
  boost::json::array out;
  for (size_t k = 0; k < stages.size(); ++k) {
    const StageSummary& s = stages[k];
    out.push_back(boost::json::object{
        {"stage", k},
        {"rate_per_s", s.stage.concurrency > 0 ? boost::json::value(nullptr)
                                               : boost::json::value(s.stage.rate_per_s)},
        {"concurrency", s.stage.concurrency > 0 ? boost::json::value(s.stage.concurrency)
                                                : boost::json::value(nullptr)},
        {"mean_in_flight", s.mean_in_flight},
        {"duration_s", s.stage.duration_s},
        {"requests", s.requests},
        {"sent", s.sent},
        {"sent_rate_per_s", s.sent_rate_per_s},
        {"completed", s.summary.completed},
        {"failed", s.summary.failed},
        {"duration", s.summary.duration_s},
        {"request_throughput", s.summary.request_throughput},
        {"output_throughput", s.summary.output_throughput},
        {"servebench", metrics::BuildServebenchObject(s.summary)}});
  }
  return out;
}

}  // namespace servebench::client
