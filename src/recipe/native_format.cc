// servebench's native recipe format (docs/recipes.md): one file, `servebench: 1`,
// a map of named recipes. Everything a Point holds can be written here.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/limits.h"
#include "config/golden_al.h"
#include "recipe/formats.h"
#include "recipe/native_launch.h"

namespace servebench::recipe {
namespace {

const std::vector<std::string> kRecipeKeys = {"model",
                                              "served_model_name",
                                              "engine",
                                              "framework",
                                              "image",
                                              "precision",
                                              "hardware",
                                              "runner",
                                              "model_prefix",
                                              "max_model_len",
                                              "kv_cache_dtype",
                                              "readiness_timeout_s",
                                              "extra_args",
                                              "env",
                                              "env_not_secret",
                                              "env_from",
                                              "prepare",
                                              "command",
                                              "sim",
                                              "spec_decoding",
                                              "evals",
                                              "blocked",
                                              "nightly",
                                              "load",
                                              "scenarios",
                                              "topology"};
const std::vector<std::string> kLoadKeys = {"endpoint",
                                            "backend",
                                            "dataset",
                                            "dataset_path",
                                            "random_range_ratio",
                                            "num_prompts",
                                            "prompts_per_concurrency",
                                            "warmups_per_concurrency",
                                            "request_rate_per_s",
                                            "num_warmups",
                                            "ignore_eos",
                                            "repetitions",
                                            "prefix_len",
                                            "num_prefixes",
                                            "prefix_reuse_ratio",
                                            "extra_args"};
const std::vector<std::string> kEngines = {"vllm", "sglang", "trtllm", "llamacpp", "sim", "atom"};
const std::vector<std::string> kMethods = {"none",   "mtp",         "eagle",
                                           "eagle3", "draft_model", "ngram"};

SpecMethod MethodFrom(const std::string& s) {
  if (s == "mtp") return SpecMethod::kMtp;
  if (s == "eagle") return SpecMethod::kEagle;
  if (s == "eagle3") return SpecMethod::kEagle3;
  if (s == "draft_model") return SpecMethod::kDraftModel;
  if (s == "ngram") return SpecMethod::kNgram;
  return SpecMethod::kNone;
}

std::string Trimmed(double v) { return fmt::format("{:g}", v); }

// spec_decoding: none | {method, draft_model, num_speculative_tokens, acceptance, extra}
std::optional<SpecDecoding> ReadSpec(const LoadContext& ctx, const YNode& n,
                                     const std::string& path) {
  SpecDecoding spec;
  if (n.IsScalar()) {
    if (n.scalar == "none") return spec;
    ctx.Error(n, path,
              fmt::format("is '{}'; write `none` or a map {{method, draft_model, "
                          "num_speculative_tokens, acceptance}}",
                          n.scalar));
    return std::nullopt;
  }
  FieldReader r(ctx, n, path,
                {"method", "draft_model", "num_speculative_tokens", "acceptance", "extra"});
  if (!r.valid()) return std::nullopt;
  bool ok = true;
  auto method = r.Enum("method", kMethods, true);
  if (!method) return std::nullopt;
  spec.method = MethodFrom(*method);
  spec.draft_model = r.String("draft_model", false, true).value_or("");
  auto tokens = r.Int("num_speculative_tokens");
  if (spec.method == SpecMethod::kNone) {
    for (const char* k : {"draft_model", "num_speculative_tokens", "acceptance"})
      if (r.Has(k)) {
        r.ErrorAt(k, "is set but method is none; remove it or choose a method");
        ok = false;
      }
    return ok ? std::optional<SpecDecoding>(spec) : std::nullopt;
  }
  if (!tokens) {
    if (!r.Has("num_speculative_tokens")) r.Missing("num_speculative_tokens");
    ok = false;
  } else if (*tokens < 1 || *tokens > 64) {
    r.ErrorAt("num_speculative_tokens", fmt::format("is {}; must be 1..64", *tokens));
    ok = false;
  } else {
    spec.num_speculative_tokens = static_cast<int>(*tokens);
  }
  bool needs_draft = spec.method == SpecMethod::kEagle || spec.method == SpecMethod::kEagle3 ||
                     spec.method == SpecMethod::kDraftModel;
  if (needs_draft && spec.draft_model.empty() && !r.Has("draft_model")) {
    r.ErrorAt("method", fmt::format("is {}; it needs draft_model (the drafter's path or hub "
                                    "name)",
                                    *method));
    ok = false;
  }
  if (!needs_draft && !spec.draft_model.empty()) {
    r.ErrorAt("draft_model", fmt::format("is set but method {} drafts without a separate model; "
                                         "draft_model is for eagle, eagle3 and draft_model",
                                         *method));
    ok = false;
  }
  if (auto extra = r.StringMap("extra"))
    for (const auto& [k, v] : *extra) spec.extra[k] = v;
  if (const YNode* a = r.Get("acceptance")) {
    std::string apath = r.PathOf("acceptance");
    if (a->IsScalar()) {
      if (a->scalar != "real") {
        ctx.Error(*a, apath,
                  fmt::format("is '{}'; write `real`, {{mode: synthetic, length: AL}} "
                              "or {{mode: golden, table, model, thinking}}",
                              a->scalar));
        ok = false;
      }
    } else {
      FieldReader ar(ctx, *a, apath, {"mode", "length", "table", "model", "thinking"});
      auto mode = ar.Enum("mode", {"real", "synthetic", "golden"}, true);
      if (mode == "synthetic") {
        spec.acceptance = AcceptanceMode::kSyntheticTarget;
        auto len = ar.Double("length", true);
        for (const char* k : {"table", "model", "thinking"})
          if (ar.Has(k)) ar.ErrorAt(k, "is only for mode: golden"), ok = false;
        if (!len) {
          ok = false;
        } else if (!(*len >= 1.0) || *len > spec.num_speculative_tokens + 1) {
          ar.ErrorAt("length", fmt::format("is {}; an acceptance length is between 1 and "
                                           "num_speculative_tokens + 1 = {}",
                                           Trimmed(*len), spec.num_speculative_tokens + 1));
          ok = false;
        } else {
          spec.synthetic_acceptance_length = *len;
        }
      } else if (mode == "golden") {
        spec.acceptance = AcceptanceMode::kSyntheticGolden;
        auto table = ar.String("table", true, true);
        auto model = ar.String("model", true, true);
        spec.golden_thinking = ar.Bool("thinking").value_or(true);
        if (ar.Has("length")) ar.ErrorAt("length", "is only for mode: synthetic"), ok = false;
        if (table && model && spec.num_speculative_tokens > 0) {
          auto al = config::LookupGoldenAl(*table, *model, spec.golden_thinking,
                                           spec.num_speculative_tokens);
          if (!al.ok()) {
            ar.ErrorAt("table", al.status().message());
            ok = false;
          } else {
            spec.golden_table = *table;
            spec.golden_model = *model;
            spec.synthetic_acceptance_length = *al;
          }
        } else {
          ok = false;
        }
      } else if (mode == "real") {
        for (const char* k : {"length", "table", "model", "thinking"})
          if (ar.Has(k)) ar.ErrorAt(k, "is not used with mode: real"), ok = false;
      } else {
        ok = false;
      }
    }
  }
  if (!ok) return std::nullopt;
  return spec;
}

void ReadConcurrency(const LoadContext& ctx, FieldReader& r, ConcurrencySpec* conc, bool* ok) {
  const YNode* n = r.Get("concurrency");
  std::string path = r.PathOf("concurrency");
  if (n == nullptr) {
    r.Missing("concurrency");
    *ok = false;
    return;
  }
  if (n->IsScalar()) {
    auto v = n->AsInt();
    if (!v || *v <= 0 || *v > limits::kMaxConcurrency) {
      ctx.Error(*n, path,
                fmt::format("expected a concurrency 1 .. {}, a list [1, 4, 16] or {{start, end, "
                            "step}}",
                            limits::kMaxConcurrency));
      *ok = false;
      return;
    }
    conc->list = {static_cast<int>(*v)};
    return;
  }
  if (n->IsSequence()) {
    if (n->items.empty()) {
      ctx.Error(*n, path, "is an empty list; give at least one concurrency");
      *ok = false;
    }
    for (size_t i = 0; i < n->items.size(); ++i) {
      auto v = n->items[i].AsInt();
      if (!v || *v <= 0 || *v > limits::kMaxConcurrency) {
        ctx.Error(n->items[i], IndexPath(path, i),
                  fmt::format("is {}; concurrencies are integers in 1..{} (docs/limits.md)",
                              n->items[i].scalar, limits::kMaxConcurrency));
        *ok = false;
        continue;
      }
      if (std::find(conc->list.begin(), conc->list.end(), *v) != conc->list.end()) {
        ctx.Error(n->items[i], IndexPath(path, i),
                  fmt::format("{} is listed twice; each concurrency once", *v));
        *ok = false;
      }
      conc->list.push_back(static_cast<int>(*v));
    }
    return;
  }
  FieldReader cr(ctx, *n, path, {"start", "end", "step"});
  if (!cr.valid()) {
    *ok = false;
    return;
  }
  auto start = cr.PositiveInt("start", true, limits::kMaxConcurrency);
  auto end = cr.PositiveInt("end", true, limits::kMaxConcurrency);
  auto step = cr.Int("step");
  if (!start || !end) {
    *ok = false;
    return;
  }
  if (*start > *end) {
    cr.ErrorAt("start",
               fmt::format("start {} is greater than end {}; start must be <= end", *start, *end));
    *ok = false;
  }
  if (step && *step < 2) {
    cr.ErrorAt("step",
               fmt::format("is {}; the range multiplies by step, so step must be >= 2", *step));
    *ok = false;
  }
  conc->is_range = true;
  conc->start = static_cast<int>(*start);
  conc->end = static_cast<int>(*end);
  conc->step = static_cast<int>(step.value_or(2));
}

// Load options: recipe-level `load:` and each scenario may set them.
// `per_conc` / `warmups_per_conc`: the ×concurrency forms of num_prompts / num_warmups.
void ReadLoad(const LoadContext& ctx, FieldReader& r, LoadSpec* load, int* per_conc,
              int* warmups_per_conc, bool* ok) {
  if (auto v = r.String("endpoint", false, true)) load->endpoint = *v;
  if (auto v = r.Enum("backend", {"openai", "openai-chat"})) {
    load->backend = *v;
    if (!r.Has("endpoint"))
      load->endpoint = *v == "openai-chat" ? "/v1/chat/completions" : "/v1/completions";
  }
  if (auto v = r.Enum("dataset", {"random", "random-prefix", "prefix_repetition", "sharegpt",
                                  "custom", "speed_bench", "spec_bench"}))
    load->dataset = *v;
  // A prefix pool (dataset prefix_repetition; checked against isl per scenario).
  if (auto v = r.PositiveInt("prefix_len", false, limits::kMaxTokensPerRequest))
    load->prefix_len = static_cast<int>(*v);
  if (auto v = r.PositiveInt("num_prefixes", false, limits::kMaxPromptsPerRun))
    load->num_prefixes = static_cast<int>(*v);
  if (auto v = r.Double("prefix_reuse_ratio")) {
    if (!(*v >= 0 && *v <= 1))
      r.ErrorAt("prefix_reuse_ratio",
                fmt::format("is {}; must be in [0, 1] (the share of prompts whose prefix is "
                            "from the pool)",
                            Trimmed(*v))),
          *ok = false;
    else
      load->prefix_reuse_ratio = *v;
  }
  if (auto v = r.String("dataset_path", false, true)) load->dataset_path = *v;
  if (auto v = r.Double("random_range_ratio")) {
    if (*v < 0 || *v > 1)
      r.ErrorAt("random_range_ratio", "must be in [0, 1]"), *ok = false;
    else
      load->random_range_ratio = *v;
  }
  if (auto v = r.PositiveInt("num_prompts", false, limits::kMaxPromptsPerRun))
    load->num_prompts = static_cast<int>(*v);
  if (auto v = r.PositiveInt("prompts_per_concurrency", false, limits::kMaxPromptsPerRun))
    *per_conc = static_cast<int>(*v);
  if (r.Has("num_prompts") && r.Has("prompts_per_concurrency")) {
    r.ErrorAt("prompts_per_concurrency",
              "num_prompts and prompts_per_concurrency are "
              "alternatives; set one");
    *ok = false;
  }
  if (r.Has("num_prompts")) *per_conc = 0;
  if (auto v = r.Double("request_rate_per_s")) {
    if (*v < 0 || !std::isfinite(*v))
      r.ErrorAt("request_rate_per_s", fmt::format("is {}; must be >= 0 (0 = closed loop at the "
                                                  "concurrency)",
                                                  Trimmed(*v))),
          *ok = false;
    else
      load->request_rate_per_s = *v;
  }
  if (auto v = r.Int("num_warmups")) {
    if (*v < 0)
      r.ErrorAt("num_warmups", "must be >= 0"), *ok = false;
    else
      load->num_warmups = static_cast<int>(*v);
  }
  if (auto v = r.PositiveInt("warmups_per_concurrency")) *warmups_per_conc = static_cast<int>(*v);
  if (r.Has("num_warmups") && r.Has("warmups_per_concurrency")) {
    r.ErrorAt("warmups_per_concurrency",
              "num_warmups and warmups_per_concurrency are alternatives; set one");
    *ok = false;
  }
  if (r.Has("num_warmups")) *warmups_per_conc = 0;
  if (auto v = r.Bool("ignore_eos")) load->ignore_eos = *v;
  if (auto v = r.Int("repetitions")) {
    if (*v < 1 || *v % 2 == 0 || *v > 99)
      r.ErrorAt("repetitions", fmt::format("is {}; must be an odd number 1..99 (the median run "
                                           "is kept)",
                                           *v)),
          *ok = false;
    else
      load->repetitions = static_cast<int>(*v);
  }
  if (auto v = r.StringList("extra_args")) load->extra_args = *v;
}

// A scenario's `search:` (recipe/point.h SloSearchSpec): its shape here; its limits and
// range are search/'s to judge, before anything starts (cli/preflight.h), located by
// the paths read here.
bool ReadSloSearch(const LoadContext& ctx, const YNode& n, const std::string& path,
                   SloSearchSpec* out) {
  FieldReader r(ctx, n, path,
                {"vary", "slo", "min", "max", "step", "resolution", "repeats", "max_probes"});
  if (!r.valid()) return false;
  bool ok = true;
  out->field_path = path;
  auto vary = r.Enum("vary", {"concurrency", "rate"}, true);
  if (!vary) ok = false;
  out->vary = vary.value_or("concurrency");
  auto slos = r.StringList("slo", true);
  if (!slos || slos->empty()) {
    if (slos) r.ErrorAt("slo", "is empty; name at least one limit, e.g. [ttft_p99_ms<=500]");
    ok = false;
  } else {
    out->slos = *slos;
  }
  out->min = r.Double("min");
  out->max = r.Double("max");
  if (auto v = r.Int("step")) out->step = static_cast<int>(*v);
  out->resolution = r.Double("resolution");
  if (auto v = r.Int("repeats")) out->repeats = static_cast<int>(*v);
  if (auto v = r.Int("max_probes")) out->max_probes = static_cast<int>(*v);
  for (const char* key : {"step", "resolution"}) {
    bool for_concurrency = std::string_view(key) == "step";
    if (r.Has(key) && for_concurrency != (out->vary == "concurrency")) {
      r.ErrorAt(key, fmt::format("is for a search varying the {}; this one varies the {}",
                                 for_concurrency ? "concurrency" : "rate", out->vary));
      ok = false;
    }
  }
  return ok;
}

// A scenario's prefix pool, once its load (recipe-level, then its own) and isl are known:
// dataset prefix_repetition needs prefix_len < isl (the rest is each prompt's suffix) and
// num_prefixes, exact lengths (no random_range_ratio); other datasets refuse the keys.
bool CheckPrefixPool(const LoadContext& ctx, const YNode& node, const std::string& path,
                     const Scenario& sc) {
  const LoadSpec& l = sc.load;
  if (l.dataset != "prefix_repetition") {
    if (l.prefix_len == 0 && l.num_prefixes == 0 && l.prefix_reuse_ratio == 1.0) return true;
    ctx.Error(node, path,
              fmt::format("prefix_len, num_prefixes and prefix_reuse_ratio shape dataset "
                          "prefix_repetition; this scenario's dataset is {}",
                          l.dataset));
    return false;
  }
  if (l.prefix_len == 0 || l.num_prefixes == 0) {
    ctx.Error(node, path,
              "dataset prefix_repetition needs prefix_len (tokens of each prefix) and "
              "num_prefixes (prefixes in the pool)");
    return false;
  }
  if (l.prefix_len >= sc.isl) {
    ctx.Error(node, path,
              fmt::format("prefix_len {} with isl {}: the prefix must be shorter than the "
                          "prompt (isl - prefix_len is each prompt's own suffix)",
                          l.prefix_len, sc.isl));
    return false;
  }
  if (l.random_range_ratio > 0) {
    ctx.Error(node, path,
              "dataset prefix_repetition with random_range_ratio: the pool's prompts are "
              "exactly isl tokens; drop random_range_ratio");
    return false;
  }
  return true;
}

// prefill/decode/aggregated: {replicas, tp, pp, ep, dp_attn, dcp_size, pcp_size, nodes, env}
std::optional<WorkerSpec> ReadWorkerBlock(const LoadContext& ctx, const YNode& n,
                                          const std::string& path) {
  FieldReader r(ctx, n, path,
                {"replicas", "tp", "pp", "ep", "dp_attn", "dcp_size", "pcp_size", "nodes", "env"});
  if (!r.valid()) return std::nullopt;
  WorkerSpec w;
  auto replicas = r.PositiveInt("replicas", true);
  if (!replicas) return std::nullopt;
  w.num_workers = static_cast<int>(*replicas);
  if (auto v = r.PositiveInt("tp")) w.tp = static_cast<int>(*v);
  if (auto v = r.PositiveInt("pp")) w.pp = static_cast<int>(*v);
  if (auto v = r.PositiveInt("ep")) w.ep = static_cast<int>(*v);
  if (auto v = r.PositiveInt("dcp_size")) w.dcp_size = static_cast<int>(*v);
  if (auto v = r.PositiveInt("pcp_size")) w.pcp_size = static_cast<int>(*v);
  if (auto v = r.PositiveInt("nodes")) w.nodes = static_cast<int>(*v);
  if (auto v = r.Bool("dp_attn")) w.dp_attn = *v;
  // The role's own environment, exported for its processes only (InferenceX's
  // additional-settings are KEY=VALUE too).
  if (auto v = r.StringMap("env"))
    for (const auto& [k, val] : *v) w.additional_settings.push_back(k + "=" + val);
  if (w.tp % w.dcp_size != 0) {
    r.ErrorAt("dcp_size", fmt::format("tp {} is not divisible by dcp_size {}; tp % dcp_size must "
                                      "be 0",
                                      w.tp, w.dcp_size));
    return std::nullopt;
  }
  return w;
}

// A search-space entry is a single server ({tp, ...}) or a serve session of several
// processes: `prefill` + `decode` (disaggregated) or `aggregated` workers.
bool ReadTopologyEntry(const LoadContext& ctx, FieldReader& r, SearchEntry* e) {
  const bool p = r.Has("prefill"), d = r.Has("decode"), a = r.Has("aggregated");
  if (!p && !d && !a) return true;
  bool ok = true;
  for (const char* k : {"tp", "pp", "ep", "dp", "dp_attn", "dcp_size", "pcp_size"}) {
    if (r.Has(k)) {
      r.ErrorAt(k, "is set beside prefill/decode/aggregated workers; set it inside each role");
      ok = false;
    }
  }
  if (a && (p || d)) {
    r.ErrorAt("aggregated",
              "is set beside prefill/decode; an entry is either disaggregated "
              "(prefill and decode) or aggregated");
    return false;
  }
  if (p != d) {
    r.ErrorAt(p ? "prefill" : "decode",
              "is set without its partner; a disaggregated entry needs both prefill and decode");
    return false;
  }
  e->has_tp = false;
  e->has_workers = true;
  auto read = [&](const char* key, WorkerSpec* out) {
    auto w = ReadWorkerBlock(ctx, *r.Get(key), r.PathOf(key));
    if (w)
      *out = *w;
    else
      ok = false;
  };
  if (a) {
    read("aggregated", &e->prefill);
    e->decode = WorkerSpec{};  // decode 0 = aggregated (point.h)
  } else {
    read("prefill", &e->prefill);
    read("decode", &e->decode);
  }
  return ok;
}

// `search`: the vary of the scenario's search ("" = none). A search varying the
// concurrency takes none from its entries; one varying the rate takes at most one, the
// cap on requests in flight (none: no cap).
// A component named by two string fields, `name_key` and `version_key` (the version
// needs the name), as InferenceX's {name, version}; nullopt without the name. A
// version alone is an error at it, and clears *ok.
std::optional<boost::json::object> ReadNameAndVersion(FieldReader& r, const char* name_key,
                                                      const char* version_key, bool* ok) {
  auto name = r.String(name_key, false, true);
  auto version = r.String(version_key, false, true);
  if (!name) {
    if (version) {
      r.ErrorAt(version_key, fmt::format("is set without {}", name_key));
      *ok = false;
    }
    return std::nullopt;
  }
  boost::json::object component{{"name", *name}};
  if (version) component["version"] = *version;
  return component;
}

std::optional<SearchEntry> ReadEntry(const LoadContext& ctx, const YNode& n,
                                     const std::string& path, const std::string& search) {
  FieldReader r(ctx, n, path,
                {"tp",
                 "pp",
                 "ep",
                 "dp",
                 "dp_attn",
                 "dcp_size",
                 "pcp_size",
                 "spec_decoding",
                 "concurrency",
                 "extra_args",
                 "env",
                 "env_from",
                 "prepare",
                 "command",
                 "prefill",
                 "decode",
                 "aggregated",
                 "kv_offloading",
                 "kv_offload_backend",
                 "kv_offload_backend_version",
                 "total_cpu_dram_gb",
                 "router_name",
                 "router_version"});
  if (!r.valid()) return std::nullopt;
  bool ok = true;
  SearchEntry e;
  e.location = ctx.At(n);
  e.path = path;
  e.has_tp = true;
  if (auto v = r.PositiveInt("tp")) e.tp = static_cast<int>(*v);
  if (auto v = r.PositiveInt("pp")) e.pp = static_cast<int>(*v);
  if (auto v = r.PositiveInt("ep")) e.ep = static_cast<int>(*v);
  if (auto v = r.PositiveInt("dcp_size")) e.dcp_size = static_cast<int>(*v);
  if (auto v = r.PositiveInt("pcp_size")) e.pcp_size = static_cast<int>(*v);
  if (auto v = r.Bool("dp_attn")) e.dp_attn = *v;
  if (r.Has("dp")) {
    if (auto v = r.PositiveInt("dp")) e.dp = static_cast<int>(*v);
  }
  if (!ReadTopologyEntry(ctx, r, &e)) ok = false;
  if (e.tp % e.dcp_size != 0) {
    r.ErrorAt("dcp_size", fmt::format("tp {} is not divisible by dcp_size {}; tp % dcp_size must "
                                      "be 0",
                                      e.tp, e.dcp_size));
    ok = false;
  }
  if (const YNode* s = r.Get("spec_decoding")) {
    e.spec = ReadSpec(ctx, *s, r.PathOf("spec_decoding"));
    if (!e.spec) ok = false;
  }
  if (search.empty()) {
    ReadConcurrency(ctx, r, &e.conc, &ok);
  } else if (!r.Has("concurrency")) {
    e.conc.list = {0};
  } else if (search == "concurrency") {
    r.ErrorAt("concurrency",
              "is set in a scenario whose search varies the concurrency; the search chooses it "
              "(search.min .. search.max)");
    ok = false;
  } else {
    ReadConcurrency(ctx, r, &e.conc, &ok);
    if (e.conc.Values().size() > 1) {
      r.ErrorAt("concurrency",
                "is a list in a scenario whose search varies the rate; give one cap on the "
                "requests in flight (or none)");
      ok = false;
    }
  }
  if (auto v = r.StringList("extra_args")) e.extra_args = *v;
  if (auto v = r.StringMap("env"))
    for (const auto& [k, val] : *v) e.env[k] = val;
  ok = ReadEnvFrom(ctx, r, &e.env_from, &e.env) && ok;
  ok = ReadPrepare(ctx, r, &e.prepare) && ok;
  ok = ReadVerbatimCommand(ctx, r, &e.command) && ok;
  // The KV offload tier of an agentic-coding entry (InferenceX's kv-offloading,
  // kv-offload-backend and the job's TOTAL_CPU_DRAM_GB); checked against the
  // scenario by the caller.
  if (auto v = r.Enum("kv_offloading", {"none", "dram"})) e.kv_offloading = *v;
  e.kv_offload_backend =
      ReadNameAndVersion(r, "kv_offload_backend", "kv_offload_backend_version", &ok);
  // The router an InferenceX row names (its `router: {name, version}`), kept for the
  // point's identity; a captured command's router process is command.router.
  e.router = ReadNameAndVersion(r, "router_name", "router_version", &ok);
  if (e.kv_offloading.value_or("none") == "dram" && !e.kv_offload_backend) {
    r.ErrorAt("kv_offloading",
              "is 'dram'; name the tier in kv_offload_backend (mooncake, "
              "lmcache, ...)");
    ok = false;
  }
  if (e.kv_offloading.value_or("none") == "none" && e.kv_offload_backend) {
    r.ErrorAt("kv_offload_backend", "is set but kv_offloading is not 'dram'");
    ok = false;
  }
  if (auto v = r.PositiveInt("total_cpu_dram_gb")) e.total_cpu_dram_gb = static_cast<int>(*v);
  if (!ok) return std::nullopt;
  return e;
}

std::optional<Recipe> ReadRecipe(const LoadContext& ctx, const YNode& key, const YNode& n) {
  std::string name = key.scalar;
  FieldReader r(ctx, n, name, kRecipeKeys);
  if (!r.valid()) return std::nullopt;
  bool ok = true;
  Recipe recipe;
  recipe.name = name;
  recipe.location = ctx.At(key);
  recipe.source_format = "native";
  if (name.empty() || name.find_first_of("*? \t") != std::string::npos) {
    ctx.Error(key, name, "recipe names are non-empty and hold no spaces, '*' or '?'");
    ok = false;
  }
  ServeSpec& s = recipe.serve;
  auto model = r.String("model", true, true);
  auto engine = r.Enum("engine", kEngines, true);
  if (!model || !engine) ok = false;
  s.model = model.value_or("");
  s.engine = engine.value_or("");
  s.framework = r.String("framework", false, true).value_or(s.engine);
  s.served_model_name = r.String("served_model_name", false, true).value_or("");
  s.image = r.String("image").value_or("");
  s.precision = r.String("precision", false, true).value_or("bf16");
  s.hardware = r.String("hardware", false, true).value_or("");
  if (s.hardware.empty() && s.engine != "sim") {
    r.Missing("hardware");
    ok = false;
  }
  s.kv_cache_dtype = r.String("kv_cache_dtype", false, true).value_or("");
  if (const YNode* m = r.Get("max_model_len")) {
    if (m->IsScalar() && m->scalar == "auto") {
      s.max_model_len = -1;  // isl + osl + 256 per scenario, resolved at expansion
    } else if (auto v = r.PositiveInt("max_model_len", false, limits::kMaxTokensPerRequest)) {
      s.max_model_len = static_cast<int>(*v);
    } else {
      ok = false;
    }
  }
  if (auto v = r.Double("readiness_timeout_s")) {
    if (*v <= 0 || *v > 86400)
      r.ErrorAt("readiness_timeout_s", "must be in (0, 86400]"), ok = false;
    else
      s.readiness_timeout_s = *v;
  }
  if (auto v = r.StringList("extra_args")) s.extra_args = *v;
  if (auto v = r.StringMap("env"))
    for (const auto& [k, val] : *v) s.env[k] = val;
  // Values of env are secrets unless named here (records and outputs show them).
  if (auto names = r.StringList("env_not_secret")) {
    const YNode* list = r.Get("env_not_secret");
    for (size_t i = 0; i < names->size(); ++i) {
      const std::string& name = (*names)[i];
      if (name.empty() || name.find_first_of("= \t") != std::string::npos) {
        ctx.Error(list->items[i], IndexPath(r.PathOf("env_not_secret"), i),
                  fmt::format("'{}' is not an environment variable name", name));
        ok = false;
        continue;
      }
      recipe.env_not_secret.push_back(name);
    }
  }
  ok = ReadEnvFrom(ctx, r, &s.env_from, &s.env) && ok;
  std::optional<std::vector<std::vector<std::string>>> prepare;
  ok = ReadPrepare(ctx, r, &prepare) && ok;
  if (prepare) s.prepare = *prepare;
  std::optional<VerbatimCommand> command;
  ok = ReadVerbatimCommand(ctx, r, &command) && ok;
  if (command) s.command = *command;
  if (const YNode* sim = r.Get("sim")) {
    // The catalogue model is `model` itself (the sim adapter renders it).
    FieldReader sr(ctx, *sim, r.PathOf("sim"),
                   {"hardware", "time_scale", "seed", "power_average_s", "faults"});
    if (sr.valid()) {
      s.sim_options["hardware"] = sr.String("hardware", false, true).value_or(s.hardware);
      if (auto t = sr.Double("time_scale")) {
        if (*t < 0 || *t > 1000)
          sr.ErrorAt("time_scale", "must be in [0, 1000] (0 = as fast as possible)"), ok = false;
        else
          s.sim_options["time-scale"] = Trimmed(*t);
      }
      if (auto seed = sr.Int("seed")) s.sim_options["seed"] = std::to_string(*seed);
      if (auto avg = sr.Double("power_average_s")) {
        if (*avg < 0.01 || *avg > 60)
          sr.ErrorAt("power_average_s", "must be in [0.01, 60] simulated seconds"), ok = false;
        else
          s.sim_options["power-average-s"] = Trimmed(*avg);
      }
      // Fault flags of `servebench sim`; the `fault-` prefix may be left out.
      if (auto faults = sr.StringMap("faults"))
        for (const auto& [k, v] : *faults)
          s.sim_options[k.rfind("fault-", 0) == 0 ? k : "fault-" + k] = v;
    } else {
      ok = false;
    }
    if (s.engine != "sim") r.ErrorAt("sim", "sim options need engine: sim"), ok = false;
    if (s.hardware.empty()) s.hardware = s.sim_options["hardware"];
  }
  if (s.engine == "sim" && !s.hardware.empty() && !s.sim_options.count("hardware"))
    s.sim_options["hardware"] = s.hardware;
  if (s.engine == "sim" && s.hardware.empty()) {
    r.ErrorAt("engine", "engine sim needs hardware (or sim.hardware): a catalogue GPU, e.g. h200");
    ok = false;
  }
  if (const YNode* sp = r.Get("spec_decoding")) {
    auto spec = ReadSpec(ctx, *sp, r.PathOf("spec_decoding"));
    if (spec)
      s.spec = *spec;
    else
      ok = false;
  }
  if (const YNode* t = r.Get("topology")) {
    // What a serve session of several processes shares: its router (and policy), the
    // KV connector between prefill and decode, and the node size of the runner.
    FieldReader tr(ctx, *t, r.PathOf("topology"),
                   {"router", "router_policy", "kv_connector", "gpus_per_node"});
    if (tr.valid()) {
      s.router_name = tr.String("router", false, true).value_or("");
      s.router_policy = tr.String("router_policy", false, true).value_or("");
      s.kv_p2p_transfer = tr.String("kv_connector", false, true).value_or("");
      if (auto g = tr.PositiveInt("gpus_per_node")) s.gpus_per_node = static_cast<int>(*g);
    } else {
      ok = false;
    }
  }
  recipe.runner = r.String("runner", false, true).value_or(s.hardware);
  recipe.model_prefix = r.String("model_prefix", false, true).value_or(name);
  recipe.precision = s.precision;
  recipe.framework = s.framework;
  recipe.image = s.image;
  recipe.model = s.model;
  recipe.nightly = r.Bool("nightly").value_or(false);
  if (const YNode* b = r.Get("blocked")) {
    FieldReader br(ctx, *b, r.PathOf("blocked"), {"reason", "link"});
    auto reason = br.String("reason", true, true);
    recipe.blocked = true;
    recipe.blocked_reason = reason.value_or("");
    recipe.blocked_link = br.String("link", false, true).value_or("");
    if (!reason) ok = false;
  }
  if (const YNode* ev = r.Get("evals")) {
    FieldReader er(ctx, *ev, r.PathOf("evals"), {"tasks", "at"});
    recipe.eval_at = er.Enum("at", {"highest", "all", "once"}).value_or("highest");
    const YNode* tasks = er.Get("tasks");
    if (er.valid() && tasks == nullptr) er.Missing("tasks"), ok = false;
    if (tasks && !tasks->IsSequence()) {
      ctx.Error(*tasks, er.PathOf("tasks"),
                "expected a list of task names or {name, "
                "num_fewshot, model_args}");
      ok = false;
    } else if (tasks) {
      for (size_t i = 0; i < tasks->items.size(); ++i) {
        const YNode& t = tasks->items[i];
        std::string tpath = IndexPath(er.PathOf("tasks"), i);
        EvalTask task;
        if (auto nm = t.AsString()) {
          task.name = *nm;
        } else {
          FieldReader tr(ctx, t, tpath, {"name", "num_fewshot", "model_args"});
          auto nm2 = tr.String("name", true, true);
          if (!nm2) {
            ok = false;
            continue;
          }
          task.name = *nm2;
          if (auto f = tr.Int("num_fewshot")) task.num_fewshot = static_cast<int>(*f);
          if (auto a = tr.StringMap("model_args"))
            for (const auto& [k, v] : *a) task.model_args[k] = v;
        }
        if (task.name.empty()) ctx.Error(t, tpath, "task name is empty"), ok = false;
        recipe.evals.push_back(std::move(task));
      }
    }
  }
  LoadSpec defaults;
  int per_conc = 0, warmups_per_conc = 0;
  if (const YNode* l = r.Get("load")) {
    FieldReader lr(ctx, *l, r.PathOf("load"), kLoadKeys);
    if (lr.valid())
      ReadLoad(ctx, lr, &defaults, &per_conc, &warmups_per_conc, &ok);
    else
      ok = false;
  }
  const YNode* scenarios = r.Get("scenarios");
  if (scenarios == nullptr) {
    r.Missing("scenarios");
    return std::nullopt;
  }
  if (!scenarios->IsSequence() || scenarios->items.empty()) {
    ctx.Error(*scenarios, r.PathOf("scenarios"),
              "expected a non-empty list of {isl, osl, "
              "search_space}");
    return std::nullopt;
  }
  std::vector<std::string> scenario_keys = kLoadKeys;
  for (const char* k : {"isl", "osl", "search_space", "scenario", "duration_s", "search"})
    scenario_keys.push_back(k);
  for (size_t i = 0; i < scenarios->items.size(); ++i) {
    std::string spath = IndexPath(r.PathOf("scenarios"), i);
    FieldReader sr(ctx, scenarios->items[i], spath, scenario_keys);
    if (!sr.valid()) {
      ok = false;
      continue;
    }
    Scenario sc;
    sc.load = defaults;
    sc.prompts_per_concurrency = per_conc;
    sc.warmups_per_concurrency = warmups_per_conc;
    sc.type = sr.Enum("scenario", {"fixed-seq-len", "agentic-coding"}).value_or("fixed-seq-len");
    const bool agentic = sc.type == "agentic-coding";
    if (agentic) {
      // A trace replay for a duration (docs/agentic.md): what InferenceX's agentic
      // rows offer, unless the scenario says otherwise.
      sc.load.scenario = sc.type;
      sc.load.dataset = "agentic-coding";
      sc.load.endpoint = "/v1/chat/completions";
      sc.load.ignore_eos = true;
    }
    ReadLoad(ctx, sr, &sc.load, &sc.prompts_per_concurrency, &sc.warmups_per_concurrency, &ok);
    if (agentic) {
      for (const char* k : {"isl", "osl"}) {
        if (sr.Has(k)) {
          sr.ErrorAt(k,
                     "is set in an agentic-coding scenario; its requests' lengths are the "
                     "trace's");
          ok = false;
        }
      }
      sc.duration_s =
          static_cast<int>(sr.PositiveInt("duration_s", false, 7 * 24 * 3600).value_or(3600));
    } else {
      if (sr.Has("duration_s")) {
        sr.ErrorAt("duration_s",
                   "is set in a fixed-seq-len scenario; only an agentic-coding "
                   "scenario (scenario: agentic-coding) runs for a duration");
        ok = false;
      }
      auto isl = sr.PositiveInt("isl", true, limits::kMaxTokensPerRequest);
      auto osl = sr.PositiveInt("osl", true, limits::kMaxTokensPerRequest);
      if (!isl || !osl) ok = false;
      sc.isl = static_cast<int>(isl.value_or(0));
      sc.osl = static_cast<int>(osl.value_or(0));
      if (!CheckPrefixPool(ctx, scenarios->items[i], spath, sc)) ok = false;
    }
    if (const YNode* search = sr.Get("search")) {
      if (agentic) {
        sr.ErrorAt("search",
                   "is set in an agentic-coding scenario; a search probes fixed-seq-len loads");
        ok = false;
      } else if (!ReadSloSearch(ctx, *search, sr.PathOf("search"), &sc.load.search)) {
        ok = false;
      }
      if (sc.load.repetitions > 1) {
        sr.ErrorAt("search", "and repetitions > 1: a search repeats probes itself (repeats)");
        ok = false;
      }
    }
    const YNode* space = sr.Get("search_space");
    if (space == nullptr) {
      sr.Missing("search_space");
      ok = false;
      continue;
    }
    if (!space->IsSequence() || space->items.empty()) {
      ctx.Error(*space, sr.PathOf("search_space"),
                "expected a non-empty list of {tp, ..., "
                "concurrency}");
      ok = false;
      continue;
    }
    for (size_t j = 0; j < space->items.size(); ++j) {
      auto e = ReadEntry(ctx, space->items[j], IndexPath(sr.PathOf("search_space"), j),
                         sc.load.search.vary);
      if (!e) {
        ok = false;
        continue;
      }
      if (!agentic && (e->kv_offloading || e->kv_offload_backend || e->total_cpu_dram_gb)) {
        ctx.Error(space->items[j], e->path,
                  "sets a KV offload tier (kv_offloading, kv_offload_backend, "
                  "total_cpu_dram_gb) in a fixed-seq-len scenario; only agentic-coding "
                  "scenarios have one");
        ok = false;
      }
      // A verbatim command is run as written: nothing is appended to it.
      bool verbatim = e->command.has_value() || !s.command.argv.empty();
      if (verbatim && (!e->extra_args.empty() || !s.extra_args.empty())) {
        ctx.Error(space->items[j], e->path,
                  "has a command (run as written) and extra_args; put the arguments in "
                  "command.argv");
        ok = false;
      }
      sc.search_space.push_back(std::move(*e));
    }
    recipe.scenarios.push_back(std::move(sc));
  }
  bool any_workers = false, any_disagg = false;
  for (const auto& sc : recipe.scenarios) {
    for (const auto& e : sc.search_space) {
      any_workers = any_workers || e.has_workers;
      any_disagg = any_disagg || (e.has_workers && e.decode.num_workers > 0);
    }
  }
  if (r.Has("topology") && !any_workers) {
    r.ErrorAt("topology",
              "is set but no search-space entry has prefill/decode or aggregated workers; a "
              "single server needs no topology");
    ok = false;
  }
  if (any_disagg && s.kv_p2p_transfer.empty()) {
    r.ErrorAt(r.Has("topology") ? "topology" : "scenarios",
              "has prefill/decode entries but no topology.kv_connector; name the KV transfer "
              "between them (nixl, mooncake, p2p-nccl, lmcache, mori, ucx)");
    ok = false;
  }
  if (!ok) return std::nullopt;
  return recipe;
}

}  // namespace

std::vector<Recipe> LoadNative(const LoadContext& ctx, const YNode& root) {
  std::vector<Recipe> out;
  FieldReader top(ctx, root, "", {"servebench", "recipes"});
  if (!top.valid()) return out;
  auto version = top.Int("servebench", true);
  if (version && *version != 1) {
    top.ErrorAt("servebench", fmt::format("is {}; this build reads format version 1", *version));
    return out;
  }
  const YNode* recipes = top.Get("recipes");
  if (recipes == nullptr) {
    top.Missing("recipes");
    return out;
  }
  if (!recipes->IsMap() || recipes->entries.empty()) {
    ctx.Error(*recipes, "recipes", "expected a map of recipe name → recipe");
    return out;
  }
  std::vector<std::string> seen;
  for (const auto& [k, v] : recipes->entries) {
    if (!k.IsScalar()) {
      ctx.Error(k, "recipes", "recipe names are plain strings");
      continue;
    }
    if (std::find(seen.begin(), seen.end(), k.scalar) != seen.end()) {
      ctx.Error(k, k.scalar, "duplicate recipe name in this file");
      continue;
    }
    seen.push_back(k.scalar);
    if (auto r = ReadRecipe(ctx, k, v)) out.push_back(std::move(*r));
  }
  return out;
}

}  // namespace servebench::recipe
