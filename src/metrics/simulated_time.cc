#include "metrics/simulated_time.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace servebench::metrics {

std::optional<SimulatedTimeView> ToSimulatedTime(const std::vector<RequestRecord>& records,
                                                 int64_t main_phase_start_ns) {
  // The anchor: the stamped request whose arrival came soonest after its send. Both
  // clocks are the host's monotonic clock, so they differ by an offset (and the scale);
  // the least-delayed request estimates that offset best, and through it no other
  // request's mapped send lands after its own arrival stamp. (The earliest-sent one
  // often opened a connection first: its extra delay, divided by the scale, would
  // shift every mapped client time.) At scale 0 simulated time passes only in steps:
  // the earliest-sent request.
  // One server stamps them all, so the first stamped record's scale is every one's.
  const RequestRecord* anchor = nullptr;
  double scale = 0;
  auto delay = [&scale](const RequestRecord& r) {  // up to a constant, in wall ns
    return static_cast<double>(r.sim_arrival_ns) * scale - static_cast<double>(r.t_sent_ns);
  };
  for (const RequestRecord& r : records) {
    if (r.sim_arrival_ns < 0 || r.t_sent_ns < 0) continue;
    if (anchor == nullptr) scale = std::max(0.0, r.sim_time_scale);
    const bool better = anchor == nullptr ||
                        (scale == 0 ? r.t_sent_ns < anchor->t_sent_ns : delay(r) < delay(*anchor));
    if (better) anchor = &r;
  }
  if (anchor == nullptr) return std::nullopt;
  // A client time no server stamp covers, through the anchor.
  auto map = [&](int64_t t) -> int64_t {
    if (t < 0) return t;
    if (scale == 0) return anchor->sim_arrival_ns;
    return anchor->sim_arrival_ns +
           static_cast<int64_t>(std::llround(static_cast<double>(t - anchor->t_sent_ns) / scale));
  };

  SimulatedTimeView view;
  view.time_scale = scale;
  view.main_phase_start_ns = map(main_phase_start_ns);
  view.records = records;
  // Wall t_done -> simulated t_done, to hand a closed-loop slot on in simulated time.
  std::unordered_map<int64_t, int64_t> done;
  for (size_t i = 0; i < records.size(); ++i) {
    const RequestRecord& w = records[i];
    RequestRecord& r = view.records[i];
    if (w.sim_arrival_ns < 0) {
      // No stamped chunk arrived (refused, HTTP error before streaming): its times
      // through the anchor.
      r.t_sent_ns = map(w.t_sent_ns);
      r.t_first_token_ns = map(w.t_first_token_ns);
      r.t_last_token_ns = map(w.t_last_token_ns);
      r.t_done_ns = map(w.t_done_ns);
      for (StreamEvent& e : r.events) e.t_ns = map(e.t_ns);
    } else {
      r.t_sent_ns = w.sim_arrival_ns;
      r.t_first_token_ns = r.t_last_token_ns = -1;
      int64_t last = w.sim_arrival_ns;
      for (StreamEvent& e : r.events) {
        // An event without a stamp (none from servebench sim) takes the one before.
        e.t_ns = e.sim_t_ns >= 0 ? std::max(last, e.sim_t_ns) : last;
        last = e.t_ns;
        if (e.k > 0) {
          if (r.t_first_token_ns < 0) r.t_first_token_ns = e.t_ns;
          r.t_last_token_ns = e.t_ns;
        }
      }
      // A completed response ends with its last chunk; a broken one when the client
      // gave up, which only the client's clock says.
      r.t_done_ns = w.ok() ? last : std::max(last, map(w.t_done_ns));
    }
    if (w.t_done_ns >= 0) done[w.t_done_ns] = r.t_done_ns;
  }
  auto chain = [&](int64_t t) -> int64_t {
    if (t < 0) return t;
    auto it = done.find(t);
    return it != done.end() ? it->second : map(t);
  };
  for (size_t i = 0; i < records.size(); ++i) {
    const RequestRecord& w = records[i];
    RequestRecord& r = view.records[i];
    r.t_scheduled_ns = chain(w.t_scheduled_ns);
    r.t_slot_free_ns = w.t_slot_free_ns < 0 ? -1 : chain(w.t_slot_free_ns);
    // A request cannot reach the server before it was due. Mapped client times can
    // land a few simulated ns after the arrival stamp (rounding), or later when
    // requests reach the server in another order than they were sent; they are set
    // to the arrival, i.e. no issue delay.
    if (r.t_sent_ns >= 0) {
      r.t_scheduled_ns = std::min(r.t_scheduled_ns, r.t_sent_ns);
      if (r.t_slot_free_ns >= 0) r.t_slot_free_ns = std::min(r.t_slot_free_ns, r.t_sent_ns);
    }
  }
  view.main_phase_start_ns = std::min(view.main_phase_start_ns, [&] {
    int64_t earliest = view.main_phase_start_ns;
    for (const RequestRecord& r : view.records) {
      if (!r.warmup && r.t_scheduled_ns >= 0) earliest = std::min(earliest, r.t_scheduled_ns);
    }
    return earliest;
  }());
  return view;
}

}  // namespace servebench::metrics
