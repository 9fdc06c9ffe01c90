// Reads InferenceX master configs (inferencex-formats.md §1-4, validation.py at
// 843c6254): strict schemas, every rule of the validator, all problems reported.
#include <fmt/format.h>

#include <set>

#include "common/limits.h"
#include "recipe/formats.h"

namespace servebench::recipe {
namespace {

const std::vector<std::string> kSpecDecodings = {"mtp", "draft_model", "none"};

std::optional<boost::json::object> ReadComponent(const LoadContext& ctx, FieldReader& parent,
                                                 const std::string& key, bool version_required) {
  const YNode* n = parent.Get(key);
  if (n == nullptr) return std::nullopt;
  FieldReader r(ctx, *n, parent.PathOf(key), {"name", "version"});
  if (!r.valid()) return std::nullopt;
  auto name = r.String("name", true, true);
  auto version = r.String("version", version_required, true);
  if (version && version->rfind("image:", 0) == 0) {
    r.ErrorAt("version", fmt::format("is '{}'; a component version must be a release, package "
                                     "version or source commit, not an image reference",
                                     *version));
    return std::nullopt;
  }
  if (!name || (version_required && !version)) return std::nullopt;
  return YamlToJson(*n).as_object();
}

void ReadConcurrency(const LoadContext& ctx, FieldReader& r, ConcurrencySpec* conc) {
  auto start = r.Int("conc-start");
  auto end = r.Int("conc-end");
  auto list = r.IntList("conc-list");
  bool has_range = start.has_value() && end.has_value();
  bool has_list = list.has_value() && !list->empty();
  const std::string allowed =
      "give either conc-start and conc-end (a range doubling from start to end) or conc-list";
  if (has_range && has_list) {
    r.ErrorAt("conc-list", "both conc-list and conc-start/conc-end are set; " + allowed);
    return;
  }
  if (!has_range && !has_list) {
    if (r.Has("conc-start") != r.Has("conc-end")) {
      r.ErrorAt(r.Has("conc-start") ? "conc-start" : "conc-end",
                "conc-start and conc-end go together; " + allowed);
    } else if (!r.Has("conc-list") && !r.Has("conc-start")) {
      ctx.Error(r.node(), r.path(), "no concurrency given; " + allowed);
    } else if (list && list->empty()) {
      r.ErrorAt("conc-list", "is empty; " + allowed);
    }
    return;
  }
  if (has_range) {
    if (*start <= 0 || *end <= 0) {
      r.ErrorAt(*start <= 0 ? "conc-start" : "conc-end",
                fmt::format("conc-start {} / conc-end {}: both must be > 0", *start, *end));
      return;
    }
    if (*end > limits::kMaxConcurrency) {
      r.ErrorAt("conc-end", fmt::format("is {}; concurrencies are at most {} (docs/limits.md)",
                                        *end, limits::kMaxConcurrency));
      return;
    }
    if (*start > *end) {
      r.ErrorAt("conc-start", fmt::format("conc-start {} is greater than conc-end {}; "
                                          "conc-start must be <= conc-end",
                                          *start, *end));
      return;
    }
    conc->is_range = true;
    conc->start = static_cast<int>(*start);
    conc->end = static_cast<int>(*end);
    return;
  }
  for (size_t i = 0; i < list->size(); ++i) {
    if ((*list)[i] <= 0 || (*list)[i] > limits::kMaxConcurrency) {
      ctx.Error(r.Get("conc-list")->items[i], IndexPath(r.PathOf("conc-list"), i),
                (*list)[i] <= 0 ? fmt::format("is {}; conc-list entries must be > 0", (*list)[i])
                                : fmt::format("is {}; conc-list entries must be at most {} "
                                              "(docs/limits.md)",
                                              (*list)[i], limits::kMaxConcurrency));
      return;
    }
  }
  for (auto c : *list) conc->list.push_back(static_cast<int>(c));
}

void CheckTopology(FieldReader& r, int tp, int dcp) {
  if (dcp > 0 && tp % dcp != 0) {
    r.ErrorAt(
        r.Has("dcp-size") ? "dcp-size" : "tp",
        fmt::format("tp {} is not divisible by dcp-size {}; tp % dcp-size must be 0", tp, dcp));
  }
}

// Reads pp / dcp-size / pcp-size (strict ints > 0, default 1).
void ReadContextParallel(FieldReader& r, SearchEntry* e) {
  if (auto v = r.PositiveInt("pp")) e->pp = static_cast<int>(*v), e->pp_given = true;
  if (auto v = r.PositiveInt("dcp-size")) e->dcp_size = static_cast<int>(*v), e->dcp_given = true;
  if (auto v = r.PositiveInt("pcp-size")) e->pcp_size = static_cast<int>(*v), e->pcp_given = true;
}

bool ReadWorker(const LoadContext& ctx, FieldReader& parent, const std::string& key, WorkerSpec* w,
                boost::json::object* row) {
  const YNode* n = parent.Get(key);
  if (n == nullptr) {
    parent.Missing(key);
    return false;
  }
  FieldReader r(ctx, *n, parent.PathOf(key),
                {"num-worker", "tp", "pp", "dcp-size", "pcp-size", "ep", "dp-attn", "hardware",
                 "additional-settings"});
  if (!r.valid()) return false;
  auto num = r.Int("num-worker", true);
  auto tp = r.Int("tp", true);
  auto ep = r.Int("ep", true);
  auto dpa = r.Bool("dp-attn", true);
  auto pp = r.PositiveInt("pp");
  auto dcp = r.PositiveInt("dcp-size");
  auto pcp = r.PositiveInt("pcp-size");
  auto hw = r.String("hardware", false, true);
  auto settings = r.StringList("additional-settings");
  if (num && *num < 0) r.ErrorAt("num-worker", fmt::format("is {}; must be >= 0", *num));
  if (tp && *tp <= 0) r.ErrorAt("tp", fmt::format("is {}; must be > 0", *tp));
  if (tp && *tp > 0) CheckTopology(r, static_cast<int>(*tp), static_cast<int>(dcp.value_or(1)));
  if (!num || !tp || !ep || !dpa) return false;
  w->num_workers = static_cast<int>(*num);
  w->tp = static_cast<int>(*tp);
  w->ep = static_cast<int>(*ep);
  w->dp_attn = *dpa;
  w->pp = static_cast<int>(pp.value_or(1));
  w->dcp_size = static_cast<int>(dcp.value_or(1));
  w->pcp_size = static_cast<int>(pcp.value_or(1));
  w->hardware = hw.value_or("");
  if (settings) w->additional_settings = *settings;
  *row = YamlToJson(*n).as_object();
  for (const char* k : {"pp", "dcp-size", "pcp-size"})
    if (!row->contains(k) || (*row)[k].is_null()) (*row)[k] = 1;
  return true;
}

void CheckWorkerHardwarePair(const LoadContext& ctx, const FieldReader& r, const SearchEntry& e) {
  if (e.prefill.hardware.empty() != e.decode.hardware.empty()) {
    ctx.Error(r.node(), r.path(),
              "hardware is set on one of prefill/decode only; set it on both or neither");
  }
}

class InferenceXLoader {
 public:
  InferenceXLoader(const LoadContext& ctx, const RunnerConfig& runners)
      : ctx_(ctx), runners_(runners) {}

  std::optional<Recipe> Load(const std::string& key, const YNode& key_node, const YNode& value);

 private:
  void LoadFixed(FieldReader& top, const YNode& list, Recipe* recipe, const std::string& path);
  void LoadAgentic(FieldReader& top, const YNode& list, Recipe* recipe, const std::string& path);
  std::optional<SearchEntry> LoadSingleNodeEntry(const YNode& n, const std::string& path);
  std::optional<SearchEntry> LoadMultiNodeEntry(const YNode& n, const std::string& path);
  std::optional<SearchEntry> LoadAgenticEntry(const YNode& n, const std::string& path,
                                              bool multinode);
  const LoadContext& ctx_;
  const RunnerConfig& runners_;
};

std::optional<SearchEntry> InferenceXLoader::LoadSingleNodeEntry(const YNode& n,
                                                                 const std::string& path) {
  FieldReader r(ctx_, n, path,
                {"tp", "pp", "dcp-size", "pcp-size", "ep", "spec-decoding", "dp-attn", "router",
                 "conc-start", "conc-end", "conc-list"});
  if (!r.valid()) return std::nullopt;
  SearchEntry e;
  e.location = ctx_.At(n);
  e.path = path;
  auto tp = r.PositiveInt("tp", true);
  ReadContextParallel(r, &e);
  if (auto ep = r.Int("ep")) e.ep = static_cast<int>(*ep);
  if (auto dpa = r.Bool("dp-attn")) e.dp_attn = *dpa;
  e.spec_decoding = r.Enum("spec-decoding", kSpecDecodings).value_or("none");
  e.router = ReadComponent(ctx_, r, "router", true);
  ReadConcurrency(ctx_, r, &e.conc);
  if (!tp) return std::nullopt;
  e.has_tp = true;
  e.tp = static_cast<int>(*tp);
  CheckTopology(r, e.tp, e.dcp_size);
  return e;
}

std::optional<SearchEntry> InferenceXLoader::LoadMultiNodeEntry(const YNode& n,
                                                                const std::string& path) {
  FieldReader r(ctx_, n, path,
                {"spec-decoding", "prefill", "decode", "router", "kv-p2p-transfer", "conc-start",
                 "conc-end", "conc-list"});
  if (!r.valid()) return std::nullopt;
  SearchEntry e;
  e.location = ctx_.At(n);
  e.path = path;
  e.spec_decoding = r.Enum("spec-decoding", kSpecDecodings).value_or("none");
  e.router = ReadComponent(ctx_, r, "router", true);
  if (auto t = r.String("kv-p2p-transfer", false, true)) e.kv_p2p_transfer = *t;
  ReadConcurrency(ctx_, r, &e.conc);
  bool ok = ReadWorker(ctx_, r, "prefill", &e.prefill, &e.prefill_row);
  ok = ReadWorker(ctx_, r, "decode", &e.decode, &e.decode_row) && ok;
  if (!ok) return std::nullopt;
  e.has_workers = true;
  CheckWorkerHardwarePair(ctx_, r, e);
  return e;
}

std::optional<SearchEntry> InferenceXLoader::LoadAgenticEntry(const YNode& n,
                                                              const std::string& path,
                                                              bool multinode) {
  FieldReader r(ctx_, n, path,
                {"tp", "pp", "dcp-size", "pcp-size", "ep", "dp-attn", "spec-decoding", "prefill",
                 "decode", "kv-offloading", "kv-offload-backend", "router", "kv-p2p-transfer",
                 "conc-start", "conc-end", "conc-list"});
  if (!r.valid()) return std::nullopt;
  SearchEntry e;
  e.location = ctx_.At(n);
  e.path = path;
  auto tp = r.PositiveInt("tp");
  ReadContextParallel(r, &e);
  if (auto ep = r.Int("ep")) e.ep = static_cast<int>(*ep);
  if (auto dpa = r.Bool("dp-attn")) e.dp_attn = *dpa;
  e.spec_decoding = r.Enum("spec-decoding", kSpecDecodings).value_or("none");
  e.kv_offloading = r.Enum("kv-offloading", {"none", "dram"});
  e.kv_offload_backend = ReadComponent(ctx_, r, "kv-offload-backend", false);
  e.router = ReadComponent(ctx_, r, "router", true);
  if (auto t = r.String("kv-p2p-transfer", false, true)) e.kv_p2p_transfer = *t;
  ReadConcurrency(ctx_, r, &e.conc);
  bool has_prefill = r.Has("prefill"), has_decode = r.Has("decode");
  bool ok = true;
  if (tp.has_value() || r.Has("tp")) {
    if (has_prefill || has_decode) {
      ctx_.Error(n, path,
                 "has both tp and prefill/decode; an agentic entry is either "
                 "single-node (tp) or multinode (prefill and decode)");
      ok = false;
    }
    if (!r.Has("kv-offloading")) {
      r.Missing("kv-offloading");
      ok = false;
    }
    if (multinode) {
      ctx_.Error(n, path,
                 "is a single-node entry (tp) in a multinode config; multinode "
                 "configs need prefill and decode workers");
      ok = false;
    }
    if (tp) {
      e.has_tp = true;
      e.tp = static_cast<int>(*tp);
      CheckTopology(r, e.tp, e.dcp_size);
    }
  } else if (has_prefill && has_decode) {
    for (const char* k : {"pp", "dcp-size", "pcp-size"})
      if (r.Has(k))
        r.ErrorAt(k,
                  "multinode agentic entries cannot set pp, dcp-size or pcp-size; set them "
                  "in the prefill/decode workers");
    ok = ReadWorker(ctx_, r, "prefill", &e.prefill, &e.prefill_row) && ok;
    ok = ReadWorker(ctx_, r, "decode", &e.decode, &e.decode_row) && ok;
    if (ok) {
      e.has_workers = true;
      CheckWorkerHardwarePair(ctx_, r, e);
    }
    if (!multinode) {
      ctx_.Error(n, path,
                 "is a multinode entry (prefill/decode) in a single-node config; set "
                 "multinode: true or use tp");
      ok = false;
    }
  } else {
    ctx_.Error(n, path, "agentic search-space entries need either tp or both prefill and decode");
    ok = false;
  }
  // Offload rules: backend iff offloading is not none.
  std::string offload = e.kv_offloading.value_or("");
  if (offload.empty() && e.kv_offload_backend)
    r.ErrorAt("kv-offload-backend", "kv-offload-backend needs kv-offloading");
  if (offload == "none" && e.kv_offload_backend)
    r.ErrorAt("kv-offload-backend", "can only be set when kv-offloading is not 'none'");
  if (offload == "dram" && !e.kv_offload_backend && !r.Has("kv-offload-backend"))
    r.ErrorAt("kv-offloading", "is 'dram'; kv-offload-backend {name, version?} is then required");
  if (!ok) return std::nullopt;
  return e;
}

void InferenceXLoader::LoadFixed(FieldReader& top, const YNode& list, Recipe* recipe,
                                 const std::string& path) {
  if (!list.IsSequence()) {
    ctx_.Error(
        list, path,
        fmt::format("is {}; expected a list of {{isl, osl, search-space}}", list.TypeName()));
    return;
  }
  for (size_t i = 0; i < list.items.size(); ++i) {
    std::string p = IndexPath(path, i);
    FieldReader r(ctx_, list.items[i], p, {"isl", "osl", "search-space"});
    if (!r.valid()) continue;
    Scenario s;
    s.type = "fixed-seq-len";
    auto isl = r.PositiveInt("isl", true, limits::kMaxTokensPerRequest);
    auto osl = r.PositiveInt("osl", true, limits::kMaxTokensPerRequest);
    const YNode* space = r.Get("search-space");
    if (space == nullptr) {
      r.Missing("search-space");
      continue;
    }
    if (!space->IsSequence()) {
      ctx_.Error(*space, r.PathOf("search-space"),
                 fmt::format("is {}; expected a list of search-space entries", space->TypeName()));
      continue;
    }
    for (size_t j = 0; j < space->items.size(); ++j) {
      std::string ep = IndexPath(r.PathOf("search-space"), j);
      auto entry = recipe->multinode ? LoadMultiNodeEntry(space->items[j], ep)
                                     : LoadSingleNodeEntry(space->items[j], ep);
      if (entry) s.search_space.push_back(std::move(*entry));
    }
    if (!isl || !osl) continue;
    s.isl = static_cast<int>(*isl);
    s.osl = static_cast<int>(*osl);
    recipe->scenarios.push_back(std::move(s));
  }
}

void InferenceXLoader::LoadAgentic(FieldReader& top, const YNode& list, Recipe* recipe,
                                   const std::string& path) {
  if (!list.IsSequence()) {
    ctx_.Error(list, path,
               fmt::format("is {}; expected a list of {{dram-utilization?, "
                           "search-space}}",
                           list.TypeName()));
    return;
  }
  for (size_t i = 0; i < list.items.size(); ++i) {
    std::string p = IndexPath(path, i);
    FieldReader r(ctx_, list.items[i], p, {"search-space", "dram-utilization"});
    if (!r.valid()) continue;
    Scenario s;
    s.type = "agentic-coding";
    if (const YNode* u = r.Get("dram-utilization")) {
      auto v = u->AsDouble();
      if (!v || !(*v > 0 && *v <= 1)) {
        ctx_.Error(*u, r.PathOf("dram-utilization"),
                   fmt::format("is '{}'; must be a number in (0, 1]", u->scalar));
      } else {
        s.dram_utilization = u->scalar;
      }
    }
    const YNode* space = r.Get("search-space");
    if (space == nullptr) {
      r.Missing("search-space");
      continue;
    }
    if (!space->IsSequence()) {
      ctx_.Error(*space, r.PathOf("search-space"),
                 fmt::format("is {}; expected a list of search-space entries", space->TypeName()));
      continue;
    }
    for (size_t j = 0; j < space->items.size(); ++j) {
      std::string ep = IndexPath(r.PathOf("search-space"), j);
      auto entry = LoadAgenticEntry(space->items[j], ep, recipe->multinode);
      if (!entry) continue;
      if (entry->kv_offloading == "dram" && !s.dram_utilization && !r.Has("dram-utilization")) {
        ctx_.Error(space->items[j], ep,
                   "kv-offloading is 'dram'; the agentic-coding item needs dram-utilization "
                   "(0, 1]");
      }
      s.search_space.push_back(std::move(*entry));
    }
    recipe->scenarios.push_back(std::move(s));
  }
}

std::optional<Recipe> InferenceXLoader::Load(const std::string& key, const YNode& key_node,
                                             const YNode& value) {
  if (key.find('*') != std::string::npos) {
    ctx_.Error(key_node, key,
               "config key contains '*'; wildcards are reserved for --config-keys patterns");
  }
  bool multinode_flag = false;
  if (value.IsMap()) {
    if (const YNode* m = value.Find("multinode")) multinode_flag = m->AsBool().value_or(false);
  }
  std::vector<std::string> allowed = {"image",     "model",    "model-prefix", "precision",
                                      "framework", "runner",   "multinode",    "disagg",
                                      "router",    "scenarios"};
  if (multinode_flag) allowed.push_back("kv-p2p-transfer");
  FieldReader r(ctx_, value, key, allowed, "field");
  if (!r.valid()) return std::nullopt;
  Recipe recipe;
  recipe.name = key;
  recipe.location = ctx_.At(key_node);
  recipe.source_format = "inferencex";
  auto image = r.String("image", true);
  auto model = r.String("model", true);
  auto prefix = r.String("model-prefix", true);
  auto precision = r.String("precision", true);
  auto framework = r.String("framework", true);
  auto runner = r.String("runner", true);
  auto multinode = r.Bool("multinode", true);
  auto disagg = r.Bool("disagg");
  recipe.router = ReadComponent(ctx_, r, "router", true);
  if (auto t = r.String("kv-p2p-transfer", false, true)) recipe.kv_p2p_transfer = *t;
  recipe.multinode = multinode.value_or(false);
  recipe.disagg = disagg.value_or(false);
  if (!recipe.multinode && recipe.disagg)
    r.ErrorAt("disagg", "is true on a single-node config; disagg needs multinode: true");
  if (runner && runners_.loaded && runners_.Nodes(*runner) == nullptr) {
    std::vector<std::string> labels;
    for (const auto& [label, nodes] : runners_.labels) labels.push_back(label);
    const YNode* at = r.Get("runner");
    ctx_.diagnostics->AddWarning(
        ctx_.At(*at), r.PathOf("runner"),
        fmt::format("is '{}', not a label of {}{}; no runner would pick these jobs up", *runner,
                    runners_.file, DidYouMean(*runner, labels)));
  }
  const YNode* scenarios = r.Get("scenarios");
  if (scenarios == nullptr) {
    r.Missing("scenarios");
  } else {
    FieldReader s(ctx_, *scenarios, r.PathOf("scenarios"), {"fixed-seq-len", "agentic-coding"},
                  "scenario");
    if (s.valid()) {
      const YNode* fixed = s.Get("fixed-seq-len");
      const YNode* agentic = s.Get("agentic-coding");
      bool fixed_empty = fixed == nullptr || (fixed->IsSequence() && fixed->items.empty());
      bool agentic_empty = agentic == nullptr || (agentic->IsSequence() && agentic->items.empty());
      if (fixed_empty && agentic_empty)
        ctx_.Error(*scenarios, s.path(),
                   "no scenario; give at least one of fixed-seq-len or agentic-coding");
      if (fixed) LoadFixed(r, *fixed, &recipe, s.PathOf("fixed-seq-len"));
      if (agentic) {
        LoadAgentic(r, *agentic, &recipe, s.PathOf("agentic-coding"));
        if (!agentic_empty && runner && runner->rfind("cluster:", 0) != 0)
          r.ErrorAt("runner", fmt::format("is '{}'; configs with agentic-coding must use a "
                                          "'cluster:<name>' runner label",
                                          *runner));
      }
    }
  }
  // Component scope: top level XOR search-space entries.
  bool entry_router = false, entry_transfer = false, all_transfer = true, any_entry = false;
  for (const auto& sc : recipe.scenarios)
    for (const auto& e : sc.search_space) {
      any_entry = true;
      entry_router = entry_router || e.router.has_value();
      entry_transfer = entry_transfer || e.kv_p2p_transfer.has_value();
      all_transfer = all_transfer && e.kv_p2p_transfer.has_value();
    }
  if (recipe.router && entry_router)
    r.ErrorAt("router",
              "router is set at the top level and in search-space entries; declare it "
              "in one place");
  if (recipe.kv_p2p_transfer && entry_transfer)
    r.ErrorAt("kv-p2p-transfer",
              "kv-p2p-transfer is set at the top level and in search-space "
              "entries; declare it in one place");
  if (!recipe.multinode && entry_transfer)
    ctx_.Error(value, key, "kv-p2p-transfer in a search-space entry needs multinode: true");
  if (recipe.disagg && !recipe.kv_p2p_transfer && (!any_entry || !all_transfer))
    r.ErrorAt("disagg",
              "disagg: true needs kv-p2p-transfer at the top level or in every "
              "search-space entry");
  if (!image || !model || !prefix || !precision || !framework || !runner || !multinode)
    return std::nullopt;
  recipe.image = *image;
  recipe.model = *model;
  recipe.model_prefix = *prefix;
  recipe.precision = *precision;
  recipe.framework = *framework;
  recipe.runner = *runner;
  recipe.serve.engine = EngineForFramework(*framework);
  recipe.serve.framework = *framework;
  recipe.serve.image = *image;
  recipe.serve.model = *model;
  recipe.serve.precision = *precision;
  recipe.serve.hardware = HardwareForRunner(*runner);
  return recipe;
}

}  // namespace

std::vector<Recipe> LoadInferenceX(const LoadContext& ctx, const YNode& root,
                                   const RunnerConfig& runners) {
  std::vector<Recipe> out;
  if (!root.IsMap()) {
    ctx.Error(root, "",
              fmt::format("is {}; an InferenceX master config is a map of config key "
                          "→ config",
                          root.TypeName()));
    return out;
  }
  InferenceXLoader loader(ctx, runners);
  std::set<std::string> seen;
  for (const auto& [k, v] : root.entries) {
    if (!k.IsScalar()) {
      ctx.Error(k, "", "config keys must be plain names");
      continue;
    }
    if (!seen.insert(k.scalar).second) {
      ctx.Error(k, k.scalar, "duplicate config key in this file; each key may appear once");
      continue;
    }
    if (auto r = loader.Load(k.scalar, k, v)) out.push_back(std::move(*r));
  }
  return out;
}

RunnerConfig LoadRunners(const LoadContext& ctx, const YNode& root) {
  RunnerConfig out;
  out.file = ctx.file;
  FieldReader r(ctx, root, "", {"labels", "hardware"});
  if (!r.valid()) return out;
  const YNode* labels = r.Get("labels");
  if (labels == nullptr) {
    r.Missing("labels");
    return out;
  }
  if (!labels->IsMap()) {
    ctx.Error(*labels, "labels", "expected a map of label → list of runner node names");
    return out;
  }
  std::set<std::string> seen;
  for (const auto& [k, v] : labels->entries) {
    std::string path = JoinPath("labels", k.scalar);
    if (!seen.insert(k.scalar).second) {
      ctx.Error(k, path, "duplicate label");
      continue;
    }
    if (!v.IsSequence() || v.items.empty()) {
      ctx.Error(v, path, "expected a non-empty list of runner node names");
      continue;
    }
    std::vector<std::string> nodes;
    for (size_t i = 0; i < v.items.size(); ++i) {
      auto s = v.items[i].AsString();
      if (!s) {
        ctx.Error(v.items[i], IndexPath(path, i), "expected a runner node name (a string)");
        continue;
      }
      nodes.push_back(*s);
    }
    out.labels.emplace_back(k.scalar, std::move(nodes));
  }
  if (const YNode* hw = r.Get("hardware")) {
    if (!hw->IsMap()) {
      ctx.Error(*hw, "hardware",
                "expected a map of label → {available-cpu-dram-mib, "
                "gpus-per-node}");
    } else {
      for (const auto& [k, v] : hw->entries) {
        FieldReader h(ctx, v, JoinPath("hardware", k.scalar),
                      {"available-cpu-dram-mib", "gpus-per-node"});
        if (!h.valid()) continue;
        auto mib = h.PositiveInt("available-cpu-dram-mib", true);
        auto gpn = h.PositiveInt("gpus-per-node", true);
        if (mib && gpn) out.hardware[k.scalar] = {*mib, *gpn};
      }
    }
  }
  out.loaded = true;
  return out;
}

const std::vector<std::string>* RunnerConfig::Nodes(const std::string& label) const {
  for (const auto& [l, nodes] : labels)
    if (l == label) return &nodes;
  return nullptr;
}

}  // namespace servebench::recipe
