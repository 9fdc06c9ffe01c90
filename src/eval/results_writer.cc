// results.json and samples.jsonl in lm-evaluation-harness's shapes (shared
// reference evals.md §3), with servebench's own fields under "servebench".
#include <fmt/format.h>

#include <cmath>

#include "common/atomic_file.h"
#include "common/json_string.h"
#include "common/sha256.h"
#include "common/version.h"
#include "eval/eval.h"
#include "eval/prompt.h"

namespace servebench::eval {
namespace {

namespace json = boost::json;

// lm-eval mean_stderr: sample standard deviation (n - 1) over sqrt(n).
MetricValue MeanAndStderr(size_t right, size_t n) {
  MetricValue m;
  if (n == 0) return m;
  double p = static_cast<double>(right) / static_cast<double>(n);
  m.value = p;
  if (n >= 2) {
    double nd = static_cast<double>(n);
    double variance = (static_cast<double>(right) * (1 - p) * (1 - p) +
                       (nd - static_cast<double>(right)) * p * p) /
                      (nd - 1);
    m.stderr_value = std::sqrt(variance) / std::sqrt(nd);
    m.has_stderr = true;
  }
  return m;
}

json::value StderrJson(const MetricValue& m) {
  if (m.has_stderr) return m.stderr_value;
  return "N/A";
}

// Python's json.dumps(s, ensure_ascii=False) for a string.
std::string PyJsonString(std::string_view s) {
  std::string out;
  AppendJsonString(&out, s);
  return out;
}

// lm-eval doc_hash: sha256 of json.dumps(doc, indent=2, ensure_ascii=False).
std::string DocHash(const GsmDoc& doc) {
  return Sha256Hex("{\n  \"question\": " + PyJsonString(doc.question) +
                   ",\n  \"answer\": " + PyJsonString(doc.answer) + "\n}");
}

json::object GenKwargs(const EvalSettings& s) {
  json::array until;
  for (const auto& stop : StopSequences(s.protocol)) until.push_back(json::string(stop));
  json::object kwargs{{"until", std::move(until)},
                      {"do_sample", false},
                      {"temperature", 0.0},
                      {"max_gen_toks", s.max_tokens}};
  if (s.protocol == Protocol::kInferenceX) kwargs["top_p"] = 1;
  return kwargs;
}

json::object TaskConfig(const EvalSettings& s) {
  json::object c;
  c["task"] = "gsm8k";
  c["dataset_path"] = s.data_path;
  c["fewshot_path"] = s.fewshot_data_path;
  c["output_type"] = "generate_until";
  c["doc_to_text"] = DocToText(s.protocol, GsmDoc{"{{question}}", ""});
  c["doc_to_target"] = "{{answer}}";
  c["target_delimiter"] = " ";
  c["fewshot_delimiter"] = "\n\n";
  c["num_fewshot"] = s.num_fewshot;
  c["generation_kwargs"] = GenKwargs(s);
  c["metric_list"] = json::array{
      json::object{{"metric", "exact_match"},
                   {"aggregation", "mean"},
                   {"higher_is_better", true},
                   {"ignore_case", true},
                   {"ignore_punctuation", false},
                   {"regexes_to_ignore", json::array{",", "\\$", "(?s).*#### ", "\\.$"}}}};
  json::object strict_regex{{"function", "regex"}, {"regex_pattern", "#### (\\-?[0-9\\.\\,]+)"}};
  if (s.protocol == Protocol::kInferenceX) strict_regex["group_select"] = -1;
  c["filter_list"] = json::array{
      json::object{{"name", "strict-match"},
                   {"filter", json::array{strict_regex, json::object{{"function", "take_first"}}}}},
      json::object{
          {"name", "flexible-extract"},
          {"filter", json::array{json::object{{"function", "regex"},
                                              {"group_select", -1},
                                              {"regex_pattern", "(-?[$0-9.,]{2,})|(-?[0-9]+)"}},
                                 json::object{{"function", "take_first"}}}}}};
  c["metadata"] = json::object{{"version", 3.0}};
  return c;
}

}  // namespace

void Summarize(EvalResult& result) {
  result.n_scored = result.n_failed = result.n_not_run = 0;
  size_t strict_right = 0;
  size_t flexible_right = 0;
  for (const SampleResult& s : result.samples) {
    switch (s.state) {
      case SampleResult::State::kScored:
        ++result.n_scored;
        strict_right += s.strict_correct ? 1 : 0;
        flexible_right += s.flexible_correct ? 1 : 0;
        break;
      case SampleResult::State::kFailed:
        ++result.n_failed;
        break;
      case SampleResult::State::kNotRun:
        ++result.n_not_run;
        break;
    }
  }
  result.strict_match = MeanAndStderr(strict_right, result.n_scored);
  result.flexible_extract = MeanAndStderr(flexible_right, result.n_scored);
}

json::object ToResultsJson(const EvalResult& r) {
  const EvalSettings& s = r.settings;
  json::object task{{"alias", "gsm8k"},
                    {"exact_match,strict-match", r.strict_match.value},
                    {"exact_match_stderr,strict-match", StderrJson(r.strict_match)},
                    {"exact_match,flexible-extract", r.flexible_extract.value},
                    {"exact_match_stderr,flexible-extract", StderrJson(r.flexible_extract)}};
  json::object o;
  o["results"] = json::object{{"gsm8k", std::move(task)}};
  o["group_subtasks"] = json::object{{"gsm8k", json::array{}}};
  o["configs"] = json::object{{"gsm8k", TaskConfig(s)}};
  o["versions"] = json::object{{"gsm8k", 3.0}};
  o["n-shot"] = json::object{{"gsm8k", s.num_fewshot}};
  o["higher_is_better"] = json::object{{"gsm8k", json::object{{"exact_match", true}}}};
  o["n-samples"] =
      json::object{{"gsm8k", json::object{{"original", r.n_original}, {"effective", r.n_scored}}}};
  std::string model_kind =
      s.endpoint == Endpoint::kCompletions ? "local-completions" : "local-chat-completions";
  o["config"] = json::object{
      {"model", model_kind},
      {"model_args",
       fmt::format("model={},base_url={},num_concurrent={},max_retries={},"
                   "timeout={},tokenized_requests=False",
                   s.model, s.base_url, s.num_concurrent, s.max_retries, s.timeout_ms / 1000)},
      {"batch_size", 1},
      {"limit", s.limit > 0 ? json::value(s.limit) : json::value(nullptr)},
      {"gen_kwargs", GenKwargs(s)},
      {"fewshot_seed", s.fewshot_seed},
      {"random_seed", 0},
      {"numpy_seed", 1234},
      {"torch_seed", 1234}};
  o["git_hash"] = kGitRevision;
  o["date"] = r.date_utc;
  o["model_name"] = s.model;
  o["task_hashes"] = json::object{{"gsm8k", r.protocol_hash}};
  o["total_evaluation_time_seconds"] = fmt::format("{:.3f}", r.wall_seconds);
  o["servebench"] = json::object{{"version", kVersion},
                                 {"protocol", ProtocolName(s.protocol)},
                                 {"endpoint", EndpointName(s.endpoint)},
                                 {"protocol_hash", r.protocol_hash},
                                 {"n_scored", r.n_scored},
                                 {"n_failed", r.n_failed},
                                 {"n_not_run", r.n_not_run},
                                 {"interrupted", r.interrupted},
                                 {"wall_seconds", r.wall_seconds}};
  return o;
}

json::object ToJson(const EvalResult& r) {
  return json::object{{"task", r.settings.task},
                      {"protocol", ProtocolName(r.settings.protocol)},
                      {"endpoint", EndpointName(r.settings.endpoint)},
                      {"num_fewshot", r.settings.num_fewshot},
                      {"protocol_hash", r.protocol_hash},
                      {"exact_match,strict-match", r.strict_match.value},
                      {"exact_match_stderr,strict-match", StderrJson(r.strict_match)},
                      {"exact_match,flexible-extract", r.flexible_extract.value},
                      {"exact_match_stderr,flexible-extract", StderrJson(r.flexible_extract)},
                      {"n_scored", r.n_scored},
                      {"n_failed", r.n_failed},
                      {"n_not_run", r.n_not_run},
                      {"interrupted", r.interrupted},
                      {"wall_seconds", r.wall_seconds}};
}

std::string SamplesJsonl(const EvalResult& r) {
  std::string out;
  json::object gen_kwargs = GenKwargs(r.settings);
  for (size_t i = 0; i < r.samples.size(); ++i) {
    const SampleResult& s = r.samples[i];
    if (s.state == SampleResult::State::kNotRun) continue;
    const GsmDoc& doc = r.docs[i];
    bool ok = s.state == SampleResult::State::kScored;
    std::string arg0 = s.prompt;
    if (r.settings.endpoint == Endpoint::kChat) {
      arg0 = json::serialize(json::array{json::object{{"role", "user"}, {"content", s.prompt}}});
    }
    for (int f = 0; f < 2; ++f) {
      bool strict = f == 0;
      json::object line;
      line["doc_id"] = i;
      line["doc"] = json::object{{"question", doc.question}, {"answer", doc.answer}};
      line["target"] = doc.answer;
      line["arguments"] =
          json::object{{"gen_args_0", json::object{{"arg_0", arg0}, {"arg_1", gen_kwargs}}}};
      line["resps"] = json::array{json::array{json::string(s.response)}};
      line["filtered_resps"] =
          json::array{json::string(strict ? s.strict_answer : s.flexible_answer)};
      line["filter"] = strict ? "strict-match" : "flexible-extract";
      line["metrics"] = json::array{"exact_match"};
      line["doc_hash"] = DocHash(doc);
      line["prompt_hash"] = Sha256Hex(arg0);
      line["target_hash"] = Sha256Hex(doc.answer);
      if (ok) {
        line["exact_match"] = (strict ? s.strict_correct : s.flexible_correct) ? 1.0 : 0.0;
      } else {
        line["exact_match"] = nullptr;  // not scored: the server never answered
      }
      json::object sb{
          {"status", ok ? "ok" : "failed"}, {"attempts", s.attempts}, {"latency_ms", s.latency_ms}};
      if (!ok) sb["error"] = s.error;
      line["servebench"] = std::move(sb);
      out += json::serialize(line);
      out += '\n';
    }
  }
  return out;
}

Status WriteEvalOutputs(const EvalResult& result, const std::string& output_dir) {
  SB_RETURN_IF_ERROR(WriteFileAtomically(output_dir + "/samples.jsonl", SamplesJsonl(result)));
  return WriteFileAtomically(output_dir + "/results.json",
                             json::serialize(ToResultsJson(result)) + "\n");
}

}  // namespace servebench::eval
