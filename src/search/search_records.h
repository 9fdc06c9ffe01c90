// SearchRecords: every probe of a `servebench search` and its answer as Records
// (record/record.h), so a search is stored, listed and judged like `servebench run`'s
// points (docs/search.md, "Records").
//
// A search against a running server has no recipe: its identity is what the command
// line says about the server (SearchIdentity) plus the load each probe ran. Each probe
// is the record of an ordinary load point at the concurrency or rate it ran, so its
// series is that of `bench` at that value. The answer is a record of its own whose
// series is the search's identity — model, engine, hardware, precision, the load and
// the search itself (what varies, the limits, the range, the repeats) — and whose
// headline carries max_concurrency_at_slo or max_request_rate_at_slo, the metric
// `servebench regress` judges (higher is better). Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "recipe/point.h"
#include "record/record.h"
#include "search/slo_search.h"

namespace servebench::search {

// What the command line says about the server and the run, beyond the load.
struct SearchIdentity {
  std::string recipe = "search";   // the series' name as people read it (--recipe)
  std::string engine = "unknown";  // what serves --base-url: vllm, sglang, sim, ... (--engine)
  std::string hardware;            // GPU SKU label, "" = not said (--hardware)
  std::string precision;           // fp8, bf16, ..., "" = not said (--precision)
  record::Build build;             // the build under test (--build-image/-commit/-date)
  std::string run_id;              // this invocation's (--run-id); must be a safe id
  std::string host;                // the machine the client ran on
  std::string engine_version;      // what the server said of itself, "" = not asked
  // `servebench run`'s recipe form: the recipe's search point, whose serve spec and
  // load every record keeps (its own series, as the recipe's other points have),
  // instead of the point the fields above and the bench flags describe. Its
  // load.search is dropped: the answer's extra_args say the search. The answer keeps
  // the recipe point's point_id (so `run --resume` skips a search already answered ok)
  // and every record its session_id (the serve session they all ran in).
  std::optional<recipe::Point> recipe_point;
};

// The point the probe at `value` ran: the search's load with the concurrency (or rate)
// and prompt count of that probe (ProbeSettings), ids assigned.
recipe::Point ProbePoint(const SearchSettings& settings, const SearchIdentity& identity,
                         double value);

// The point of the search's answer: the search's load without a concurrency of its own,
// and the search's knobs (--vary, each --slo, the range, step or resolution, repeats,
// prompts per concurrency, max probes) as load.extra_args, so two searches with other
// limits are two series. Ids assigned.
recipe::Point AnswerPoint(const SearchSettings& settings, const SearchIdentity& identity);

struct SearchRecords {
  // One per probe, in the order run. A probe's run_id is `<run_id>-p<k>` (k from 1),
  // so repeats at one value are distinct records of one series (a same-night rerun
  // to `regress`).
  std::vector<record::Record> probes;
  // run_id `<run_id>`. ok with the answer in its headline; failed `client.error` when
  // a probe could not run, invalid `run.interrupted` on Ctrl-C, failed
  // `run.slo_not_met` when even the minimum missed the SLO. Its summary is the search
  // JSON (SearchResultJson) with each probe's result replaced by its `record_id`.
  record::Record answer;
};

SearchRecords BuildSearchRecords(const SearchSettings& settings, const SearchIdentity& identity,
                                 const SearchResult& result);

}  // namespace servebench::search
