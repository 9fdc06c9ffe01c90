// Expansion of native and nightly recipes: one point per (scenario, search-space
// entry, concurrency); no InferenceX eval policy unless the recipe asks for it.
#include <fmt/format.h>

#include <algorithm>

#include "recipe/expand_internal.h"
#include "recipe/result_name.h"

namespace servebench::recipe {
namespace {

boost::json::object WorkerRow(const WorkerSpec& w) {
  boost::json::array settings;
  for (const auto& kv : w.additional_settings) settings.push_back(boost::json::string(kv));
  return {{"num-worker", w.num_workers},
          {"tp", w.tp},
          {"ep", w.ep},
          {"dp-attn", w.dp_attn},
          {"additional-settings", settings},
          {"pp", w.pp},
          {"dcp-size", w.dcp_size},
          {"pcp-size", w.pcp_size}};
}

boost::json::object RowFor(const Recipe& r, const Point& p) {
  const ServeSpec& s = p.serve;
  boost::json::object row;
  row["image"] = s.image;
  row["model"] = s.model;
  row["model-prefix"] = p.model_prefix;
  row["precision"] = s.precision;
  row["framework"] = s.framework.empty() ? s.engine : s.framework;
  row["runner"] = p.runner;
  row["isl"] = p.load.isl;
  row["osl"] = p.load.osl;
  if (s.multinode) {
    // InferenceX's multinode row shape (inferencex-formats.md §6).
    row["spec-decoding"] = InferenceXSpecName(s.spec.method);
    row["prefill"] = WorkerRow(s.prefill);
    row["decode"] = WorkerRow(s.decode);
    row["conc"] = boost::json::array{p.load.concurrency};
    row["max-model-len"] = s.max_model_len;
    row["exp-name"] = p.exp_name;
    row["disagg"] = s.disagg;
    row["run-eval"] = p.run_eval;
    if (!s.router_name.empty()) row["router"] = {{"name", s.router_name}, {"version", ""}};
    if (!s.kv_p2p_transfer.empty()) row["kv-p2p-transfer"] = s.kv_p2p_transfer;
    if (p.eval_only) row["eval-only"] = true;
    return row;
  }
  row["tp"] = s.tp;
  row["pp"] = s.pp;
  row["dcp-size"] = s.dcp_size;
  row["pcp-size"] = s.pcp_size;
  row["conc"] = p.load.concurrency;
  row["max-model-len"] = s.max_model_len;
  row["ep"] = s.ep;
  row["dp-attn"] = s.dp_attn;
  row["spec-decoding"] = InferenceXSpecName(s.spec.method);
  row["exp-name"] = p.exp_name;
  row["disagg"] = false;
  row["run-eval"] = p.run_eval;
  if (p.eval_only) row["eval-only"] = true;
  return row;
}

// A component's {name, version} (a native entry's router or KV offload backend) into
// the serve fields it sets; a member that is absent leaves its field as it was.
void TakeNameAndVersion(const boost::json::object& component, std::string* name,
                        std::string* version) {
  if (auto* n = component.if_contains("name"); n && n->is_string())
    *name = std::string(n->get_string());
  if (auto* v = component.if_contains("version"); v && v->is_string())
    *version = std::string(v->get_string());
}

}  // namespace

void ExpandDirect(const Recipe& r, const MatrixFilters& f, std::vector<Point>* points,
                  std::vector<Location>* origins, std::vector<boost::json::object>* rows,
                  std::vector<std::string>* errors) {
  std::vector<std::pair<int, int>> seq_filter;
  for (const auto& s : f.seq_lens) {
    int isl = 0, osl = 0;
    if (ParseSeqLen(s, &isl, &osl)) seq_filter.emplace_back(isl, osl);
  }
  std::vector<Point> mine;
  std::vector<Location> mine_origins;
  std::vector<bool> highest_flags;
  for (const auto& sc : r.scenarios) {
    if (!f.scenario_types.empty() && std::find(f.scenario_types.begin(), f.scenario_types.end(),
                                               sc.type) == f.scenario_types.end())
      continue;
    if (!seq_filter.empty() && std::find(seq_filter.begin(), seq_filter.end(),
                                         std::make_pair(sc.isl, sc.osl)) == seq_filter.end())
      continue;
    for (const auto& e : sc.search_space) {
      // Entries with workers are serve sessions of several processes: --multi-node's.
      if (e.has_workers ? !f.multi_node : !f.single_node) continue;
      std::vector<int> all = e.conc.Values();
      std::vector<size_t> chosen;
      // A search is one point whatever --conc selects: it chooses its concurrencies.
      const bool search = sc.load.search.enabled();
      for (size_t i = 0; i < all.size(); ++i)
        if (search || f.conc.empty() ||
            std::find(f.conc.begin(), f.conc.end(), all[i]) != f.conc.end())
          chosen.push_back(i);
      if (chosen.empty()) continue;
      int highest = 0;
      for (size_t i : chosen) highest = std::max(highest, all[i]);
      for (size_t i : chosen) {
        if (mine.size() + points->size() >= kMaxExpandedPoints) {
          errors->push_back(
              fmt::format("{}: expands to more than {} points; split the recipe or "
                          "filter it",
                          r.name, kMaxExpandedPoints));
          return;
        }
        int c = all[i];
        Point p;
        p.recipe = r.name;
        p.source_file = r.location.file;
        p.source_format = r.source_format;
        p.runner = r.runner;
        p.model_prefix = r.model_prefix;
        p.nightly = r.nightly;
        p.blocked = r.blocked;
        p.blocked_reason = r.blocked_reason;
        p.blocked_link = r.blocked_link;
        p.env_not_secret = r.env_not_secret;
        p.serve = r.serve;
        ServeSpec& s = p.serve;
        if (e.has_workers) {
          // A serve session of several processes (recipe/topology.h).
          s.multinode = true;
          s.disagg = e.decode.num_workers > 0;
          s.prefill = e.prefill;
          s.decode = e.decode;
          if (!s.disagg) s.kv_p2p_transfer.clear();
        }
        s.tp = e.tp;
        s.dp = e.dp;
        s.pp = e.pp;
        s.ep = e.ep.value_or(1);
        s.dp_attn = e.dp_attn.value_or(false);
        s.dcp_size = e.dcp_size;
        s.pcp_size = e.pcp_size;
        if (e.spec) s.spec = *e.spec;
        for (const auto& a : e.extra_args) s.extra_args.push_back(a);
        for (const auto& [k, v] : e.env) s.env[k] = v;
        for (const auto& [k, v] : e.env_from) s.env_from[k] = v;
        if (e.prepare) s.prepare = *e.prepare;
        if (e.command) s.command = *e.command;
        const bool agentic = sc.type == "agentic-coding";
        // "auto": InferenceX's isl + osl + 256; an agentic job runs at the model's
        // native context length (its benchmark_lib unsets MAX_MODEL_LEN).
        if (s.max_model_len < 0) s.max_model_len = agentic ? 0 : sc.isl + sc.osl + 256;
        if (e.router) TakeNameAndVersion(*e.router, &s.router_name, &s.router_version);
        if (agentic) {
          s.kv_offloading = e.kv_offloading.value_or("none");
          if (e.kv_offload_backend) {
            TakeNameAndVersion(*e.kv_offload_backend, &s.kv_offload_backend,
                               &s.kv_offload_backend_version);
          }
          if (e.total_cpu_dram_gb) s.total_cpu_dram_gb = *e.total_cpu_dram_gb;
        }
        p.load = sc.load;
        p.load.isl = sc.isl;
        p.load.osl = sc.osl;
        p.load.concurrency = c;
        if (agentic) p.load.duration_s = sc.duration_s;
        if (i < sc.num_prompts_per_conc.size())
          p.load.num_prompts = sc.num_prompts_per_conc[i];
        else if (search && sc.prompts_per_concurrency > 0)
          p.load.prompts_per_concurrency = sc.prompts_per_concurrency;  // per probe
        else if (sc.prompts_per_concurrency > 0)
          p.load.num_prompts = sc.prompts_per_concurrency * c;
        if (sc.warmups_per_concurrency > 0)
          p.load.warmups_per_concurrency = sc.warmups_per_concurrency;
        if (r.source_format == "nightly")
          p.exp_name = fmt::format("{}-conc-{}", sc.name, c);
        else if (agentic)
          p.exp_name = AgenticExpName(r.model_prefix, s.tp, c, s.kv_offloading,
                                      s.kv_offload_backend, InferenceXSpecName(s.spec.method));
        else
          p.exp_name = fmt::format("{}_{}", r.model_prefix, SeqLenName(sc.isl, sc.osl));
        highest_flags.push_back(c == highest);
        mine.push_back(std::move(p));
        mine_origins.push_back(e.location.file.empty() ? r.location : e.location);
      }
    }
  }
  bool only = f.evals == EvalSelection::kOnly || f.evals == EvalSelection::kAll ||
              f.evals == EvalSelection::kOnlyAll;
  for (size_t i = 0; i < mine.size(); ++i) {
    Point& p = mine[i];
    bool wants_eval = !r.evals.empty() && f.evals != EvalSelection::kNone &&
                      (r.eval_at == "all" || (r.eval_at == "highest" && highest_flags[i]) ||
                       (r.eval_at == "once" && i + 1 == mine.size()));
    if (wants_eval) {
      p.run_eval = true;
      p.evals = r.evals;
      for (const auto& t : r.evals) p.eval_tasks.push_back(t.name);
    }
    if (only) {
      if (!p.run_eval) continue;
      p.eval_only = true;
    }
    rows->push_back(RowFor(r, p));
    points->push_back(std::move(p));
    origins->push_back(mine_origins[i]);
  }
}

}  // namespace servebench::recipe
