// ExpandRecipes: recipe-level filters, InferenceX rows (+ eval marking) or direct
// expansion, then points with ids.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "recipe/agentic_trace.h"
#include "recipe/expand_internal.h"
#include "recipe/formats.h"
#include "recipe/topology.h"

namespace servebench::recipe {
namespace {

bool Contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

bool RecipeWanted(const Recipe& r, const MatrixFilters& f) {
  if (!f.config_keys.empty()) {
    bool any = false;
    for (const auto& pattern : f.config_keys) any = any || GlobMatch(pattern, r.name);
    if (!any) return false;
  }
  if (!f.model_prefixes.empty()) {
    bool any = false;
    for (const auto& p : f.model_prefixes)
      any = any || r.name.rfind(p, 0) == 0 || r.model_prefix == p;
    if (!any) return false;
  }
  if (!f.precisions.empty() && !Contains(f.precisions, r.precision)) return false;
  if (!f.frameworks.empty() && !Contains(f.frameworks, r.framework) &&
      !Contains(f.frameworks, r.serve.engine))
    return false;
  if (!f.runners.empty() && !Contains(f.runners, r.runner)) return false;
  return true;
}

SpecMethod MethodFromInferenceX(std::string_view s) {
  if (s == "mtp") return SpecMethod::kMtp;
  if (s == "draft_model") return SpecMethod::kDraftModel;
  return SpecMethod::kNone;
}

int IntOf(const boost::json::object& o, const char* key, int fallback) {
  auto* v = o.if_contains(key);
  return (v && v->is_int64()) ? static_cast<int>(v->get_int64()) : fallback;
}

std::string StringOf(const boost::json::object& o, const char* key) {
  auto* v = o.if_contains(key);
  return (v && v->is_string()) ? std::string(v->get_string()) : std::string();
}

bool BoolOf(const boost::json::object& o, const char* key) {
  auto* v = o.if_contains(key);
  return v && v->is_bool() && v->get_bool();
}

// A positive integer setting (PREFILL_NODES=2), else 0.
int PositiveSetting(const std::vector<std::string>& settings, std::string_view key) {
  int value = 0;
  for (const auto& kv : settings) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || std::string_view(kv).substr(0, eq) != key) continue;
    try {
      size_t used = 0;
      int v = std::stoi(kv.substr(eq + 1), &used);
      if (used == kv.size() - eq - 1 && v > 0) value = v;
    } catch (...) {
      // Not a number: left to the launcher, which exports it verbatim.
    }
  }
  return value;
}

// The node counts and GPUs per node a multinode row's launcher uses (disagg.md §1.1):
// PREFILL_NODES / DECODE_NODES and GPUS_PER_NODE from the workers' settings, else the
// runner's gpus-per-node in runners.yaml, else the hardware's (recipe/topology.h).
void SetTopologyFromSettings(const RowOrigin& origin, ServeSpec* s) {
  s->prefill.nodes = PositiveSetting(s->prefill.additional_settings, "PREFILL_NODES");
  s->decode.nodes = PositiveSetting(s->decode.additional_settings, "DECODE_NODES");
  int gpn = PositiveSetting(s->prefill.additional_settings, "GPUS_PER_NODE");
  if (gpn == 0) gpn = PositiveSetting(s->decode.additional_settings, "GPUS_PER_NODE");
  if (gpn == 0 && origin.runners != nullptr) {
    auto it = origin.runners->hardware.find(origin.recipe->runner);
    if (it != origin.runners->hardware.end()) gpn = static_cast<int>(it->second.gpus_per_node);
  }
  if (gpn == 0) gpn = GpusPerNodeOf(s->hardware);
  s->gpus_per_node = gpn;
}

}  // namespace

bool ParseSeqLen(const std::string& text, int* isl, int* osl) {
  if (text == "1k1k") return *isl = 1024, *osl = 1024, true;
  if (text == "8k1k") return *isl = 8192, *osl = 1024, true;
  if (text == "1k8k") return *isl = 1024, *osl = 8192, true;
  auto sep = text.find_first_of("x_");
  if (sep == std::string::npos || sep == 0 || sep + 1 == text.size()) return false;
  try {
    size_t used = 0;
    *isl = std::stoi(text.substr(0, sep), &used);
    if (used != sep) return false;
    std::string rest = text.substr(sep + 1);
    *osl = std::stoi(rest, &used);
    if (used != rest.size()) return false;
  } catch (...) {
    return false;
  }
  return *isl > 0 && *osl > 0;
}

std::string SeqLenName(int isl, int osl) {
  if (isl == 1024 && osl == 1024) return "1k1k";
  if (isl == 8192 && osl == 1024) return "8k1k";
  return fmt::format("{}_{}", isl, osl);
}

bool GlobMatch(std::string_view p, std::string_view t) {
  // Iterative matcher with one backtrack point: linear in practice, never exponential.
  size_t pi = 0, ti = 0, star = std::string_view::npos, mark = 0;
  while (ti < t.size()) {
    if (pi < p.size() && (p[pi] == '?' || p[pi] == t[ti])) {
      ++pi, ++ti;
    } else if (pi < p.size() && p[pi] == '*') {
      star = pi++;
      mark = ti;
    } else if (star != std::string_view::npos) {
      pi = star + 1;
      ti = ++mark;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

std::vector<Point> PointsFromInferenceXRow(const boost::json::object& row,
                                           const RowOrigin& origin) {
  const Recipe& r = *origin.recipe;
  Point base;
  base.recipe = r.name;
  base.source_file = r.location.file;
  base.source_format = "inferencex";
  base.runner = StringOf(row, "runner");
  base.model_prefix = r.model_prefix;
  base.exp_name = StringOf(row, "exp-name");
  base.nightly = r.nightly;
  ServeSpec& s = base.serve;
  s = r.serve;
  s.hardware = HardwareForRunner(base.runner);
  s.max_model_len = IntOf(row, "max-model-len", 0);
  s.spec.method = MethodFromInferenceX(StringOf(row, "spec-decoding"));
  s.disagg = BoolOf(row, "disagg");
  const SearchEntry& e = *origin.entry;
  if (row.contains("prefill")) {
    s.multinode = true;
    s.prefill = e.prefill;
    s.decode = e.decode;
    SetTopologyFromSettings(origin, &s);
  } else {
    s.tp = IntOf(row, "tp", 1);
    s.pp = IntOf(row, "pp", 1);
    s.ep = IntOf(row, "ep", 1);
    s.dcp_size = IntOf(row, "dcp-size", 1);
    s.pcp_size = IntOf(row, "pcp-size", 1);
    s.dp_attn = BoolOf(row, "dp-attn");
  }
  if (s.spec.method != SpecMethod::kNone) {
    // The master config says only "mtp" / "draft_model"; InferenceX's launch scripts
    // choose the draft length (multinode ones via DECODE_MTP_SIZE) and, for
    // synthetic acceptance, SYNTHETIC_ACCEPTANCE_LENGTH. Without them: 3 drafts.
    s.spec.num_speculative_tokens = 3;
    for (const auto* w : {&e.prefill, &e.decode}) {
      for (const auto& kv : w->additional_settings) {
        auto eq = kv.find('=');
        if (eq == std::string::npos) continue;
        std::string k = kv.substr(0, eq), v = kv.substr(eq + 1);
        try {
          if (k == "DECODE_MTP_SIZE" && std::stoi(v) > 0)
            s.spec.num_speculative_tokens = std::stoi(v);
          if (k == "SYNTHETIC_ACCEPTANCE_LENGTH" && std::stod(v) >= 1) {
            s.spec.acceptance = AcceptanceMode::kSyntheticTarget;
            s.spec.synthetic_acceptance_length = std::stod(v);
          }
        } catch (...) {
          // Not a number: the setting is still exported verbatim as env by the job.
        }
      }
    }
  }
  if (auto* router = row.if_contains("router"); router && router->is_object()) {
    s.router_name = StringOf(router->get_object(), "name");
    s.router_version = StringOf(router->get_object(), "version");
  }
  s.kv_p2p_transfer = StringOf(row, "kv-p2p-transfer");
  bool agentic = StringOf(row, "scenario-type") == "agentic-coding";
  LoadSpec& l = base.load;
  if (agentic) {
    s.kv_offloading = StringOf(row, "kv-offloading");
    s.total_cpu_dram_gb = IntOf(row, "total-cpu-dram-gb", 0);
    if (auto* b = row.if_contains("kv-offload-backend"); b && b->is_object()) {
      s.kv_offload_backend = StringOf(b->get_object(), "name");
      s.kv_offload_backend_version = StringOf(b->get_object(), "version");
    }
    l.scenario = "agentic-coding";
    l.dataset = "agentic-coding";
    l.endpoint = "/v1/chat/completions";
    l.duration_s = IntOf(row, "duration", 3600);
    l.ignore_eos = true;  // AIPerf's inferencex-agentx-mvp scenario locks it (agentic.md §1.4)
  } else {
    l.isl = IntOf(row, "isl", 0);
    l.osl = IntOf(row, "osl", 0);
  }
  base.eval_only = BoolOf(row, "eval-only");
  bool run_eval = BoolOf(row, "run-eval");
  int eval_conc = IntOf(row, "eval-conc", 0);
  bool all_concs = BoolOf(row, "eval-all-concs");
  std::string task = (agentic && s.multinode) ? "swe-bench" : "gsm8k";
  std::vector<int> concs;
  const auto& conc = row.at("conc");
  if (conc.is_array())
    for (const auto& c : conc.get_array()) concs.push_back(static_cast<int>(c.as_int64()));
  else
    concs.push_back(static_cast<int>(conc.as_int64()));
  std::vector<Point> out;
  for (int c : concs) {
    Point p = base;
    p.load.concurrency = c;
    if (agentic) AddAgenticLaunchFlags(&p.serve, c, base.model_prefix);
    p.run_eval = run_eval && (all_concs || eval_conc == 0 || eval_conc == c);
    if (p.run_eval) {
      p.eval_tasks = {task};
      p.evals = {EvalTask{task, -1, {}}};
    }
    out.push_back(std::move(p));
  }
  return out;
}

StatusOr<Plan> ExpandRecipes(const RecipeSet& set, const MatrixFilters& f) {
  std::vector<std::string> errors;
  for (const auto& s : f.seq_lens) {
    int isl = 0, osl = 0;
    if (!ParseSeqLen(s, &isl, &osl))
      errors.push_back(fmt::format("--seq-lens '{}': expected 1k1k, 8k1k, 1k8k or <isl>x<osl>", s));
  }
  for (int c : f.conc)
    if (c <= 0) errors.push_back(fmt::format("--conc {}: concurrencies are > 0", c));
  for (const auto& t : f.scenario_types)
    if (t != "fixed-seq-len" && t != "agentic-coding")
      errors.push_back(
          fmt::format("--scenario-type '{}': allowed: fixed-seq-len, agentic-coding", t));
  for (const auto& pattern : f.config_keys) {
    bool any = false;
    for (const auto& r : set.recipes) any = any || GlobMatch(pattern, r.name);
    if (!any) {
      std::vector<std::string> names;
      for (const auto& r : set.recipes) names.push_back(r.name);
      errors.push_back(fmt::format("--config-keys '{}' matches no recipe{}", pattern,
                                   DidYouMean(pattern, names)));
    }
  }
  if (!f.runners.empty() && set.runners.loaded) {
    for (const auto& label : f.runners)
      if (set.runners.Nodes(label) == nullptr)
        errors.push_back(
            fmt::format("--runner '{}' is not a label of {}", label, set.runners.file));
  }
  if (!errors.empty()) {
    std::string msg;
    for (const auto& e : errors) msg += (msg.empty() ? "" : "\n") + e;
    return Status::InvalidArgument(msg);
  }
  Plan plan;
  RowSet ix;
  std::vector<Point> direct_points;
  std::vector<Location> direct_origins;
  std::vector<boost::json::object> direct_rows;
  for (const auto& r : set.recipes) {
    if (!RecipeWanted(r, f)) continue;
    if (r.source_format == "inferencex") {
      GenerateInferenceXRows(r, set.runners, f, &ix, &errors);
    } else {
      ExpandDirect(r, f, &direct_points, &direct_origins, &direct_rows, &errors);
    }
  }
  if (!errors.empty()) {
    std::string msg;
    for (const auto& e : errors) msg += (msg.empty() ? "" : "\n") + e;
    return Status::InvalidArgument(msg);
  }
  ApplyEvalSelection(f.evals, &ix);
  for (size_t i = 0; i < ix.rows.size(); ++i) {
    const RowOrigin& origin = ix.origins[i];
    Location where = origin.entry != nullptr && !origin.entry->location.file.empty()
                         ? origin.entry->location
                         : (origin.recipe != nullptr ? origin.recipe->location : Location{});
    for (auto& p : PointsFromInferenceXRow(ix.rows[i], origin)) {
      plan.points.push_back(std::move(p));
      plan.origins.push_back(where);
    }
    if (plan.points.size() > kMaxExpandedPoints)  // multinode rows carry conc lists
      return Status::InvalidArgument(fmt::format(
          "the recipes expand to more than {} points; split them or filter", kMaxExpandedPoints));
  }
  plan.rows = std::move(ix.rows);
  for (auto& row : direct_rows) plan.rows.push_back(std::move(row));
  for (auto& p : direct_points) plan.points.push_back(std::move(p));
  for (auto& o : direct_origins) plan.origins.push_back(std::move(o));
  // A serve session of several processes must place on nodes before anything runs.
  std::set<std::string> reported;
  for (const auto& p : plan.points) {
    if (!HasTopology(p.serve)) continue;
    auto topology = SessionTopology(p.serve);
    if (!topology.ok() && reported.insert(p.recipe + "\n" + topology.status().message()).second)
      errors.push_back(fmt::format("{}: {}", p.recipe, topology.status().message()));
  }
  if (!errors.empty()) {
    std::string msg;
    for (const auto& e : errors) msg += (msg.empty() ? "" : "\n") + e;
    return Status::InvalidArgument(msg);
  }
  for (auto& p : plan.points) AssignIds(&p);
  return plan;
}

}  // namespace servebench::recipe
