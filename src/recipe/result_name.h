// InferenceX's result file names (inferencex-formats.md §7, disagg.md §3), so that
// InferenceX's own processor (utils/process_result.py, driven by
// benchmark-multinode-tmpl.yml) reads servebench's result files: it takes P and D
// from a multinode file's `_gpus_G_ctx_P_gen_D` part. Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "recipe/point.h"

namespace servebench::recipe {

// The workflow's RESULT_FILENAME of `point` run on `runner_node`:
//   single node  {exp}_{precision}_{framework}_tp{}-pp{}-dcp{}-pcp{}-ep{}-dpa{bool}
//                _disagg-{bool}_spec-{spec}_conc{conc}_{runner node}
//   multinode    {exp}_{precision}_{framework}_prefill-tp{}-pp{}-dcp{}-pcp{}-ep{}-dp{bool}
//                -nw{}_decode-…_disagg-{bool}_spec-{spec}_conc{c1xc2…}_{runner node}
// `session_concurrencies` is the multinode row's concurrency list (the session's).
std::string InferenceXResultName(const Point& point, const std::string& runner_node,
                                 const std::vector<int>& session_concurrencies);

// InferenceX's spelling of a speculative-decoding method, as its config and the
// workflow's SPEC_DECODING write it: "mtp" (EAGLE, EAGLE3, MTP and n-gram drafts
// alike), "draft_model" or "none".
const char* InferenceXSpecName(SpecMethod method);

// The multinode harness's file for one concurrency: "<base>_conc<C>_gpus_<G>
// _ctx_<P>_gen_<D>.json"; aggregated (D = 0) "<base>_conc<C>_gpus_<G>.json", which
// the processor reads as P = G, D = 0.
std::string MultinodeResultFile(const std::string& base, int concurrency, int prefill_gpus,
                                int decode_gpus);

}  // namespace servebench::recipe
