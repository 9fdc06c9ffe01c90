#include "search/slo_search.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "common/time_format.h"

namespace servebench::search {

namespace {

// Outcomes at one value; the majority decides and a tie fails (never flatter).
struct Tally {
  int pass = 0, fail = 0;
  int n() const { return pass + fail; }
  bool passes() const { return pass > fail; }
};

class Searcher {
 public:
  Searcher(const SearchSettings& s, const ProbeRunner& run, const std::atomic<bool>* cancel)
      : s_(s), run_(run), cancel_(cancel) {
    result_.vary = s.vary;
  }

  SearchResult Run() {
    Explore();
    Decide();
    return std::move(result_);
  }

 private:
  // Bracketing, bisection and the check beside the boundary; returns when the search
  // has converged or must stop. The answer is decided from the tallies afterwards.
  void Explore() {
    // `min` is repeated only when it fails: "nothing meets the SLO" must be a majority.
    if (!ProbeOnce(s_.min)) return;
    if (!Passes(s_.min) && (!EnsureRepeats(s_.min) || !Passes(s_.min))) return;
    double lo = s_.min;
    std::optional<double> hi;
    while (true) {
      while (!hi) {  // bracketing: double until a value fails or max passes
        if (lo >= s_.max) break;
        double x = std::min(s_.max, lo * 2);
        if (!ProbeOnce(x)) return;
        if (Passes(x)) {
          lo = x;
        } else {
          hi = x;
        }
      }
      while (hi && !Converged(lo, *hi)) {  // bisection
        double m = Mid(lo, *hi);
        if (!ProbeOnce(m)) return;
        if (Passes(m)) {
          lo = m;
        } else {
          hi = m;
        }
      }
      // Beside the boundary: enough probes at both values for a majority. A majority
      // that turns re-opens the search on the side it points to.
      if (!EnsureRepeats(lo)) return;
      if (!Passes(lo)) {
        result_.non_monotone = true;
        hi = lo;
        std::optional<double> below = HighestPassingBelow(lo);
        if (!below) return;
        lo = *below;
        continue;
      }
      if (!hi) return;  // max met the SLO
      if (!EnsureRepeats(*hi)) return;
      if (!Passes(*hi)) return;  // converged
      result_.non_monotone = true;
      lo = *hi;
      hi = LowestFailingAbove(lo);
    }
  }

  // The answer from every tally: the highest passing value below the lowest failing
  // one (monotonicity guard: a pass above a failure is not believed, only flagged).
  void Decide() {
    std::optional<double> lowest_fail;
    for (const auto& [x, t] : tally_) {
      if (!t.passes()) {
        lowest_fail = x;
        break;
      }
    }
    for (const auto& [x, t] : tally_) {
      if (lowest_fail && x >= *lowest_fail) {
        if (t.passes()) result_.non_monotone = true;
        continue;
      }
      if (t.passes()) result_.boundary = x;
    }
    result_.first_failing = lowest_fail;
    result_.capped_at_max = result_.boundary && *result_.boundary >= s_.max;
  }

  // Runs one probe at x; false when the search must stop.
  bool ProbeOnce(double x) {
    if (cancel_ != nullptr && cancel_->load()) {
      result_.interrupted = true;
      return false;
    }
    if (static_cast<int>(result_.probes.size()) >= s_.max_probes) {
      result_.probe_limit_reached = true;
      return false;
    }
    std::string started_at = Rfc3339Now();
    StatusOr<ProbeRun> run = run_(x);
    if (!run.ok()) {
      result_.stopped = run.status();
      return false;
    }
    Probe p;
    p.value = x;
    p.started_at = std::move(started_at);
    p.ended_at = Rfc3339Now();
    p.valid = run->summary.validity.valid();
    p.reasons = run->summary.validity.reason_codes();
    p.checks = CheckSlos(run->summary, s_.slos);
    p.meets = p.valid && std::all_of(p.checks.begin(), p.checks.end(),
                                     [](const SloCheck& c) { return c.met; });
    p.result = std::move(run->result);
    bool interrupted = run->interrupted;
    if (!interrupted) {
      Tally& t = tally_[x];
      (p.meets ? t.pass : t.fail)++;
    }
    p.interrupted = interrupted;
    result_.probes.push_back(std::move(p));
    if (interrupted) result_.interrupted = true;
    return !interrupted;
  }

  bool EnsureRepeats(double x) {
    while (tally_[x].n() < s_.repeats) {
      if (!ProbeOnce(x)) return false;
    }
    return true;
  }

  bool Passes(double x) const {
    auto it = tally_.find(x);
    return it != tally_.end() && it->second.passes();
  }

  bool Converged(double lo, double hi) const {
    if (s_.vary == Vary::kConcurrency) return hi - lo <= static_cast<double>(s_.concurrency_step);
    return hi - lo <= s_.rate_resolution * lo;
  }

  double Mid(double lo, double hi) const {
    if (s_.vary == Vary::kConcurrency) return std::floor((lo + hi) / 2);
    return (lo + hi) / 2;
  }

  std::optional<double> HighestPassingBelow(double x) const {
    std::optional<double> out;
    for (const auto& [v, t] : tally_) {
      if (v < x && t.passes()) out = v;
    }
    return out;
  }

  std::optional<double> LowestFailingAbove(double x) const {
    for (const auto& [v, t] : tally_) {
      if (v > x && !t.passes()) return v;
    }
    return std::nullopt;
  }

  const SearchSettings& s_;
  const ProbeRunner& run_;
  const std::atomic<bool>* cancel_;
  std::map<double, Tally> tally_;
  SearchResult result_;
};

}  // namespace

SearchResult RunSloSearch(const SearchSettings& settings, const ProbeRunner& probe,
                          const std::atomic<bool>* cancel) {
  return Searcher(settings, probe, cancel).Run();
}

client::BenchSettings ProbeSettings(const SearchSettings& s, double value) {
  client::BenchSettings b = s.bench;
  if (s.vary == Vary::kConcurrency) {
    b.max_concurrency = std::llround(value);
    b.request_rate_per_s = 0;
    if (s.prompts_per_concurrency > 0)
      b.num_prompts = s.prompts_per_concurrency * b.max_concurrency;
  } else {
    b.request_rate_per_s = value;
    if (s.size_prompts_by_duration) b.num_prompts = client::PromptsForDuration(b);
  }
  for (const SloLimit& l : s.slos) {
    std::optional<double> p = metrics::RequiredPercentile(l.stat);
    if (p && std::find(b.percentiles.begin(), b.percentiles.end(), *p) == b.percentiles.end()) {
      b.percentiles.push_back(*p);
    }
  }
  return b;
}

ProbeRunner BenchProbeRunner(const SearchSettings& settings, const std::atomic<bool>* cancel) {
  return [&settings, cancel](double value) -> StatusOr<ProbeRun> {
    SB_ASSIGN_OR_RETURN(client::BenchResult r,
                        client::RunBench(ProbeSettings(settings, value), cancel));
    return ProbeRun{std::move(r.summary), std::move(r.result), r.interrupted};
  };
}

}  // namespace servebench::search
