#include "sim/predict_disagg.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <queue>

#include "sim/kv_transfer.h"

namespace servebench::sim {
namespace {

struct Request {
  int64_t sent_ns = 0, first_ns = 0, last_ns = 0;
  int tokens = 0;
  double transfer_s = 0, link_wait_s = 0;
};

// Calls back when the engine finishes a request (the prefill) or for every token.
class Sink final : public TokenSink {
 public:
  Sink(std::function<void(int, FinishReason)> on) : on_(std::move(on)) {}
  bool OnTokens(int count, FinishReason finish) override {
    on_(count, finish);
    return true;
  }

 private:
  std::function<void(int, FinishReason)> on_;
};

struct Event {
  int64_t at_ns;
  uint64_t seq;      // ties in order of scheduling
  int engine = -1;   // a step ends on engine (index into all engines), or ...
  int request = -1;  // ... request's KV arrives at decode engine `decode`
  int decode = -1;
  bool operator>(const Event& o) const { return at_ns != o.at_ns ? at_ns > o.at_ns : seq > o.seq; }
};

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double h = (v.size() - 1) * 0.5;
  const size_t lo = static_cast<size_t>(h), hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (h - lo) * (v[hi] - v[lo]);
}
double Mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / v.size();
}

}  // namespace

StatusOr<DisaggPredictedPoint> PredictDisaggregated(const DisaggSession& ds,
                                                    const PredictLoad& load) {
  if (load.concurrency < 1 || load.isl < 1 || load.osl < 1 || ds.prefill_replicas < 1 ||
      ds.decode_replicas < 1 || ds.prefill_perf == nullptr || ds.decode_perf == nullptr) {
    return Status::InvalidArgument(
        "predict: concurrency, isl, osl and the replicas of each role must be >= 1");
  }
  FakeClock clock(0);
  EngineSettings prefill_es = ds.engine;
  prefill_es.time_scale = 1.0;
  prefill_es.num_speculative_tokens = 0;  // a prefill samples one token: no drafts
  EngineSettings decode_es = ds.engine;
  decode_es.time_scale = 1.0;
  std::vector<std::unique_ptr<Engine>> engines;  // prefill first, then decode
  for (int i = 0; i < ds.prefill_replicas; ++i) {
    SB_ASSIGN_OR_RETURN(auto e, Engine::Create(nullptr, &clock, *ds.prefill_perf,
                                               ds.prefill_scheduler, prefill_es));
    engines.push_back(std::move(e));
  }
  for (int i = 0; i < ds.decode_replicas; ++i) {
    SB_ASSIGN_OR_RETURN(
        auto e, Engine::Create(nullptr, &clock, *ds.decode_perf, ds.decode_scheduler, decode_es));
    engines.push_back(std::move(e));
  }
  std::vector<KvLink> links(static_cast<size_t>(ds.decode_replicas),
                            KvLink(ds.kv_link_gb_per_s, ds.kv_link_latency_us));
  std::vector<bool> busy(engines.size(), false);
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events;
  uint64_t seq = 0;
  const int total = load.num_requests > 0 ? load.num_requests : std::max(16, 10 * load.concurrency);
  std::vector<Request> requests;
  requests.reserve(static_cast<size_t>(total));
  std::vector<std::unique_ptr<Sink>> sinks;
  int issued = 0, done = 0, next_prefill = 0, next_decode = 0;
  const int64_t decode_bytes = ds.decode_perf->KvBytesPerGpu(load.isl);
  const int64_t prefill_bytes = ds.prefill_perf->KvBytesPerGpu(load.isl);

  std::function<void()> issue = [&] {
    const int r = issued++;
    requests.push_back({clock.NowNs(), 0, 0, 0, 0, 0});
    auto sink = std::make_unique<Sink>([&, r](int, FinishReason finish) {
      if (finish == FinishReason::kNone) return;
      // Prefill done: the KV goes over the chosen decode engine's link.
      const int d = next_decode++ % ds.decode_replicas;
      KvLink& link = links[static_cast<size_t>(d)];
      const double now_s = clock.NowNs() / 1e9;
      const double wait_s = std::max(0.0, link.busy_until_s() - now_s);
      const double arrive_s = link.Reserve(now_s, decode_bytes, prefill_bytes);
      requests[static_cast<size_t>(r)].transfer_s =
          link.TransferSeconds(decode_bytes, prefill_bytes);
      requests[static_cast<size_t>(r)].link_wait_s = wait_s;
      events.push({static_cast<int64_t>(arrive_s * 1e9), seq++, -1, r, d});
    });
    EngineRequest er;
    er.prompt_tokens = load.isl;
    er.max_tokens = 1;
    er.ignore_eos = true;
    er.sink = sink.get();
    sinks.push_back(std::move(sink));
    engines[static_cast<size_t>(next_prefill++ % ds.prefill_replicas)]->Submit(er);
  };
  auto decode_arrives = [&](int r, int d) {
    auto sink = std::make_unique<Sink>([&, r](int count, FinishReason finish) {
      Request& q = requests[static_cast<size_t>(r)];
      if (count > 0) {
        if (q.tokens == 0) q.first_ns = clock.NowNs();
        q.last_ns = clock.NowNs();
        q.tokens += count;
      }
      if (finish != FinishReason::kNone) {
        ++done;
        if (issued < total) issue();
      }
    });
    EngineRequest er;
    er.prompt_tokens = load.isl;
    er.max_tokens = load.osl;
    er.ignore_eos = true;
    er.kv_preloaded = true;
    er.sink = sink.get();
    sinks.push_back(std::move(sink));
    engines[static_cast<size_t>(ds.prefill_replicas + d)]->Submit(er);
  };

  for (int i = 0; i < std::min(load.concurrency, total); ++i) issue();
  const int64_t max_events = static_cast<int64_t>(total) * (load.osl + load.isl + 8) * 4;
  for (int64_t n = 0; done < total; ++n) {
    for (size_t e = 0; e < engines.size(); ++e) {
      if (busy[e]) continue;
      // (A step may start after now: an idle engine waits for its request's overheads.)
      if (std::optional<Engine::PlannedStep> s = engines[e]->BeginStep()) {
        busy[e] = true;
        events.push({s->end_ns, seq++, static_cast<int>(e)});
      }
    }
    if (events.empty() || n > max_events) {
      return Status::FailedPrecondition(fmt::format(
          "predict: the session stalls with {} of {} requests done (a {}-token prompt does not "
          "fit a decode engine's KV cache of {} tokens?)",
          done, total, load.isl, ds.decode_perf->KvCapacityTokens()));
    }
    const Event ev = events.top();
    events.pop();
    clock.SetNs(std::max(clock.NowNs(), ev.at_ns));
    if (ev.engine >= 0) {
      busy[static_cast<size_t>(ev.engine)] = false;
      engines[static_cast<size_t>(ev.engine)]->CompleteStep();
    } else {
      decode_arrives(ev.request, ev.decode);
    }
  }

  DisaggPredictedPoint out;
  PredictedPoint& p = out.point;
  p.concurrency = load.concurrency;
  std::vector<double> ttft, tpot, transfer, wait;
  int64_t last = 0;
  double out_tokens = 0;
  for (const Request& q : requests) {
    if (q.tokens < load.osl) continue;
    ++p.completed;
    ttft.push_back((q.first_ns - q.sent_ns) / 1e6);
    if (q.tokens > 1) tpot.push_back((q.last_ns - q.first_ns) / 1e6 / (q.tokens - 1));
    transfer.push_back(q.transfer_s * 1e3);
    wait.push_back(q.link_wait_s * 1e3);
    last = std::max(last, q.last_ns);
    out_tokens += q.tokens;
  }
  p.duration_s = last / 1e9;
  p.mean_ttft_ms = Mean(ttft);
  p.median_ttft_ms = Median(ttft);
  p.mean_tpot_ms = Mean(tpot);
  p.median_tpot_ms = Median(tpot);
  const double in_tokens = static_cast<double>(p.completed) * load.isl;
  if (p.duration_s > 0) {
    p.output_tok_s = out_tokens / p.duration_s;
    p.total_tok_s = (out_tokens + in_tokens) / p.duration_s;
  }
  out.prefill_gpus = ds.prefill_replicas * ds.prefill_perf->gpus();
  out.decode_gpus = ds.decode_replicas * ds.decode_perf->gpus();
  const int gpus = out.prefill_gpus + out.decode_gpus;
  p.output_tok_s_per_gpu = p.output_tok_s / gpus;
  p.total_tok_s_per_gpu = p.total_tok_s / gpus;
  out.tput_per_gpu = p.total_tok_s / gpus;
  out.output_tput_per_gpu = p.output_tok_s / out.decode_gpus;
  out.input_tput_per_gpu = p.duration_s > 0 ? in_tokens / p.duration_s / out.prefill_gpus : 0;
  p.interactivity = p.median_tpot_ms > 0 ? 1000.0 / p.median_tpot_ms : 0;
  out.mean_transfer_ms = Mean(transfer);
  out.mean_link_wait_ms = Mean(wait);
  for (size_t e = 0; e < engines.size(); ++e) {
    p.preemptions += engines[e]->metrics().num_preemptions_total;
    const double busy = p.duration_s > 0 ? engines[e]->simulated_busy_s() / p.duration_s : 0;
    (static_cast<int>(e) < ds.prefill_replicas ? out.prefill_busy : out.decode_busy) += busy;
  }
  out.prefill_busy /= ds.prefill_replicas;
  out.decode_busy /= ds.decode_replicas;
  return out;
}

}  // namespace servebench::sim
