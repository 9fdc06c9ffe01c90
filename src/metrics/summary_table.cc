// The terminal summary table, laid out like `vllm bench serve`'s, plus servebench's
// own lines (from-schedule latency, per-token ITL, client issue delay, validity).
#include <fmt/format.h>

#include "metrics/failure_summary.h"
#include "metrics/result_writer.h"

namespace servebench::metrics {
namespace {

void Line(std::string& out, std::string_view name, const std::string& value) {
  out += fmt::format("{:<40} {:<10}\n", name, value);
}
std::string F(double v) { return fmt::format("{:.2f}", v); }

void Section(std::string& out, std::string_view title) { out += fmt::format("{:-^50}\n", title); }

void StatLines(std::string& out, std::string_view label, const Stats& st,
               const std::vector<double>& percentiles) {
  auto v = [&](double x) { return st.empty() ? std::string("n/a") : F(x); };
  Line(out, fmt::format("Mean {} (ms):", label), v(st.mean));
  Line(out, fmt::format("Median {} (ms):", label), v(st.median));
  for (double p : percentiles) {
    Line(out, fmt::format("P{} {} (ms):", PercentileLabel(p), label), v(st.At(p).value_or(0)));
  }
}

}  // namespace

std::string FormatSummaryTable(const RunSummary& s, const ResultHeader& h) {
  std::string out;
  out += fmt::format("{:=^50}\n", " Serving Benchmark Result ");
  Line(out, "Successful requests:", fmt::format("{}", s.completed));
  Line(out, "Failed requests:", fmt::format("{}", s.failed));
  // Why, in words: per failure kind its count and the first message (one line each).
  for (const std::string& kind : FailureLines(s)) out += "  " + kind + "\n";
  if (h.max_concurrency > 0) {
    Line(out, "Maximum request concurrency:", fmt::format("{}", h.max_concurrency));
  }
  if (h.request_rate > 0) Line(out, "Request rate configured (RPS):", F(h.request_rate));
  Line(out, "Benchmark duration (s):", F(s.duration_s));
  Line(out, "Total input tokens:", fmt::format("{}", s.total_input_tokens));
  Line(out, "Total generated tokens:", fmt::format("{}", s.total_output_tokens));
  Line(out, "Request throughput (req/s):", F(s.request_throughput));
  if (s.request_goodput) Line(out, "Request goodput (req/s):", F(*s.request_goodput));
  Line(out, "Output token throughput (tok/s):", F(s.output_throughput));
  Line(out, "Peak output token throughput (tok/s):", F(s.max_output_tokens_per_s));
  Line(out, "Peak concurrent requests:", fmt::format("{}", s.max_concurrent_requests));
  Line(out, "Total token throughput (tok/s):", F(s.total_token_throughput));
  const std::vector<double>& ps = h.metric_percentiles;
  Section(out, "Time to First Token");
  StatLines(out, "TTFT", s.ttft, ps);
  Section(out, "Time per Output Token (excl. 1st token)");
  StatLines(out, "TPOT", s.tpot, ps);
  Section(out, "Inter-token Latency");
  StatLines(out, "ITL", s.itl, ps);
  Section(out, "End-to-end Latency");
  StatLines(out, "E2EL", s.e2el, ps);
  Section(out, "servebench");
  StatLines(out, "ITL per token", s.itl_per_token, ps);
  StatLines(out, "TTFT from schedule", s.ttft_from_schedule, ps);
  StatLines(out, "E2EL from schedule", s.e2el_from_schedule, ps);
  // Reasoning and tool calls (docs/metrics.md "Channels"): shown when the run had them.
  const ChannelSummary& reasoning = s.channels[static_cast<size_t>(Channel::kReasoning)];
  if (reasoning.requests > 0) {
    StatLines(out, "TTFO (first output)", s.ttfo, ps);
    Line(out, "Reasoning tokens:", fmt::format("{}", reasoning.total_tokens));
    Line(out,
         "Requests with no output (reasoning only):", fmt::format("{}", s.requests_without_output));
  }
  if (s.tool_calls.valid + s.tool_calls.invalid > 0) {
    Line(out, "Tool calls (valid / invalid JSON):",
         fmt::format("{} / {}", s.tool_calls.valid, s.tool_calls.invalid));
    Line(out, "Requests without a tool call:",
         fmt::format("{}", s.tool_calls.requests_without_tool_call));
  }
  Line(out, "P99 client issue delay (ms):",
       s.issue_delay.empty()
           ? "n/a"
           : fmt::format("{:.3f}", s.issue_delay.At(99).value_or(s.issue_delay.max)));
  if (s.spec && s.spec->acceptance_length) {
    Line(out, "Spec decode acceptance length:", F(*s.spec->acceptance_length));
    Line(out, "Spec decode acceptance rate (%):", F(*s.spec->acceptance_rate * 100));
  }
  std::string validity = s.validity.valid() ? "valid" : "INVALID";
  for (const ValidityIssue& i : s.validity.issues) {
    validity += fmt::format("\n  {}{}: {}", i.warning ? "warning " : "", i.code, i.detail);
  }
  Line(out, "Run:", validity);
  out += std::string(50, '=') + "\n";
  return out;
}

}  // namespace servebench::metrics
