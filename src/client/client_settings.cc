#include "client/client_settings.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <string_view>
#include <utility>
#include <vector>

#include "client/conversation_dataset.h"
#include "client/length_mixture.h"
#include "client/prefix_pool.h"
#include "client/prompt_memory.h"
#include "common/limits.h"
#include "net/url.h"
#include "trace/trace_loader.h"

namespace servebench::client {

namespace {
constexpr const char* kChatBackend = "openai-chat";
constexpr const char* kChatEndpoint = "/v1/chat/completions";
constexpr const char* kCompletionsEndpoint = "/v1/completions";

// Largest length a range ratio can draw for `len` (both semantics stay at or below
// len * (1 + r)).
double MaxDrawn(int64_t len, double ratio) { return static_cast<double>(len) * (1.0 + ratio); }

}  // namespace

int64_t StagedRequests(const std::vector<LoadStage>& stages) {
  double n = 0;
  for (const LoadStage& st : stages) {
    if (st.concurrency == 0) n += std::round(st.rate_per_s * st.duration_s);
  }
  return n > static_cast<double>(limits::kMaxPromptsPerRun) ? limits::kMaxPromptsPerRun + 1
                                                            : static_cast<int64_t>(n);
}

bool ConcurrencyStages(const std::vector<LoadStage>& stages) {
  return !stages.empty() && stages.front().concurrency > 0;
}

Status ValidateLoadShape(const BenchSettings& s) {
  auto bad = [](std::string m) { return Status::InvalidArgument(std::move(m)); };
  if (s.ramp != RampStrategy::kNone) {
    if (s.request_rate_per_s > 0) {
      return bad(
          "--ramp-up-strategy with --request-rate: the ramp sets the rate; leave "
          "--request-rate at inf");
    }
    for (double r : {s.ramp_start_rps, s.ramp_end_rps}) {
      if (!(r > 0) || !std::isfinite(r)) {
        return bad(
            fmt::format("--ramp-up-start-rps / --ramp-up-end-rps {}: must be numbers > 0 "
                        "(requests/s)",
                        r));
      }
    }
  }
  const StopRuleSettings& st = s.stop;
  if (!(st.max_error_rate >= 0) || st.max_error_rate > 1) {
    return bad(fmt::format(
        "--max-error-rate {}: must be a fraction 0 (off) .. 1 (e.g. 0.05 stops above 5 % failed)",
        st.max_error_rate));
  }
  if (st.error_rate_min_requests < 1 || st.error_rate_min_requests > limits::kMaxPromptsPerRun) {
    return bad(fmt::format("--max-error-rate-min-requests {}: must be 1 .. {}",
                           st.error_rate_min_requests, limits::kMaxPromptsPerRun));
  }
  if (st.detect_saturation) {
    if (!(st.saturation_window_s > 0) || st.saturation_window_s > limits::kMaxDeadlineSeconds) {
      return bad(fmt::format("--saturation-window {}: must be > 0 .. {:.0f} s",
                             st.saturation_window_s, limits::kMaxDeadlineSeconds));
    }
    if (st.saturation_windows < 1 || st.saturation_windows > 1000) {
      return bad(fmt::format("--saturation-windows {}: must be 1 .. 1000 windows of growth",
                             st.saturation_windows));
    }
    if (!(st.saturation_factor > 1) || !std::isfinite(st.saturation_factor)) {
      return bad(fmt::format(
          "--saturation-factor {}: must be a number > 1 (the last window's queueing over the "
          "lowest)",
          st.saturation_factor));
    }
  }
  if (!(s.concurrency_ramp_s >= 0) || s.concurrency_ramp_s > limits::kMaxDeadlineSeconds) {
    return bad(fmt::format("--concurrency-ramp-duration {}: must be 0 (none) .. {:.0f} s",
                           s.concurrency_ramp_s, limits::kMaxDeadlineSeconds));
  }
  if (s.concurrency_ramp_s > 0 && (s.max_concurrency < 1 || s.request_rate_per_s > 0 ||
                                   s.ramp != RampStrategy::kNone || !s.stages.empty())) {
    return bad(
        "--concurrency-ramp-duration needs a closed loop: --max-concurrency C (the ramp's end) "
        "without --request-rate, --ramp-up-strategy or --stage");
  }
  if (s.stages.empty()) return Status::Ok();
  if (ConcurrencyStages(s.stages)) {
    for (size_t k = 0; k < s.stages.size(); ++k) {
      const LoadStage& st = s.stages[k];
      if (st.concurrency < 1 || st.concurrency > limits::kMaxConcurrency) {
        return bad(fmt::format(
            "--stage {}: a run's stages are all rates or all concurrency=C; concurrency {} "
            "must be 1 .. {}",
            k + 1, st.concurrency, limits::kMaxConcurrency));
      }
      if (!(st.duration_s > 0) || st.duration_s > limits::kMaxDeadlineSeconds) {
        return bad(fmt::format("--stage {} (concurrency={}@{}): duration must be 0 .. {:.0f} s",
                               k + 1, st.concurrency, st.duration_s, limits::kMaxDeadlineSeconds));
      }
    }
    if (s.request_rate_per_s > 0 || s.ramp != RampStrategy::kNone || s.duration_s > 0 ||
        s.max_concurrency > 0) {
      return bad(
          "--stage concurrency=C with --request-rate, --ramp-up-strategy, --duration or "
          "--max-concurrency: the stages set the concurrency and the run's length; give only "
          "--stage (and --num-prompts, the most requests it may send)");
    }
    return Status::Ok();
  }
  if (s.request_rate_per_s > 0 || s.ramp != RampStrategy::kNone || s.duration_s > 0) {
    return bad(
        "--stage with --request-rate, --ramp-up-strategy or --duration: the stages set "
        "the rate and the run's length; give only --stage");
  }
  for (size_t k = 0; k < s.stages.size(); ++k) {
    const LoadStage& st = s.stages[k];
    if (st.concurrency > 0) {
      return bad(fmt::format(
          "--stage {} (concurrency={}): a run's stages are all rates or all concurrency=C", k + 1,
          st.concurrency));
    }
    if (!(st.rate_per_s > 0) || !std::isfinite(st.rate_per_s) || !(st.duration_s > 0) ||
        st.duration_s > limits::kMaxDeadlineSeconds) {
      return bad(
          fmt::format("--stage {} ({}@{}): rate must be > 0 req/s and duration 0 .. {:.0f} s",
                      k + 1, st.rate_per_s, st.duration_s, limits::kMaxDeadlineSeconds));
    }
  }
  for (size_t k = 0; k < s.stages.size(); ++k) {
    if (StagedRequests({s.stages[k]}) < 1) {
      return bad(fmt::format(
          "--stage {} ({}@{}): schedules no request (rate x duration rounds to 0); raise the "
          "rate or the duration",
          k + 1, s.stages[k].rate_per_s, s.stages[k].duration_s));
    }
  }
  int64_t n = StagedRequests(s.stages);
  if (n < 1 || n > limits::kMaxPromptsPerRun) {
    return bad(fmt::format("--stage: the stages send {} requests in all; must be 1 .. {}", n,
                           limits::kMaxPromptsPerRun));
  }
  return Status::Ok();
}

int64_t PromptsForDuration(const BenchSettings& s) {
  if (!(s.duration_s > 0) || !(s.request_rate_per_s > 0)) return s.num_prompts;
  double want = std::ceil(s.request_rate_per_s * s.duration_s * 1.25) + 16;
  double most =
      static_cast<double>(limits::kMaxPromptsPerRun - std::max<int64_t>(s.num_warmups, 0));
  return static_cast<int64_t>(std::min(want, most));
}

std::string ApiKeyVariable(const BenchSettings& s) {
  if (!s.api_key_env.empty()) return s.api_key_env;
  return std::getenv("OPENAI_API_KEY") != nullptr ? "OPENAI_API_KEY" : "";
}

std::string EffectiveEndpoint(const BenchSettings& s) {
  if (!s.endpoint.empty()) return s.endpoint;
  return s.backend == kChatBackend ? kChatEndpoint : kCompletionsEndpoint;
}

namespace {

constexpr std::string_view kPromptDatasets[] = {"random",   "prefix_repetition", "custom",
                                                "sharegpt", "speed_bench",       "spec_bench"};
constexpr trace::TraceFormat kTraceFormats[] = {
    trace::TraceFormat::kMooncake, trace::TraceFormat::kWeka, trace::TraceFormat::kBailian,
    trace::TraceFormat::kDagJsonl, trace::TraceFormat::kMultiTurn};

}  // namespace

bool IsDatasetName(std::string_view name) {
  return std::find(std::begin(kPromptDatasets), std::end(kPromptDatasets), name) !=
             std::end(kPromptDatasets) ||
         trace::IsTraceFormatName(name);
}

std::string DatasetNamesText() {
  std::vector<std::string_view> names(std::begin(kPromptDatasets), std::end(kPromptDatasets));
  for (trace::TraceFormat f : kTraceFormats) names.push_back(trace::TraceFormatName(f));
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += i + 1 == names.size() ? " or " : ", ";
    text += names[i];
  }
  return text;
}

Status Validate(const BenchSettings& s) {
  auto bad = [](std::string m) { return Status::InvalidArgument(std::move(m)); };
  using limits::kMaxTokensPerRequest;
  if (s.model.empty()) return bad("--model is empty: name the model the server serves");
  if (!(s.metrics_interval_s == 0 ||
        (s.metrics_interval_s >= 0.05 && s.metrics_interval_s <= 3600)))
    return bad(fmt::format(
        "--metrics-interval-s {}: must be 0 (scrape only before and after the measured phase) "
        "or 0.05 to 3600 seconds",
        s.metrics_interval_s));
  if (!s.endpoint.empty() && s.endpoint[0] != '/') {
    return bad(
        fmt::format("--endpoint '{}': must start with '/' (e.g. /v1/completions)", s.endpoint));
  }
  if (s.backend == kChatBackend && s.endpoint.find("chat") == std::string::npos &&
      !s.endpoint.empty()) {
    return bad(fmt::format(
        "--backend {} with --endpoint {}: that backend sends chat bodies (messages), which a "
        "completions endpoint rejects; drop --endpoint (it defaults to {}) or use --backend "
        "openai",
        kChatBackend, s.endpoint, kChatEndpoint));
  }
  for (const EngineProcess& p : s.engine_processes) {
    if (StatusOr<net::Url> url = net::ParseUrl(p.base_url); !url.ok()) {
      return bad(fmt::format("engine process {}'s URL '{}': {}", p.name, p.base_url,
                             url.status().message()));
    }
  }
  if (s.tool_choice != "required" && s.tool_choice != "auto" && s.tool_choice != "none") {
    return bad(fmt::format("--tool-choice '{}': must be required, auto or none", s.tool_choice));
  }
  if (!s.tool_call_workload && s.tool_choice != "required") {
    return bad(fmt::format(
        "--tool-choice {} without --tool-call-workload: no request carries tools", s.tool_choice));
  }
  if (s.tool_call_workload && EffectiveEndpoint(s).find("chat") == std::string::npos) {
    return bad(fmt::format(
        "--tool-call-workload with endpoint {}: tools are a chat API field; use --backend "
        "openai-chat (endpoint {})",
        EffectiveEndpoint(s), kChatEndpoint));
  }
  SB_RETURN_IF_ERROR(ValidateLoadShape(s));
  if (s.num_prompts <= 0 || s.num_prompts > limits::kMaxPromptsPerRun) {
    return bad(fmt::format("--num-prompts {}: must be 1 .. {} (split larger runs)", s.num_prompts,
                           limits::kMaxPromptsPerRun));
  }
  if (s.num_warmups < 0 || s.num_warmups > limits::kMaxPromptsPerRun - s.num_prompts) {
    return bad(fmt::format(
        "--num-warmups {}: must be 0 .. {} (prompts and warm-ups together "
        "at most {})",
        s.num_warmups, limits::kMaxPromptsPerRun - s.num_prompts, limits::kMaxPromptsPerRun));
  }
  auto tokens = [&](const char* flag, int64_t v, int64_t min) -> Status {
    if (v < min || v > kMaxTokensPerRequest) {
      return bad(fmt::format("{} {}: must be {} .. {} tokens", flag, v, min, kMaxTokensPerRequest));
    }
    return Status::Ok();
  };
  SB_RETURN_IF_ERROR(tokens("--random-input-len", s.random_input_len, 1));
  SB_RETURN_IF_ERROR(tokens("--random-output-len", s.random_output_len, 1));
  SB_RETURN_IF_ERROR(tokens("--random-prefix-len", s.random_prefix_len, 0));
  SB_RETURN_IF_ERROR(tokens("--custom-output-len", s.custom_output_len, 1));
  SB_RETURN_IF_ERROR(tokens("--speed-bench-output-len", s.speed_bench_output_len, 1));
  SB_RETURN_IF_ERROR(tokens("--spec-bench-output-len", s.spec_bench_output_len, 1));
  if (s.dataset_name == "speed_bench") {
    SB_RETURN_IF_ERROR(ValidateSpeedBenchSelection(s.speed_bench_subset, s.speed_bench_category));
  } else if (!s.speed_bench_category.empty() || s.speed_bench_subset != "qualitative") {
    return bad(
        "--speed-bench-dataset-subset and --speed-bench-category apply to --dataset-name "
        "speed_bench");
  }
  if (s.dataset_name != "spec_bench" && !s.spec_bench_category.empty()) {
    return bad("--spec-bench-category applies to --dataset-name spec_bench");
  }
  if (!s.sequence_distribution.empty()) {
    if (s.dataset_name != "random") {
      return bad(fmt::format(
          "--sequence-distribution with --dataset-name {}: a length mixture shapes random "
          "prompts only (a file's prompts have their own lengths)",
          s.dataset_name));
    }
    Status mix_ok = ValidateSequenceDistribution(s.sequence_distribution);
    if (!mix_ok.ok()) return bad("--sequence-distribution: " + mix_ok.message());
  }
  if (s.random_vocab_size < 200 || s.random_vocab_size > (int64_t{1} << 31) - 1) {
    return bad(fmt::format("random vocabulary {}: must be 200 .. 2^31-1", s.random_vocab_size));
  }
  if (!(s.random_range_ratio >= 0) ||
      (s.range_ratio_semantics == RangeRatioSemantics::kVllm && s.random_range_ratio >= 1) ||
      s.random_range_ratio > 1) {
    return bad(
        fmt::format("--random-range-ratio {}: must be in [0, 1) for vllm semantics, [0, 1] "
                    "for inferencex semantics",
                    s.random_range_ratio));
  }
  const bool is_trace = trace::IsTraceFormatName(s.dataset_name);
  const bool is_pool = s.dataset_name == kPrefixPoolDataset;
  if (!IsDatasetName(s.dataset_name)) {
    return bad(fmt::format("--dataset-name '{}': must be {}", s.dataset_name, DatasetNamesText()));
  }
  if (is_pool) {
    // The pool sets every length itself; a random-prompt length flag would be ignored.
    const std::pair<const char*, double> random_only[] = {
        {"--random-prefix-len", static_cast<double>(s.random_prefix_len)},
        {"--random-range-ratio", s.random_range_ratio}};
    for (const auto& [flag, v] : random_only) {
      if (v > 0) {
        return bad(fmt::format(
            "--dataset-name prefix_repetition with {} {}: the pool's prompts are exactly "
            "--prefix-repetition-prefix-len + --prefix-repetition-suffix-len tokens; drop {}",
            flag, v, flag));
      }
    }
    int64_t measured_prompts =
        s.stages.empty() || ConcurrencyStages(s.stages) ? s.num_prompts : StagedRequests(s.stages);
    SB_RETURN_IF_ERROR(ValidatePrefixPool(s.prefix_pool, measured_prompts));
  }
  if (!(s.trace_speedup > 0) || !std::isfinite(s.trace_speedup)) {
    return bad(fmt::format("--trace-speedup {}: must be a number > 0 (2 replays twice as fast)",
                           s.trace_speedup));
  }
  if (s.cache_bust != "none" && s.cache_bust != "first_turn_prefix") {
    return bad(
        fmt::format("--cache-bust {}: must be none or first_turn_prefix (AIPerf's system_prefix, "
                    "system_suffix and first_turn_suffix are not supported)",
                    s.cache_bust));
  }
  if (s.cache_bust != "none" &&
      !(is_trace && EffectiveEndpoint(s).find("chat") != std::string::npos)) {
    return bad(fmt::format(
        "--cache-bust {}: marks the first user message of a chat trace replay (--dataset-name "
        "a trace format with --endpoint /v1/chat/completions); token-id prompts change with "
        "--seed instead",
        s.cache_bust));
  }
  if (s.assistant_turns != "pre-canned" && s.assistant_turns != "live") {
    return bad(fmt::format("--assistant-turns {}: must be pre-canned or live", s.assistant_turns));
  }
  if (s.assistant_turns == "live" && !is_trace) {
    return bad(
        "--assistant-turns live: threads the server's replies into a trace replay's history "
        "(--dataset-name dag_jsonl or multi_turn)");
  }
  if (s.trace_block_tokens < 0 || s.trace_block_tokens > 65536) {
    return bad(fmt::format("--isl-block-size {}: must be 0..65536 (0 = 512, Mooncake's)",
                           s.trace_block_tokens));
  }
  if (s.engine_block_tokens < 1 || s.engine_block_tokens > 1024) {
    return bad(
        fmt::format("--engine-block-size {}: must be 1..1024 tokens", s.engine_block_tokens));
  }
  if (s.engine_kv_blocks < 0) {
    return bad(fmt::format("--engine-kv-blocks {}: must be >= 0 (0 = infinite cache only)",
                           s.engine_kv_blocks));
  }
  if (!(s.prefix_hit_tolerance >= 0 && s.prefix_hit_tolerance <= 1)) {
    return bad(fmt::format("--prefix-hit-tolerance {}: must be in [0, 1] (a fraction)",
                           s.prefix_hit_tolerance));
  }
  if (is_trace && s.num_warmups > 0) {
    return bad(
        fmt::format("--num-warmups {} with --dataset-name {}: a trace replay has no "
                    "separate warm-up prompts (they would seed the prefix cache); closed-loop "
                    "lanes warm up from the trace with --warmup-requests-per-lane",
                    s.num_warmups, s.dataset_name));
  }
  {
    const bool lanes = is_trace && s.max_concurrency > 0 && !s.fixed_schedule;
    auto lanes_only = [&](std::string_view flag, std::string value) -> Status {
      return bad(fmt::format(
          "{} {}: only for a closed-loop trace replay (--dataset-name a trace format, e.g. "
          "weka_trace, with --max-concurrency N and no --fixed-schedule)",
          flag, value));
    };
    const std::pair<std::string_view, double> caps[] = {
        {"--trace-idle-gap-cap-seconds", s.trace_idle_gap_cap_s},
        {"--system-idle-gap-cap-seconds", s.system_idle_gap_cap_s}};
    for (const auto& [flag, v] : caps) {
      if (!(v >= 0) || !std::isfinite(v) || v > 1e7) {
        return bad(fmt::format("{} {}: must be 0..1e7 seconds (0 = no cap)", flag, v));
      }
      if (v > 0 && !lanes) return lanes_only(flag, fmt::format("{}", v));
    }
    const std::pair<std::string_view, std::optional<double>> ratios[] = {
        {"--trajectory-start-min-ratio", s.trajectory_start_min_ratio},
        {"--trajectory-start-max-ratio", s.trajectory_start_max_ratio}};
    for (const auto& [flag, v] : ratios) {
      if (!v) continue;
      if (!(*v >= 0 && *v <= 1)) {
        return bad(
            fmt::format("{} {}: must be in [0, 1] (a fraction of a tree's turns)", flag, *v));
      }
      if (!lanes) return lanes_only(flag, fmt::format("{}", *v));
    }
    if (s.trajectory_start_min_ratio.value_or(0.0) > s.trajectory_start_max_ratio.value_or(1.0)) {
      return bad(fmt::format(
          "--trajectory-start-min-ratio {} is above --trajectory-start-max-ratio {}",
          s.trajectory_start_min_ratio.value_or(0.0), s.trajectory_start_max_ratio.value_or(1.0)));
    }
    if (s.warmup_requests_per_lane < 0 || s.warmup_requests_per_lane > 100000) {
      return bad(fmt::format("--warmup-requests-per-lane {}: must be 0..100000",
                             s.warmup_requests_per_lane));
    }
    if (s.warmup_requests_per_lane > 0 && !lanes) {
      return lanes_only("--warmup-requests-per-lane",
                        fmt::format("{}", s.warmup_requests_per_lane));
    }
  }
  if (s.dataset_name != "random" && !is_pool && s.dataset_path.empty()) {
    return bad(
        fmt::format("--dataset-name {} needs --dataset-path (a JSONL/JSON file)", s.dataset_name));
  }
  // What the lengths imply in memory, before anything is allocated (common/limits.h).
  // A multi-stage run sends what its stages schedule, whatever --num-prompts says.
  int64_t measured =
      s.stages.empty() || ConcurrencyStages(s.stages) ? s.num_prompts : StagedRequests(s.stages);
  double requests = static_cast<double>(measured + s.num_warmups);
  // A length mixture: each component's mean + 4 sd bounds its draws in practice.
  double mix_in = 0, mix_out = 0;
  for (const SequenceComponent& c : s.sequence_distribution) {
    mix_in = std::max(mix_in, static_cast<double>(c.isl) + 4 * c.isl_stddev);
    mix_out = std::max(mix_out, static_cast<double>(c.osl) + 4 * c.osl_stddev);
  }
  bool mix = !s.sequence_distribution.empty();
  if (s.dataset_name == "random") {
    double prompt_tokens =
        requests * (static_cast<double>(s.random_prefix_len) +
                    (mix ? mix_in : MaxDrawn(s.random_input_len, s.random_range_ratio)));
    SB_RETURN_IF_ERROR(CheckPromptMemory(
        prompt_tokens, fmt::format("--num-prompts {} x --random-input-len {} (+ prefix, range)",
                                   s.num_prompts + s.num_warmups, s.random_input_len)));
  }
  if (is_pool) {
    const PrefixPoolSettings& pool = s.prefix_pool;
    double prompt_tokens = (requests + static_cast<double>(pool.num_prefixes)) *
                           static_cast<double>(pool.prefix_len + pool.suffix_len);
    SB_RETURN_IF_ERROR(CheckPromptMemory(
        prompt_tokens,
        fmt::format("--num-prompts {} x (--prefix-repetition-prefix-len {} + -suffix-len {}), "
                    "primers included",
                    s.num_prompts + s.num_warmups, pool.prefix_len, pool.suffix_len)));
  }
  int64_t out_len = s.dataset_name == "random"        ? s.random_output_len
                    : is_pool                         ? s.prefix_pool.output_len
                    : s.dataset_name == "speed_bench" ? s.speed_bench_output_len
                    : s.dataset_name == "spec_bench"  ? s.spec_bench_output_len
                                                      : s.custom_output_len;
  double output_tokens = requests * (mix ? mix_out : MaxDrawn(out_len, s.random_range_ratio));
  SB_RETURN_IF_ERROR(CheckOutputMemory(
      output_tokens,
      fmt::format("--num-prompts {} x output length {}", s.num_prompts + s.num_warmups, out_len)));
  if (!(s.request_rate_per_s >= 0) || std::isinf(s.request_rate_per_s)) {
    return bad(
        fmt::format("--request-rate {}: must be a number > 0, or inf", s.request_rate_per_s));
  }
  if (!(s.burstiness > 0) || !std::isfinite(s.burstiness))
    return bad(fmt::format("--burstiness {}: must be > 0 (1 = Poisson)", s.burstiness));
  if (s.max_concurrency < 0 || s.max_concurrency > limits::kMaxConcurrency) {
    return bad(fmt::format("--max-concurrency {}: must be 0 (unlimited) .. {}", s.max_concurrency,
                           limits::kMaxConcurrency));
  }
  if (!(s.request_timeout_s >= 0) || s.request_timeout_s > limits::kMaxDeadlineSeconds) {
    return bad(fmt::format("--request-timeout {}: must be 0 (none) .. {:.0f} s",
                           s.request_timeout_s, limits::kMaxDeadlineSeconds));
  }
  if (!(s.duration_s >= 0) || s.duration_s > limits::kMaxDeadlineSeconds) {
    return bad(fmt::format("--duration {}: must be 0 (sized by --num-prompts) .. {:.0f} s",
                           s.duration_s, limits::kMaxDeadlineSeconds));
  }
  if (!(s.grace_period_s >= 0) || s.grace_period_s > limits::kMaxDeadlineSeconds) {
    return bad(fmt::format("--grace-period {}: must be 0 (cut at the end) .. {:.0f} s",
                           s.grace_period_s, limits::kMaxDeadlineSeconds));
  }
  if (!(s.client_issue_delay_limit_ms > 0) || !std::isfinite(s.client_issue_delay_limit_ms)) {
    return bad(
        fmt::format("--issue-delay-limit-ms {}: must be a number > 0 (metrics.md section 8 "
                    "uses 1)",
                    s.client_issue_delay_limit_ms));
  }
  if (s.temperature && !(*s.temperature >= 0 && std::isfinite(*s.temperature))) {
    return bad(fmt::format("--temperature {}: must be a number >= 0", *s.temperature));
  }
  for (const std::optional<double>& slo :
       {s.goodput.ttft_ms, s.goodput.tpot_ms, s.goodput.e2el_ms}) {
    if (slo && !(*slo > 0 && std::isfinite(*slo))) {
      return bad(fmt::format("--goodput {}: must be a finite number of ms > 0", *slo));
    }
  }
  if (!s.api_key_env.empty() && std::getenv(s.api_key_env.c_str()) == nullptr) {
    return bad(fmt::format(
        "--api-key-env {}: the variable {} is not set in this environment; export it (its value "
        "is sent as the Bearer key and never written anywhere) or leave the flag out",
        s.api_key_env, s.api_key_env));
  }
  if (!(s.time_scale >= 0) || !std::isfinite(s.time_scale))
    return bad(
        fmt::format("--sim-time-scale {}: must be a number >= 0 (1 = real time)", s.time_scale));
  if (!(s.server_lag_limit_ms >= 0) || !std::isfinite(s.server_lag_limit_ms))
    return bad(
        fmt::format("--server-lag-limit-ms {}: must be a number >= 0", s.server_lag_limit_ms));
  if (s.num_workers < 0 || s.num_workers > 256) {
    return bad(fmt::format("--num-workers {}: must be 0 (auto) .. 256", s.num_workers));
  }
  for (double p : s.percentiles) {
    if (!(p >= 0 && p <= 100)) return bad(fmt::format("percentile {}: must be in [0, 100]", p));
  }
  for (double p : s.metric_percentiles) {
    if (!(p >= 0 && p <= 100))
      return bad(fmt::format("--metric-percentiles {}: must be in [0, 100]", p));
  }
  for (const std::string& m : s.percentile_metrics) {
    if (m != "ttft" && m != "tpot" && m != "itl" && m != "e2el") {
      return bad(fmt::format("--percentile-metrics '{}': allowed are ttft, tpot, itl, e2el", m));
    }
  }
  SB_RETURN_IF_ERROR(telemetry::Validate(s.telemetry));
  if (!(s.idle_power_s >= 0) || s.idle_power_s > 3600) {
    return bad(
        fmt::format("--idle-power-s {}: seconds of idle sampling, 0 (off) to 3600 (10 is "
                    "the rule; less only for tests and demos)",
                    s.idle_power_s));
  }
  return Status::Ok();
}

}  // namespace servebench::client
