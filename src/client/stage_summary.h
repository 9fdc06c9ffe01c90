// Per-stage measurement of a multi-stage run (BenchSettings::stages). Rate stages: a
// stage's requests are the ones its schedule placed in its window: MakeStagedSchedule
// puts stage k's round(rate x duration) arrivals at consecutive positions of the
// measured prompt list, so a request's stage is known from its index alone, never
// guessed from a timestamp. Concurrency stages (a closed loop has no schedule): the
// requests whose slot came due (t_scheduled) inside the window. Each stage's summary is
// metrics/'s RunSummary over its requests, with the stage's start as the phase start.
// Pure.
#pragma once

#include <boost/json.hpp>
#include <vector>

#include "client/client_settings.h"
#include "metrics/run_summary.h"

namespace servebench::client {

struct StageSummary {
  LoadStage stage;
  int64_t requests = 0;        // scheduled in the window (measured requests only)
  int64_t sent = 0;            // of them, reached the server (t_sent set)
  double sent_rate_per_s = 0;  // sent / the stage's duration: the rate it realised
  // Time-averaged requests in flight (t_sent .. t_done) over the window, counting every
  // request of the run: the concurrency the stage realised.
  double mean_in_flight = 0;
  metrics::RunSummary summary;  // over the stage's requests
};

// `phase_start_ns`: the measured phase's start, in the records' clock (simulated when
// they were rewritten into simulated time); `base`: the run's summary inputs
// (percentiles, SLOs, validity limits), of which requested_prompts and
// main_phase_start_ns are replaced per stage.
std::vector<StageSummary> SummarizeStages(const std::vector<metrics::RequestRecord>& records,
                                          const std::vector<LoadStage>& stages,
                                          int64_t phase_start_ns,
                                          const metrics::SummaryInputs& base);

// servebench.stages: one object per stage with its rate, duration, requests, sent,
// sent rate, completed, failed, throughputs and its full servebench summary object.
boost::json::array StageSummariesJson(const std::vector<StageSummary>& stages);

}  // namespace servebench::client
