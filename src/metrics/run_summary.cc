#include "metrics/run_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace servebench::metrics {
namespace {

constexpr double kNsPerMs = 1e6;
constexpr int64_t kNsPerS = 1'000'000'000;
constexpr size_t kMaxSampleErrors = 5;

// Samples of one run, gathered in one pass over the successful requests.
struct Samples {
  std::vector<double> ttft, ttft_fs, tpot, itl, itl_per_token, e2el, e2el_fs, issue_delay, queue,
      e2el_per_token_s, ttfo;
  // Per channel: time to its first event (ms) and its tokens, per request that had it.
  std::array<std::vector<double>, kChannelCount> channel_first_ms, channel_tokens;
};

// Adds request `r`'s channels (metrics/channels.h) and tool calls.
void AddChannels(const RequestRecord& r, Samples& s, RunSummary& out) {
  RequestChannels ch = ChannelsOf(r);
  for (Channel c : kAllChannels) {
    const ChannelFacts& f = ch[c];
    if (!f.present()) continue;
    size_t i = static_cast<size_t>(c);
    ++out.channels[i].requests;
    out.channels[i].total_tokens += f.tokens;
    s.channel_first_ms[i].push_back(static_cast<double>(f.t_first_ns - r.t_sent_ns) / kNsPerMs);
    s.channel_tokens[i].push_back(static_cast<double>(f.tokens));
  }
  if (ch.t_first_output_ns >= 0) {
    s.ttfo.push_back(static_cast<double>(ch.t_first_output_ns - r.t_sent_ns) / kNsPerMs);
  } else {
    ++out.requests_without_output;
  }
  out.tool_calls.valid += r.tool_calls_valid;
  out.tool_calls.invalid += r.tool_calls_invalid;
  if (r.tool_calls_valid + r.tool_calls_invalid == 0) ++out.tool_calls.requests_without_tool_call;
}

// Adds request `r`'s ITL gaps: one vLLM-style sample per gap between successive
// token-carrying events, and gap/k repeated k times for itl_per_token (§3).
void AddGaps(const RequestRecord& r, Samples& s) {
  int64_t prev = -1;
  for (const StreamEvent& e : r.events) {
    if (e.k <= 0) continue;
    if (prev >= 0) {
      double gap_ms = static_cast<double>(e.t_ns - prev) / kNsPerMs;
      s.itl.push_back(gap_ms);
      for (int32_t j = 0; j < e.k; ++j) s.itl_per_token.push_back(gap_ms / e.k);
    }
    prev = e.t_ns;
  }
}

// Sweep line over [t_sent, t_sent + e2el); departures sort before arrivals at equal times.
int64_t MaxConcurrent(std::vector<std::pair<int64_t, int>> points) {
  std::sort(points.begin(), points.end());  // (t, -1) departs before (t, +1)
  int64_t cur = 0, peak = 0;
  for (const auto& [t, d] : points) {
    cur += d;
    peak = std::max(peak, cur);
  }
  return peak;
}

// Interactivity of each TPOT statistic (metrics.md §5; Interactivity is its one
// definition), and the E2E-normalized form 1 / (E2EL/n) in s/token.
void AddInteractivity(const Stats& s, bool inverse_ms, std::map<std::string, double>& out) {
  if (s.empty()) return;
  auto put = [&](const std::string& key, double v) {
    std::optional<double> x =
        inverse_ms ? Interactivity(v) : (v > 0 ? std::optional(1.0 / v) : std::nullopt);
    if (x) out[key] = *x;
  };
  put("mean", s.mean);
  put("median", s.median);
  for (size_t i = 0; i < s.percentile_points.size(); ++i) {
    put("p" + PercentileLabel(s.percentile_points[i]), s.percentile_values[i]);
  }
}

void ApplyValidity(const SummaryInputs& in, const Samples& s, int64_t sum_n, int64_t sum_max_tokens,
                   RunSummary& out) {
  Validity& v = out.validity;
  if (out.failed > 0) {
    v.Add("failed_requests",
          fmt::format("{} of {} requests failed", out.failed, out.completed + out.failed));
  }
  if (out.completed != in.requested_prompts) {
    v.Add("incomplete", fmt::format("{} requests completed, {} were requested", out.completed,
                                    in.requested_prompts));
  }
  if (in.ignore_eos && static_cast<double>(sum_n) < 0.95 * static_cast<double>(sum_max_tokens)) {
    v.Add("short_outputs",
          fmt::format("ignore_eos was set but the completed requests produced {} output tokens "
                      "of {} requested (< 95 %)",
                      sum_n, sum_max_tokens));
  }
  std::vector<double> delays = s.issue_delay;
  std::sort(delays.begin(), delays.end());
  if (auto p99 = PercentileOfSorted(delays, 99); p99 && *p99 > in.client_issue_delay_limit_ms) {
    v.Add("client_saturated",
          fmt::format("P99 issue delay {:.3f} ms > {:.3f} ms: the client sent late", *p99,
                      in.client_issue_delay_limit_ms));
  }
  if (out.server_lag && out.server_lag->p99_ms > in.server_lag_limit_ms) {
    v.Add("server_lagged",
          fmt::format("P99 schedule lag of the simulated server {:.3f} ms > {:.3f} ms ({:.0f} of "
                      "{:.0f} steps late by more than 1 ms): the server fell behind its simulated "
                      "clock, so the load it was offered is not the load asked for",
                      out.server_lag->p99_ms, in.server_lag_limit_ms,
                      out.server_lag->steps_late_1ms, out.server_lag->steps));
  }
  if (in.spec_decoding_on) {
    if (!out.spec) {
      v.Add("spec_counters_static",
            "speculative decoding is on but /metrics was not scraped "
            "or exposed no spec_decode counters");
    } else if (out.spec->delta_drafts <= 0 || out.spec->delta_draft_tokens <= 0) {
      v.Add("spec_counters_static",
            fmt::format("speculative decoding is on but the counters moved by drafts {} and "
                        "draft tokens {} (absent, idle or reset by a restart)",
                        out.spec->delta_drafts, out.spec->delta_draft_tokens));
    }
  }
  auto it = out.n_sources.find("event_count");
  if (it != out.n_sources.end() && it->second > 0) {
    v.Add("token_count_unreliable",
          fmt::format("{} requests had no usage; their output tokens are event counts", it->second),
          /*warning=*/true);
  }
}

}  // namespace

std::string PercentileLabel(double p) {
  if (p == std::floor(p)) return fmt::format("{}", static_cast<int64_t>(p));
  return fmt::format("{}", p);
}

RunSummary ComputeRunSummary(const std::vector<RequestRecord>& records, const SummaryInputs& in) {
  RunSummary out;
  out.requested = in.requested_prompts;
  out.main_phase_start_ns = in.main_phase_start_ns;
  Samples s;
  int64_t last_done = in.main_phase_start_ns;
  int64_t t0 = -1;
  int64_t sum_n = 0, sum_max_tokens = 0;
  int64_t good = 0;
  std::vector<std::pair<int64_t, int>> intervals;
  double al_sum = 0;
  int64_t al_count = 0;

  for (const RequestRecord& r : records) {
    if (r.warmup) continue;
    if (r.t_done_ns > last_done) last_done = r.t_done_ns;
    if (!r.ok()) {
      ++out.failed;
      std::string kind(FailureKindName(r.failure));
      if (out.failures[kind]++ == 0) out.failure_samples[kind] = r.error;
      if (out.sample_errors.size() < kMaxSampleErrors) out.sample_errors.push_back(r.error);
      continue;
    }
    ++out.completed;
    OutputTokens n = ResolveOutputTokens(r);
    PromptTokens p = ResolvePromptTokens(r);
    out.n_sources[std::string(NSourceName(n.source))]++;
    out.prompt_sources[std::string(PromptSourceName(p.source))]++;
    out.total_output_tokens += n.n;
    out.total_input_tokens += p.n;
    sum_n += n.n;
    sum_max_tokens += r.max_tokens;

    int64_t released = std::max(r.t_scheduled_ns, r.t_slot_free_ns);
    double ttft = static_cast<double>(r.t_first_token_ns - r.t_sent_ns) / kNsPerMs;
    double e2el = static_cast<double>(r.t_last_token_ns - r.t_sent_ns) / kNsPerMs;
    s.ttft.push_back(ttft);
    s.ttft_fs.push_back(static_cast<double>(r.t_first_token_ns - r.t_scheduled_ns) / kNsPerMs);
    s.e2el.push_back(e2el);
    s.e2el_fs.push_back(static_cast<double>(r.t_last_token_ns - r.t_scheduled_ns) / kNsPerMs);
    s.issue_delay.push_back(static_cast<double>(r.t_sent_ns - released) / kNsPerMs);
    s.queue.push_back(static_cast<double>(released - r.t_scheduled_ns) / kNsPerMs);
    double tpot = 0;  // vLLM goodput semantics: n ≤ 1 counts as tpot 0
    if (n.n > 1) {
      tpot = (e2el - ttft) / static_cast<double>(n.n - 1);
      s.tpot.push_back(tpot);
    }
    if (n.n > 0) s.e2el_per_token_s.push_back(e2el / 1000.0 / static_cast<double>(n.n));
    AddGaps(r, s);
    AddChannels(r, s, out);
    if (in.goodput.any()) {
      bool ok = (!in.goodput.ttft_ms || ttft <= *in.goodput.ttft_ms) &&
                (!in.goodput.tpot_ms || tpot <= *in.goodput.tpot_ms) &&
                (!in.goodput.e2el_ms || e2el <= *in.goodput.e2el_ms);
      if (ok) ++good;
    }
    if (t0 < 0 || r.t_sent_ns < t0) t0 = r.t_sent_ns;
    intervals.push_back({r.t_sent_ns, +1});
    intervals.push_back({r.t_last_token_ns, -1});
    if (r.spec && r.spec->mean_acceptance_length > 0) {
      al_sum += r.spec->mean_acceptance_length;
      ++al_count;
    }
  }

  out.duration_s = static_cast<double>(last_done - in.main_phase_start_ns) / kNsPerS;
  if (out.duration_s > 0) {
    out.request_throughput = static_cast<double>(out.completed) / out.duration_s;
    out.output_throughput = static_cast<double>(out.total_output_tokens) / out.duration_s;
    out.input_throughput = static_cast<double>(out.total_input_tokens) / out.duration_s;
    out.total_token_throughput =
        static_cast<double>(out.total_input_tokens + out.total_output_tokens) / out.duration_s;
    if (in.goodput.any()) out.request_goodput = static_cast<double>(good) / out.duration_s;
  } else if (in.goodput.any()) {
    out.request_goodput = 0.0;
  }

  // Peak output tokens per second: 1-second buckets from the earliest t_sent (§6).
  if (t0 >= 0) {
    std::unordered_map<int64_t, int64_t> buckets;
    for (const RequestRecord& r : records) {
      if (r.warmup || !r.ok()) continue;
      for (const StreamEvent& e : r.events) {
        if (e.k > 0) buckets[(e.t_ns - t0) / kNsPerS] += e.k;
      }
    }
    for (const auto& [b, tokens] : buckets) {
      out.max_output_tokens_per_s =
          std::max(out.max_output_tokens_per_s, static_cast<double>(tokens));
    }
  }
  out.max_concurrent_requests = MaxConcurrent(std::move(intervals));

  out.per_gpu = PerGpu(out.total_token_throughput, out.output_throughput, in.gpus);

  const std::vector<double>& ps = in.percentiles;
  out.ttft = ComputeStats(s.ttft, ps);
  out.ttft_from_schedule = ComputeStats(s.ttft_fs, ps);
  out.tpot = ComputeStats(s.tpot, ps);
  out.itl = ComputeStats(s.itl, ps);
  out.itl_per_token = ComputeStats(s.itl_per_token, ps);
  out.e2el = ComputeStats(s.e2el, ps);
  out.e2el_from_schedule = ComputeStats(s.e2el_fs, ps);
  out.issue_delay = ComputeStats(s.issue_delay, ps);
  out.client_queue_time = ComputeStats(s.queue, ps);
  out.e2el_per_token_s = ComputeStats(s.e2el_per_token_s, ps);
  out.ttfo = ComputeStats(s.ttfo, ps);
  for (size_t i = 0; i < kChannelCount; ++i) {
    out.channels[i].time_to_first = ComputeStats(s.channel_first_ms[i], ps);
    out.channels[i].tokens = ComputeStats(s.channel_tokens[i], ps);
  }
  AddInteractivity(out.tpot, /*inverse_ms=*/true, out.intvty);
  AddInteractivity(out.e2el_per_token_s, /*inverse_ms=*/false, out.e2e_norm_intvty);

  if (in.spec_before && in.spec_after && in.spec_after->present) {
    out.spec = ComputeSpecAcceptance(*in.spec_before, *in.spec_after);
  }
  if (al_count > 0) out.spec_request_mean_al = al_sum / static_cast<double>(al_count);
  if (in.lag_before && in.lag_after)
    out.server_lag = ComputeServerLag(*in.lag_before, *in.lag_after);
  ApplyValidity(in, s, sum_n, sum_max_tokens, out);
  return out;
}

}  // namespace servebench::metrics
