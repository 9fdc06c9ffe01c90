#include "sim/predict.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "metrics/headline.h"

namespace servebench::sim {
namespace {

// A client request: records its token times in simulated nanoseconds.
class VirtualClient final : public TokenSink {
 public:
  VirtualClient(const FakeClock* clock, std::vector<int>* finished_queue, int index)
      : clock_(clock), finished_(finished_queue), index_(index) {}
  bool OnTokens(int count, FinishReason finish) override {
    if (count > 0) {
      if (tokens_ == 0) first_ns_ = clock_->NowNs();
      last_ns_ = clock_->NowNs();
      tokens_ += count;
    }
    if (finish != FinishReason::kNone) finished_->push_back(index_);
    return true;
  }
  int64_t sent_ns = 0;
  int64_t first_ns_ = 0, last_ns_ = 0;
  int tokens_ = 0;

 private:
  const FakeClock* clock_;
  std::vector<int>* finished_;
  int index_;
};

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  double h = (v.size() - 1) * 0.5;
  size_t lo = static_cast<size_t>(h);
  size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (h - lo) * (v[hi] - v[lo]);
}
double Mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / v.size();
}

}  // namespace

StatusOr<PredictedPoint> PredictClosedLoop(const PerfModel& perf,
                                           const SchedulerSettings& scheduler,
                                           const EngineSettings& engine_settings,
                                           const PredictLoad& load) {
  if (load.concurrency < 1 || load.isl < 1 || load.osl < 1) {
    return Status::InvalidArgument("predict: concurrency, isl and osl must be >= 1");
  }
  FakeClock clock(0);
  EngineSettings es = engine_settings;
  es.time_scale = 1.0;
  SB_ASSIGN_OR_RETURN(std::unique_ptr<Engine> engine,
                      Engine::Create(nullptr, &clock, perf, scheduler, es));
  const int total = load.num_requests > 0 ? load.num_requests : std::max(16, 10 * load.concurrency);
  std::vector<std::unique_ptr<VirtualClient>> clients;
  std::vector<int> finished;
  int issued = 0, done = 0;
  auto issue = [&] {
    auto c = std::make_unique<VirtualClient>(&clock, &finished, issued);
    c->sent_ns = clock.NowNs();
    EngineRequest r;
    r.prompt_tokens = load.isl;
    r.max_tokens = load.osl;
    r.ignore_eos = true;
    r.sink = c.get();
    clients.push_back(std::move(c));
    ++issued;
    engine->Submit(r);
  };
  for (int i = 0; i < std::min(load.concurrency, total); ++i) issue();
  // Bounded: every step makes progress (a token or a prefill chunk), so the step
  // count is at most total × (osl + isl) and far less in practice.
  const int64_t max_steps = static_cast<int64_t>(total) * (load.osl + load.isl + 2);
  for (int64_t step = 0; done < total && step < max_steps; ++step) {
    std::optional<Engine::PlannedStep> s = engine->BeginStep();
    if (!s) {
      return Status::FailedPrecondition(
          fmt::format("predict: the engine cannot admit a {}-token prompt (KV cache {} tokens); "
                      "lower --isl or raise TP",
                      load.isl, perf.KvCapacityTokens()));
    }
    clock.SetNs(s->end_ns);
    engine->CompleteStep();
    done += static_cast<int>(finished.size());
    int to_issue = static_cast<int>(finished.size());
    finished.clear();
    for (int i = 0; i < to_issue && issued < total; ++i) issue();
  }
  PredictedPoint p;
  p.concurrency = load.concurrency;
  std::vector<double> ttft, tpot;
  int64_t first_sent = 0, last_token = 0;
  uint64_t out_tokens = 0;
  for (const auto& c : clients) {
    if (c->tokens_ < load.osl) continue;
    ++p.completed;
    ttft.push_back((c->first_ns_ - c->sent_ns) / 1e6);
    if (c->tokens_ > 1) tpot.push_back((c->last_ns_ - c->first_ns_) / 1e6 / (c->tokens_ - 1));
    last_token = std::max(last_token, c->last_ns_);
    out_tokens += static_cast<uint64_t>(c->tokens_);
  }
  p.duration_s = (last_token - first_sent) / 1e9;
  p.mean_ttft_ms = Mean(ttft);
  p.median_ttft_ms = Median(ttft);
  p.mean_tpot_ms = Mean(tpot);
  p.median_tpot_ms = Median(tpot);
  if (p.duration_s > 0) {
    p.output_tok_s = out_tokens / p.duration_s;
    p.total_tok_s = (out_tokens + static_cast<double>(p.completed) * load.isl) / p.duration_s;
  }
  // The derived metrics as metrics/headline.h defines them for every measured run.
  metrics::GpuTopology gpus;
  gpus.num_gpus = perf.gpus();
  if (auto pg = metrics::PerGpu(p.total_tok_s, p.output_tok_s, gpus)) {
    p.output_tok_s_per_gpu = pg->output_tput_per_gpu;
    p.total_tok_s_per_gpu = pg->tput_per_gpu;
  }
  p.interactivity = metrics::Interactivity(p.median_tpot_ms).value_or(0);
  const EngineMetrics& m = engine->metrics();
  if (m.spec_decode_num_drafts > 0) {
    p.acceptance_length =
        1.0 + static_cast<double>(m.spec_decode_num_accepted_tokens) / m.spec_decode_num_drafts;
  }
  p.preemptions = m.num_preemptions_total;
  return p;
}

std::string PredictTable(const std::vector<PredictedPoint>& points) {
  std::string out =
      "| conc | median TTFT ms | median TPOT ms | tok/s/user | output tok/s/GPU | total tok/s/GPU "
      "| AL | preemptions |\n"
      "|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& p : points) {
    fmt::format_to(
        std::back_inserter(out), "| {} | {:.1f} | {:.2f} | {:.1f} | {:.1f} | {:.1f} | {} | {} |\n",
        p.concurrency, p.median_ttft_ms, p.median_tpot_ms, p.interactivity, p.output_tok_s_per_gpu,
        p.total_tok_s_per_gpu,
        p.acceptance_length > 0 ? fmt::format("{:.2f}", p.acceptance_length) : "-", p.preemptions);
  }
  return out;
}

}  // namespace servebench::sim
