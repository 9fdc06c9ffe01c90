#include "client/category_mix.h"

#include <map>

#include "client/conversation_dataset.h"

namespace servebench::client {

boost::json::object CategoryMixJson(const BenchSettings& s, const PromptSet& prompts,
                                    const std::vector<std::string>& category_of,
                                    const std::vector<metrics::RequestRecord>& records) {
  struct Acc {
    int64_t requests = 0, completed = 0;
    double prompt_tokens = 0, output_tokens = 0;
    double al_sum = 0;  // per-request acceptance lengths the server reported
    int64_t al_count = 0;
  };
  std::map<std::string, Acc> acc;
  for (const std::string& c : category_of) ++acc[c].requests;
  int64_t completed = 0;
  for (const metrics::RequestRecord& r : records) {
    if (r.warmup || !r.ok() || r.index < 0 || r.index >= static_cast<int64_t>(category_of.size())) {
      continue;
    }
    Acc& a = acc[category_of[static_cast<size_t>(r.index)]];
    ++a.completed;
    a.prompt_tokens += static_cast<double>(metrics::ResolvePromptTokens(r).n);
    a.output_tokens += static_cast<double>(metrics::ResolveOutputTokens(r).n);
    if (r.spec) {
      a.al_sum += r.spec->mean_acceptance_length;
      ++a.al_count;
    }
    ++completed;
  }
  const bool speed = s.dataset_name == "speed_bench";
  const std::string& filter = speed ? s.speed_bench_category : s.spec_bench_category;
  auto share = [](int64_t n, int64_t of) {
    return of > 0 ? 100.0 * static_cast<double>(n) / static_cast<double>(of) : 0.0;
  };
  auto mean = [](double sum, int64_t n) { return n > 0 ? sum / static_cast<double>(n) : 0.0; };
  boost::json::array mix;
  for (const auto& [category, a] : acc) {
    mix.push_back(boost::json::object{
        {"category", category},
        {"requests", a.requests},
        {"share_pct", share(a.requests, static_cast<int64_t>(category_of.size()))},
        {"completed", a.completed},
        {"completed_share_pct", share(a.completed, completed)},
        {"mean_prompt_tokens", mean(a.prompt_tokens, a.completed)},
        {"mean_output_tokens", mean(a.output_tokens, a.completed)},
        // The run's spec_request_mean_acceptance_length (metrics.md §7) over this
        // category's requests; null when none carried per-request stats.
        {"spec_request_mean_acceptance_length",
         a.al_count > 0 ? boost::json::value(a.al_sum / static_cast<double>(a.al_count))
                        : boost::json::value(nullptr)}});
  }
  return boost::json::object{
      {"dataset", s.dataset_name},
      {"file", speed ? SpeedBenchFile(s.dataset_path, s.speed_bench_subset) : s.dataset_path},
      {"subset", speed ? boost::json::value(s.speed_bench_subset) : boost::json::value(nullptr)},
      {"category_filter",
       filter.empty() ? boost::json::value(nullptr) : boost::json::value(filter)},
      {"output_len", speed ? s.speed_bench_output_len : s.spec_bench_output_len},
      {"rows", prompts.conversation_rows},
      // Rows whose follow-up turns were not sent (the first user turn is).
      {"multi_turn_rows", prompts.multi_turn_rows},
      {"measured_requests", static_cast<int64_t>(category_of.size())},
      {"categories", std::move(mix)}};
}

}  // namespace servebench::client
