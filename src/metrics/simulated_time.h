// Simulated time (docs/metrics.md, "Simulated time"). A simulated engine whose
// time is compressed (`servebench sim --time-scale S`, S != 1) stamps every SSE
// chunk with the simulated time its tokens were produced and its first chunk with
// the request's simulated arrival. ToSimulatedTime() rewrites the client's
// RequestRecords into that clock, so every metric computed from them is a
// simulated-time number:
//
//   t_sent                 → the server's arrival stamp
//   event, first/last token, t_done → the chunks' stamps
//   t_scheduled, t_slot_free equal to another request's t_done (a closed-loop slot
//                          handed on) → that request's simulated t_done
//   any other client time t → anchor + (t − t_anchor) / S, the anchor being the
//                          stamped request whose arrival came soonest after its send
//                          (the best estimate of the two clocks' offset; S = 0: the
//                          earliest-sent, and every such time maps to it, simulated
//                          time passing only in steps)
//
// so issue_delay is the simulated time between a slot coming free (or a request
// being due) and the request reaching the server: the client's own lateness and the
// server's, as the simulated server felt it. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "metrics/request_record.h"

namespace servebench::metrics {

struct SimulatedTimeView {
  std::vector<RequestRecord> records;  // same order as the input
  int64_t main_phase_start_ns = 0;     // in simulated ns
  double time_scale = 1;               // wall seconds per simulated second, from the server
};

// nullopt when no record carries the server's stamps (a real engine, or a sim at
// time scale 1): the records are then wall-clock measurements and stay as they are.
std::optional<SimulatedTimeView> ToSimulatedTime(const std::vector<RequestRecord>& records,
                                                 int64_t main_phase_start_ns);

}  // namespace servebench::metrics
