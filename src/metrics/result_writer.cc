#include "metrics/result_writer.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

namespace servebench::metrics {
namespace {

namespace json = boost::json;

const Stats* StatsByName(const RunSummary& s, std::string_view name) {
  if (name == "ttft") return &s.ttft;
  if (name == "tpot") return &s.tpot;
  if (name == "itl") return &s.itl;
  if (name == "e2el") return &s.e2el;
  if (name == "client_queue_time") return &s.client_queue_time;
  return nullptr;
}

// {count, mean, median, std, min, max, p<P>...}; null values when the set is empty.
json::value StatsJson(const Stats& st) {
  json::object o;
  o["count"] = static_cast<int64_t>(st.count);
  auto v = [&](double x) -> json::value {
    return st.empty() ? json::value(nullptr) : json::value(x);
  };
  o["mean"] = v(st.mean);
  o["median"] = v(st.median);
  o["std"] = v(st.std);
  o["min"] = v(st.min);
  o["max"] = v(st.max);
  for (size_t i = 0; i < st.percentile_points.size(); ++i) {
    o["p" + PercentileLabel(st.percentile_points[i])] = v(st.percentile_values[i]);
  }
  return o;
}

// Interactivity with a fixed key set: mean, median and each percentile of `st`.
json::object IntvtyJson(const Stats& st, const std::map<std::string, double>& values) {
  json::object o;
  std::vector<std::string> keys = {"mean", "median"};
  for (double p : st.percentile_points) keys.push_back("p" + PercentileLabel(p));
  for (const std::string& k : keys) {
    auto it = values.find(k);
    o[k] = it == values.end() ? json::value(nullptr) : json::value(it->second);
  }
  return o;
}

json::object CountsJson(const std::map<std::string, int64_t>& counts) {
  json::object o;
  for (const auto& [k, v] : counts) o[k] = v;
  return o;
}

json::value RequestRateJson(double rate) {
  if (rate <= 0 || std::isinf(rate)) return json::value("inf");
  return json::value(rate);
}

std::string RateText(double rate) {
  if (rate <= 0 || std::isinf(rate)) return "inf";
  std::string t = fmt::format("{}", rate);
  if (t.find('.') == std::string::npos && t.find('e') == std::string::npos) t += ".0";
  return t;  // Python's float text: 10.0, 2.5
}

}  // namespace

json::object BuildServebenchObject(const RunSummary& s) {
  json::object o;
  o["schema_version"] = 1;
  o["requested"] = s.requested;
  o["input_throughput"] = s.input_throughput;
  if (s.per_gpu) {
    o["per_gpu"] = json::object{{"tput_per_gpu", s.per_gpu->tput_per_gpu},
                                {"output_tput_per_gpu", s.per_gpu->output_tput_per_gpu},
                                {"input_tput_per_gpu", s.per_gpu->input_tput_per_gpu}};
  } else {
    o["per_gpu"] = nullptr;
  }
  json::object stats;
  stats["ttft_ms"] = StatsJson(s.ttft);
  stats["ttft_from_schedule_ms"] = StatsJson(s.ttft_from_schedule);
  stats["tpot_ms"] = StatsJson(s.tpot);
  stats["itl_ms"] = StatsJson(s.itl);
  stats["itl_per_token_ms"] = StatsJson(s.itl_per_token);
  stats["e2el_ms"] = StatsJson(s.e2el);
  stats["e2el_from_schedule_ms"] = StatsJson(s.e2el_from_schedule);
  stats["issue_delay_ms"] = StatsJson(s.issue_delay);
  stats["client_queue_time_ms"] = StatsJson(s.client_queue_time);
  stats["e2el_per_output_token_s"] = StatsJson(s.e2el_per_token_s);
  stats["ttfo_ms"] = StatsJson(s.ttfo);
  o["stats"] = std::move(stats);
  json::object channels;
  for (Channel c : kAllChannels) {
    const ChannelSummary& ch = s.channels[static_cast<size_t>(c)];
    channels[ChannelName(c)] = json::object{{"requests", ch.requests},
                                            {"total_tokens", ch.total_tokens},
                                            {"time_to_first_ms", StatsJson(ch.time_to_first)},
                                            {"tokens", StatsJson(ch.tokens)}};
  }
  o["channels"] = std::move(channels);
  o["requests_without_output"] = s.requests_without_output;
  o["tool_calls"] =
      json::object{{"valid", s.tool_calls.valid},
                   {"invalid", s.tool_calls.invalid},
                   {"requests_without_tool_call", s.tool_calls.requests_without_tool_call}};
  o["intvty"] = IntvtyJson(s.tpot, s.intvty);
  o["e2e_norm_intvty"] = IntvtyJson(s.e2el_per_token_s, s.e2e_norm_intvty);
  o["n_source"] = CountsJson(s.n_sources);
  o["prompt_source"] = CountsJson(s.prompt_sources);
  o["failures"] = CountsJson(s.failures);
  json::object samples;
  for (const auto& [kind, message] : s.failure_samples) samples[kind] = message;
  o["failure_samples"] = std::move(samples);
  json::array errors;
  for (const std::string& e : s.sample_errors) errors.emplace_back(e);
  o["sample_errors"] = std::move(errors);
  if (s.spec) {
    const SpecAcceptance& a = *s.spec;
    json::object sd;
    sd["delta_drafts"] = a.delta_drafts;
    sd["delta_draft_tokens"] = a.delta_draft_tokens;
    sd["delta_accepted_tokens"] = a.delta_accepted;
    sd["acceptance_length"] = a.acceptance_length ? json::value(*a.acceptance_length) : nullptr;
    sd["acceptance_rate"] = a.acceptance_rate ? json::value(*a.acceptance_rate) : nullptr;
    json::array pp;
    for (double x : a.per_position) pp.emplace_back(x);
    sd["per_position_acceptance"] = std::move(pp);
    o["spec_decode"] = std::move(sd);
  } else {
    o["spec_decode"] = nullptr;
  }
  if (s.server_lag) {
    o["server_lag"] = json::object{{"steps", s.server_lag->steps},
                                   {"p99_ms", s.server_lag->p99_ms},
                                   {"steps_late_1ms", s.server_lag->steps_late_1ms}};
  } else {
    o["server_lag"] = nullptr;
  }
  o["spec_request_mean_acceptance_length"] =
      s.spec_request_mean_al ? json::value(*s.spec_request_mean_al) : nullptr;
  json::object validity;
  validity["valid"] = s.validity.valid();
  json::array reasons, warnings, details;
  for (const std::string& c : s.validity.reason_codes()) reasons.emplace_back(c);
  for (const std::string& c : s.validity.warning_codes()) warnings.emplace_back(c);
  for (const ValidityIssue& i : s.validity.issues) details.emplace_back(i.code + ": " + i.detail);
  validity["reasons"] = std::move(reasons);
  validity["warnings"] = std::move(warnings);
  validity["details"] = std::move(details);
  o["validity"] = std::move(validity);
  return o;
}

json::object BuildResultJson(const RunSummary& s, const ResultHeader& h,
                             const std::vector<RequestRecord>& records) {
  json::object o;
  o["date"] = h.date;
  o["endpoint_type"] = h.backend;
  o["backend"] = h.backend;
  o["label"] = h.label.empty() ? json::value(nullptr) : json::value(h.label);
  o["model_id"] = h.model_id;
  o["tokenizer_id"] = h.tokenizer_id.empty() ? json::value(nullptr) : json::value(h.tokenizer_id);
  o["num_prompts"] = h.num_prompts;
  for (const auto& [k, v] : h.metadata) o[k] = v;
  o["request_rate"] = RequestRateJson(h.request_rate);
  o["burstiness"] = h.burstiness;
  o["max_concurrency"] = h.max_concurrency > 0 ? h.max_concurrency : h.num_prompts;
  o["duration"] = s.duration_s;
  o["benchmark_start_time_unix"] = h.benchmark_start_time_unix;
  o["benchmark_end_time_unix"] = h.benchmark_end_time_unix;
  o["completed"] = s.completed;
  o["failed"] = s.failed;
  o["total_input_tokens"] = s.total_input_tokens;
  o["total_output_tokens"] = s.total_output_tokens;
  o["request_throughput"] = s.request_throughput;
  o["request_goodput"] = s.request_goodput ? json::value(*s.request_goodput) : nullptr;
  o["output_throughput"] = s.output_throughput;
  o["total_token_throughput"] = s.total_token_throughput;

  std::vector<const RequestRecord*> measured;
  for (const RequestRecord& r : records) {
    if (!r.warmup) measured.push_back(&r);
  }
  std::sort(measured.begin(), measured.end(),
            [](const RequestRecord* a, const RequestRecord* b) { return a->index < b->index; });
  json::array input_lens, output_lens, ttfts, itls, latencies, start_times, queue_times, texts,
      errors;
  for (const RequestRecord* r : measured) {
    bool ok = r->ok();
    input_lens.emplace_back(ResolvePromptTokens(*r).n);
    output_lens.emplace_back(ok ? ResolveOutputTokens(*r).n : 0);
    ttfts.emplace_back(ok ? (r->t_first_token_ns - r->t_sent_ns) / 1e9 : 0.0);
    json::array gaps;
    int64_t prev = -1;
    for (const StreamEvent& e : r->events) {
      if (e.k <= 0) continue;
      if (prev >= 0) gaps.emplace_back((e.t_ns - prev) / 1e9);
      prev = e.t_ns;
    }
    itls.emplace_back(ok ? std::move(gaps) : json::array());
    latencies.emplace_back(ok ? (r->t_last_token_ns - r->t_sent_ns) / 1e9 : 0.0);
    start_times.emplace_back((r->t_sent_ns - s.main_phase_start_ns) / 1e9);
    int64_t released = std::max(r->t_scheduled_ns, r->t_slot_free_ns);
    queue_times.emplace_back((released - r->t_scheduled_ns) / 1e9);
    texts.emplace_back(r->generated_text);
    errors.emplace_back(r->error);
  }
  if (h.save_detailed) {
    o["input_lens"] = std::move(input_lens);
    o["output_lens"] = std::move(output_lens);
    o["ttfts"] = std::move(ttfts);
    o["itls"] = std::move(itls);
  }
  o["latencies"] = std::move(latencies);
  if (h.save_detailed) o["start_times"] = std::move(start_times);
  o["queue_times"] = std::move(queue_times);
  if (h.save_detailed) {
    o["generated_texts"] = std::move(texts);
    o["errors"] = std::move(errors);
  }
  o["max_output_tokens_per_s"] = s.max_output_tokens_per_s;
  o["max_concurrent_requests"] = s.max_concurrent_requests;
  o["rtfx"] = 0.0;
  if (s.spec && s.spec->acceptance_rate) {
    const SpecAcceptance& a = *s.spec;
    o["spec_decode_acceptance_rate"] = *a.acceptance_rate * 100.0;
    o["spec_decode_acceptance_length"] = *a.acceptance_length;
    o["spec_decode_num_drafts"] = static_cast<int64_t>(std::llround(a.delta_drafts));
    o["spec_decode_draft_tokens"] = static_cast<int64_t>(std::llround(a.delta_draft_tokens));
    o["spec_decode_accepted_tokens"] = static_cast<int64_t>(std::llround(a.delta_accepted));
    json::array pp;
    for (double x : a.per_position) pp.emplace_back(x);
    o["spec_decode_per_position_acceptance_rates"] = std::move(pp);
  }
  for (const std::string& m : h.percentile_metrics) {
    const Stats* st = StatsByName(s, m);
    if (st == nullptr) continue;
    // An empty TPOT set is omitted: a 0 TPOT crashes InferenceX ingestion (§4).
    if (m == "tpot" && st->empty()) continue;
    auto val = [&](double x) { return st->empty() ? 0.0 : x; };
    o["mean_" + m + "_ms"] = val(st->mean);
    o["median_" + m + "_ms"] = val(st->median);
    o["std_" + m + "_ms"] = val(st->std);
    for (double p : h.metric_percentiles) {
      // P must be among SummaryInputs.percentiles (the client passes the union).
      std::optional<double> at = st->At(p);
      o["p" + PercentileLabel(p) + "_" + m + "_ms"] = val(at.value_or(0.0));
    }
  }
  json::object sb = BuildServebenchObject(s);
  sb["max_concurrency_requested"] =
      h.max_concurrency > 0 ? json::value(h.max_concurrency) : json::value(nullptr);
  for (const auto& kv : h.servebench_extra) sb[kv.key()] = kv.value();
  o["servebench"] = std::move(sb);
  return o;
}

json::object BuildInferenceXResultJson(const RunSummary& s, const ResultHeader& h,
                                       const std::vector<RequestRecord>& records) {
  ResultHeader detailed = h;
  detailed.save_detailed = true;  // for input_lens / output_lens, always kept by the fork
  json::object up = BuildResultJson(s, detailed, records);
  json::object o;
  auto copy = [&](std::string_view key) {
    if (const json::value* v = up.if_contains(key)) o[key] = *v;
  };
  for (std::string_view k : {"date", "backend", "model_id", "tokenizer_id"}) copy(k);
  o["best_of"] = 1;
  copy("num_prompts");
  for (const auto& [k, v] : h.metadata) o[k] = v;
  for (std::string_view k : {"request_rate", "burstiness", "max_concurrency", "duration",
                             "benchmark_start_time_unix", "benchmark_end_time_unix", "completed"}) {
    copy(k);
  }
  int64_t client_input = 0;
  for (const RequestRecord& r : records) {
    if (!r.warmup && r.ok()) client_input += r.client_prompt_tokens;
  }
  o["total_input_tokens"] = client_input;
  copy("total_output_tokens");
  copy("request_throughput");
  o["request_goodput:"] = up.at("request_goodput");
  for (std::string_view k :
       {"output_throughput", "total_token_throughput", "input_lens", "output_lens"}) {
    copy(k);
  }
  if (h.save_detailed) {
    for (std::string_view k : {"ttfts", "itls", "generated_texts", "errors"}) copy(k);
  }
  for (const auto& kv : up) {
    std::string_view k = kv.key();
    bool stat = k.ends_with("_ms") && (k.starts_with("mean_") || k.starts_with("median_") ||
                                       k.starts_with("std_") || k.starts_with("p"));
    if (stat) o[k] = kv.value();
  }
  o["servebench"] = up.at("servebench");
  return o;
}

json::object RequestRecordJson(const RequestRecord& r) {
  json::object o;
  o["index"] = r.index;
  o["warmup"] = r.warmup;
  o["ok"] = r.ok();
  o["t_scheduled_ns"] = r.t_scheduled_ns;
  o["t_slot_free_ns"] = r.t_slot_free_ns >= 0 ? json::value(r.t_slot_free_ns) : nullptr;
  o["t_sent_ns"] = r.t_sent_ns;
  o["t_first_token_ns"] = r.t_first_token_ns;
  o["t_last_token_ns"] = r.t_last_token_ns;
  o["t_done_ns"] = r.t_done_ns;
  OutputTokens n = ResolveOutputTokens(r);
  PromptTokens p = ResolvePromptTokens(r);
  o["output_tokens"] = n.n;
  o["n_source"] = NSourceName(n.source);
  o["k_source"] = KSourceName(r.k_source);
  o["prompt_tokens"] = p.n;
  o["prompt_source"] = PromptSourceName(p.source);
  o["max_tokens"] = r.max_tokens;
  o["http_status"] = r.http_status;
  o["reconnects"] = r.reconnects;
  o["finish_reason"] = r.finish_reason;
  o["failure"] = FailureKindName(r.failure);
  o["error"] = r.error;
  json::array events;
  for (const StreamEvent& e : r.events) events.emplace_back(json::array{e.t_ns, e.k});
  o["events"] = std::move(events);  // [t_ns, k] pairs
  RequestChannels ch = ChannelsOf(r);
  o["t_first_output_ns"] = ch.t_first_output_ns;
  json::object channels;
  for (Channel c : kAllChannels) {
    channels[ChannelName(c)] =
        json::object{{"t_first_ns", ch[c].t_first_ns}, {"tokens", ch[c].tokens}};
  }
  o["channels"] = std::move(channels);
  o["tool_calls"] = json::object{{"valid", r.tool_calls_valid}, {"invalid", r.tool_calls_invalid}};
  if (r.spec) {
    o["spec"] = json::object{{"num_spec_steps", r.spec->num_spec_steps},
                             {"num_draft_tokens", r.spec->num_draft_tokens},
                             {"num_accepted_draft_tokens", r.spec->num_accepted_draft_tokens},
                             {"mean_acceptance_length", r.spec->mean_acceptance_length}};
  }
  if (r.server_first_token_send_ns >= 0)
    o["server_first_token_send_ns"] = r.server_first_token_send_ns;
  if (!r.generated_text.empty()) o["generated_text"] = r.generated_text;
  return o;
}

std::string DefaultResultFilename(const ResultHeader& h) {
  std::string label = h.label.empty() ? h.backend : h.label;
  std::string model = h.model_id;
  if (size_t slash = model.rfind('/'); slash != std::string::npos) model = model.substr(slash + 1);
  std::string name = fmt::format("{}-{}qps", label, RateText(h.request_rate));
  if (h.max_concurrency > 0) name += fmt::format("-concurrency{}", h.max_concurrency);
  return fmt::format("{}-{}-{}.json", name, model, h.date);
}

}  // namespace servebench::metrics
