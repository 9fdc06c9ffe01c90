#include "search/search_records.h"

#include <fmt/format.h>

#include <cmath>

#include "common/time_format.h"
#include "common/version.h"
#include "recipe/recipe.h"
#include "record/record_builder.h"

namespace servebench::search {

namespace json = boost::json;

namespace {

bool IsConcurrency(const SearchSettings& s) { return s.vary == Vary::kConcurrency; }

// Shortest text that reads back as the same number: flag values in the identity.
std::string NumberText(double v) { return fmt::format("{}", v); }

// What every point of the search shares: the server as the identity names it and the
// load as bench's flags give it. GPU counts are bench's --num-gpus / --prefill-gpus /
// --decode-gpus, kept as flags (a running server's parallelism is not known here).
recipe::Point BasePoint(const SearchSettings& s, const SearchIdentity& id) {
  if (id.recipe_point) {
    recipe::Point p = *id.recipe_point;
    p.load.search = {};
    p.load.prompts_per_concurrency = 0;
    return p;
  }
  const client::BenchSettings& b = s.bench;
  recipe::Point p;
  p.recipe = id.recipe;
  p.source_format = "search";
  p.serve.engine = id.engine;
  p.serve.image = id.build.image;
  p.serve.model = b.model;
  p.serve.served_model_name = b.served_model_name;
  p.serve.precision = id.precision;
  p.serve.hardware = id.hardware;
  p.load.endpoint = b.endpoint;
  p.load.backend = b.backend;
  p.load.dataset = b.dataset_name;
  p.load.dataset_path = b.dataset_path;
  if (b.dataset_name.starts_with("random")) {
    p.load.isl = static_cast<int>(b.random_input_len);
    p.load.osl = static_cast<int>(b.random_output_len);
    p.load.random_range_ratio = b.random_range_ratio;
  }
  p.load.ignore_eos = b.ignore_eos;
  p.load.num_warmups = static_cast<int>(b.num_warmups);
  p.load.duration_s = static_cast<int>(std::lround(b.duration_s));
  // A simulated server's clock, as bench was told it (--sim-time-scale): the record's
  // time_scale, read from the point as for `run`'s sim points (recipe::SimTimeScale).
  if (id.engine == "sim" && b.time_scale != 1.0) {
    p.serve.sim_options["time-scale"] = NumberText(b.time_scale);
  }
  if (b.gpus.num_gpus > 0)
    p.load.extra_args.insert(p.load.extra_args.end(),
                             {"--num-gpus", std::to_string(b.gpus.num_gpus)});
  if (b.gpus.prefill_gpus > 0) {
    p.load.extra_args.insert(p.load.extra_args.end(),
                             {"--prefill-gpus", std::to_string(b.gpus.prefill_gpus),
                              "--decode-gpus", std::to_string(b.gpus.decode_gpus)});
  }
  return p;
}

// Ids of a point of the search. The recipe form: every probe and the answer ran in the
// recipe point's serve session, so they keep its session_id; the answer is that point's
// outcome, so it keeps its point_id too (what `--resume` looks up, and what a failed
// search is recorded under). Series stay the search's own (SeriesId ignores both ids).
void AssignSearchIds(const SearchIdentity& id, bool is_answer, recipe::Point* p) {
  recipe::AssignIds(p);
  if (!id.recipe_point) return;
  p->session_id = id.recipe_point->session_id;
  if (is_answer) p->point_id = id.recipe_point->point_id;
}

// A record of `point` with what every record of the search carries.
record::Record RecordOf(const recipe::Point& point, const SearchSettings& s,
                        const SearchIdentity& id, const std::string& run_id,
                        const std::string& started_at, const std::string& ended_at) {
  record::Record r = record::RecordOfPoint(point, run_id);
  // The server's GPUs as bench was told them (0 = unknown: no per-GPU throughput).
  r.deployment.num_gpus = s.bench.gpus.total();
  r.deployment.prefill_gpus = s.bench.gpus.prefill_gpus;
  r.deployment.decode_gpus = s.bench.gpus.decode_gpus;
  r.build = id.build;
  r.provenance.servebench_version = kVersion;
  r.provenance.git_revision = kGitRevision;
  r.provenance.host = id.host;
  r.provenance.engine_version = id.engine_version;
  r.provenance.started_at = started_at.empty() ? Rfc3339Now() : started_at;
  r.provenance.ended_at = ended_at;
  return r;
}

record::Record ProbeRecord(const SearchSettings& s, const SearchIdentity& id, const Probe& p,
                           size_t index) {
  std::string run_id = fmt::format("{}-p{}", id.run_id, index + 1);
  record::Record r = RecordOf(ProbePoint(s, id, p.value), s, id, run_id, p.started_at, p.ended_at);
  record::SetLoadResult(&r, p.result);
  r.invalid_reasons = p.reasons;
  r.interrupted = p.interrupted;
  r.status = record::DecideStatus(false, /*failed=*/false, /*invalid=*/!p.valid || p.interrupted);
  if (p.interrupted) {
    r.failure_class = failure_class::kRunInterrupted;
    r.failure_reason = "interrupted by the user; the partial result is kept";
  } else if (!p.valid) {
    std::string reasons;
    for (const std::string& code : p.reasons) reasons += (reasons.empty() ? "" : ", ") + code;
    r.failure_class = failure_class::kClientInvalidRun;
    r.failure_reason = "validity rules broken: " + reasons;
  }
  return r;
}

}  // namespace

recipe::Point ProbePoint(const SearchSettings& s, const SearchIdentity& id, double value) {
  recipe::Point p = BasePoint(s, id);
  client::BenchSettings b = ProbeSettings(s, value);
  p.load.concurrency = static_cast<int>(b.max_concurrency);
  p.load.request_rate_per_s = b.request_rate_per_s;
  p.load.num_prompts = static_cast<int>(b.num_prompts);
  AssignSearchIds(id, /*is_answer=*/false, &p);
  return p;
}

recipe::Point AnswerPoint(const SearchSettings& s, const SearchIdentity& id) {
  recipe::Point p = BasePoint(s, id);
  // The answer has no concurrency of its own; a rate search keeps its cap.
  p.load.concurrency = IsConcurrency(s) ? 0 : static_cast<int>(s.bench.max_concurrency);
  p.load.num_prompts = s.prompts_per_concurrency > 0 || s.size_prompts_by_duration
                           ? 0
                           : static_cast<int>(s.bench.num_prompts);
  std::vector<std::string>& a = p.load.extra_args;
  a.insert(a.end(), {"--vary", IsConcurrency(s) ? "concurrency" : "rate"});
  for (const SloLimit& l : s.slos) {
    a.insert(a.end(), {"--slo", fmt::format("{}<={}", l.stat.name, NumberText(l.max_ms))});
  }
  a.insert(a.end(), {"--search-min", NumberText(s.min), "--search-max", NumberText(s.max)});
  if (IsConcurrency(s)) {
    a.insert(a.end(), {"--search-step", std::to_string(s.concurrency_step)});
    if (s.prompts_per_concurrency > 0) {
      a.insert(a.end(),
               {"--search-prompts-per-concurrency", std::to_string(s.prompts_per_concurrency)});
    }
  } else {
    a.insert(a.end(), {"--search-resolution", NumberText(s.rate_resolution)});
  }
  a.insert(a.end(), {"--search-repeats", std::to_string(s.repeats), "--search-max-probes",
                     std::to_string(s.max_probes)});
  AssignSearchIds(id, /*is_answer=*/true, &p);
  return p;
}

SearchRecords BuildSearchRecords(const SearchSettings& s, const SearchIdentity& id,
                                 const SearchResult& result) {
  SearchRecords out;
  for (size_t i = 0; i < result.probes.size(); ++i) {
    out.probes.push_back(ProbeRecord(s, id, result.probes[i], i));
  }
  std::string started = result.probes.empty() ? "" : result.probes.front().started_at;
  std::string ended = result.probes.empty() ? Rfc3339Now() : result.probes.back().ended_at;
  record::Record& a = out.answer;
  a = RecordOf(AnswerPoint(s, id), s, id, id.run_id, started, ended);
  a.concurrency.reset();  // the answer is a value, not a load at one concurrency
  // The search JSON, each probe's full result kept in its own record instead.
  json::object summary = SearchResultJson(s, result);
  json::array& probes = summary["probes"].as_array();
  for (size_t i = 0; i < probes.size(); ++i) {
    json::object& probe = probes[i].as_object();
    probe.erase("result");
    probe["record_id"] = out.probes[i].record_id;
  }
  record::SetLoadResult(&a, std::move(summary));
  a.interrupted = result.interrupted;
  if (!result.stopped.ok()) {
    a.status = record::RecordStatus::kFailed;
    a.failure_class = failure_class::kClientError;
    a.failure_reason = "a probe could not run: " + result.stopped.message();
  } else if (result.interrupted) {
    a.status = record::RecordStatus::kInvalid;
    a.failure_class = failure_class::kRunInterrupted;
    a.failure_reason = "interrupted by the user; the answer covers the probes run so far";
  } else if (!result.boundary) {
    a.status = record::RecordStatus::kFailed;
    a.failure_class = failure_class::kRunSloNotMet;
    a.failure_reason = fmt::format("not even {} met the SLO", NumberText(s.min));
  } else {
    a.status = record::RecordStatus::kOk;
  }
  return out;
}

}  // namespace servebench::search
