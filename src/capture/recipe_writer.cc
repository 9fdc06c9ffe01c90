// WriteNativeRecipes: captured points → native YAML. Every string is written as a
// double-quoted scalar with JSON's escapes (a subset of YAML's), so commands, JSON
// arguments and file contents load back byte for byte.
#include "capture/recipe_writer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "common/json_string.h"
#include "engine/adapter.h"
#include "recipe/hub_snapshot.h"
#include "recipe/recipe.h"

namespace servebench::capture {
namespace {

using recipe::Point;

std::string Q(const std::string& s) {
  std::string out;
  AppendJsonString(&out, s);
  return out;
}

// A launch word: quoted, or {hf_snapshot: REPO} for a snapshot word (the capture
// makes only whole ones: recipe/hub_snapshot.h).
std::string Word(const std::string& s) {
  if (!recipe::IsHubSnapshotWord(s)) return Q(s);
  return "{hf_snapshot: " + Q(recipe::HubSnapshotsIn(s).front()) + "}";
}

std::string List(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + Word(items[i]);
  return out + "]";
}

std::string Map(const std::map<std::string, std::string>& m) {
  std::string out = "{";
  bool first = true;
  for (const auto& [k, v] : m) {
    out += (first ? "" : ", ") + Q(k) + ": " + Word(v);
    first = false;
  }
  return out + "}";
}

// `env` without its snapshot words, and `env_from` with them ({hf_snapshot: REPO} is
// an env_from value in a recipe: native_launch.h), as the native keys say them.
std::pair<std::map<std::string, std::string>, std::map<std::string, std::string>> EnvKeys(
    const std::map<std::string, std::string>& env,
    const std::map<std::string, std::string>& env_from) {
  std::map<std::string, std::string> plain, from = env_from;
  for (const auto& [k, v] : env) (recipe::IsHubSnapshotWord(v) ? from : plain)[k] = v;
  return {plain, from};
}

// The `env:` and `env_from:` lines of one process, at `indent`.
std::string EnvLines(const std::string& indent, const std::map<std::string, std::string>& env,
                     const std::map<std::string, std::string>& env_from) {
  auto [plain, from] = EnvKeys(env, env_from);
  std::string out;
  if (!plain.empty()) out += indent + "env: " + Map(plain) + "\n";
  if (!from.empty()) out += indent + "env_from: " + Map(from) + "\n";
  return out;
}

std::string Spec(const recipe::SpecDecoding& s) {
  if (s.method == recipe::SpecMethod::kNone) return "none";
  std::string out = fmt::format("{{method: {}", recipe::SpecMethodName(s.method));
  if (!s.draft_model.empty()) out += ", draft_model: " + Q(s.draft_model);
  out += fmt::format(", num_speculative_tokens: {}", s.num_speculative_tokens);
  if (s.acceptance == recipe::AcceptanceMode::kReal)
    out += ", acceptance: real";
  else
    out += fmt::format(", acceptance: {{mode: synthetic, length: {}}}",
                       engine::FormatDecimal(s.synthetic_acceptance_length));
  if (!s.extra.empty()) out += ", extra: " + Map(s.extra);
  return out + "}";
}

// The scenario-level load keys every point of a scenario shares; fails when they
// differ in a way the native format cannot say per entry.
StatusOr<std::string> ScenarioLoad(const std::vector<const Point*>& points,
                                   const std::string& where) {
  const recipe::LoadSpec& l = points.front()->load;
  int per_conc = l.concurrency > 0 ? l.num_prompts / l.concurrency : 0;
  for (const Point* p : points) {
    const recipe::LoadSpec& m = p->load;
    if (m.endpoint != l.endpoint || m.backend != l.backend || m.dataset != l.dataset ||
        m.dataset_path != l.dataset_path || m.random_range_ratio != l.random_range_ratio ||
        m.ignore_eos != l.ignore_eos || m.request_rate_per_s != l.request_rate_per_s ||
        m.warmups_per_concurrency != l.warmups_per_concurrency || m.num_warmups != l.num_warmups ||
        m.extra_args != l.extra_args || m.scenario != l.scenario || m.duration_s != l.duration_s) {
      return Status::InvalidArgument(fmt::format(
          "{}: the captured clients of one scenario offer different load (endpoint, dataset, "
          "range ratio, EOS, rate, warm-ups or duration); the native format sets these per "
          "scenario",
          where));
    }
    if (m.num_prompts != per_conc * m.concurrency) per_conc = -1;
  }
  std::string out;
  if (!l.backend.empty()) out += "        backend: " + Q(l.backend) + "\n";
  out += "        endpoint: " + Q(l.endpoint) + "\n";
  // An agentic scenario's dataset is its own (the trace, bound at plan time).
  if (l.scenario != "agentic-coding" || l.dataset != "agentic-coding")
    out += "        dataset: " + Q(l.dataset) + "\n";
  if (!l.dataset_path.empty()) out += "        dataset_path: " + Q(l.dataset_path) + "\n";
  out +=
      fmt::format("        random_range_ratio: {}\n", engine::FormatDecimal(l.random_range_ratio));
  out += fmt::format("        ignore_eos: {}\n", l.ignore_eos ? "true" : "false");
  if (l.request_rate_per_s > 0)
    out += fmt::format("        request_rate_per_s: {}\n",
                       engine::FormatDecimal(l.request_rate_per_s));
  if (l.warmups_per_concurrency > 0)
    out += fmt::format("        warmups_per_concurrency: {}\n", l.warmups_per_concurrency);
  else if (l.num_warmups > 0)
    out += fmt::format("        num_warmups: {}\n", l.num_warmups);
  if (per_conc > 0) {
    out += fmt::format("        prompts_per_concurrency: {}\n", per_conc);
  } else if (per_conc < 0 || l.num_prompts > 0) {
    bool same = true;
    for (const Point* p : points) same = same && p->load.num_prompts == l.num_prompts;
    if (!same)
      return Status::InvalidArgument(fmt::format(
          "{}: the captured prompt counts are neither one number nor one multiple of the "
          "concurrency",
          where));
    out += fmt::format("        num_prompts: {}\n", l.num_prompts);
  }
  if (!l.extra_args.empty()) out += "        extra_args: " + List(l.extra_args) + "\n";
  return out;
}

std::string Entry(const Point& p, const std::vector<int>& concs) {
  const recipe::ServeSpec& s = p.serve;
  std::string c;
  for (int v : concs) c += (c.empty() ? "" : ", ") + std::to_string(v);
  std::string out = fmt::format("          - tp: {}\n", s.tp);
  auto add = [&](const char* key, int value) {
    if (value != 1) out += fmt::format("            {}: {}\n", key, value);
  };
  add("pp", s.pp);
  add("ep", s.ep);
  add("dp", s.dp);
  add("dcp_size", s.dcp_size);
  add("pcp_size", s.pcp_size);
  if (s.dp_attn) out += "            dp_attn: true\n";
  out += "            spec_decoding: " + Spec(s.spec) + "\n";
  if (p.load.scenario == "agentic-coding") {
    // The KV offload tier of the row (its script reads KV_OFFLOADING and the budget).
    if (s.kv_offloading != "none") out += "            kv_offloading: " + Q(s.kv_offloading) + "\n";
    if (!s.kv_offload_backend.empty())
      out += "            kv_offload_backend: " + Q(s.kv_offload_backend) + "\n";
    if (!s.kv_offload_backend_version.empty())
      out += "            kv_offload_backend_version: " + Q(s.kv_offload_backend_version) + "\n";
    if (s.total_cpu_dram_gb > 0)
      out += fmt::format("            total_cpu_dram_gb: {}\n", s.total_cpu_dram_gb);
  }
  // The row's router, for the point's identity (the router process is command.router).
  if (!s.router_name.empty()) out += "            router_name: " + Q(s.router_name) + "\n";
  if (!s.router_version.empty()) out += "            router_version: " + Q(s.router_version) + "\n";
  out += "            concurrency: [" + c + "]\n";
  out += EnvLines("            ", s.env, s.env_from);
  if (!s.prepare.empty()) {
    out += "            prepare:\n";
    for (const auto& step : s.prepare) out += "              - " + List(step) + "\n";
  }
  out += "            command:\n";
  out += "              argv: " + List(s.command.argv) + "\n";
  out += fmt::format("              port: {}\n", s.command.port);
  if (!s.command.files.empty()) {
    out += "              files:\n";
    for (const auto& f : s.command.files)
      out += "                - {path: " + Q(f.path) + ", contents: " + Q(f.contents) + "}\n";
  }
  if (!s.command.folder.empty()) out += "              folder: " + Q(s.command.folder) + "\n";
  if (!s.command.auxiliary.empty()) {
    out += "              auxiliary:\n";
    for (const auto& a : s.command.auxiliary) {
      out += "                - argv: " + List(a.argv) + "\n";
      out += EnvLines("                  ", a.env, a.env_from);
    }
  }
  if (!s.command.router.argv.empty()) {
    const recipe::RouterCommand& r = s.command.router;
    out += "              router:\n";
    out += "                argv: " + List(r.argv) + "\n";
    out += EnvLines("                ", r.env, r.env_from);
    out += fmt::format("                port: {}\n", r.port);
  }
  out += "              source: " + Q(s.command.source) + "\n";
  return out;
}

// The serve spec of a point minus what varies inside one entry.
std::string EntryKey(const Point& p) {
  Point copy = p;
  copy.load = {};
  copy.exp_name.clear();
  copy.run_eval = false;
  copy.eval_tasks.clear();
  copy.evals.clear();
  copy.eval_only = false;
  return recipe::PointToJson(copy);
}

// The scenario-level load of a point: points whose load differs here go into
// scenarios of their own (same isl and osl), so each scenario's keys hold for all.
std::string LoadKey(const Point& p) {
  const recipe::LoadSpec& l = p.load;
  return fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", l.scenario, l.duration_s, l.isl,
                     l.osl, l.endpoint, l.backend, l.dataset, l.dataset_path, l.random_range_ratio,
                     l.ignore_eos, l.request_rate_per_s, l.warmups_per_concurrency, l.num_warmups,
                     fmt::join(l.extra_args, " "));
}

// One config key's recipe, or why the native format cannot say it.
StatusOr<std::string> RecipeYaml(const std::string& key, const std::vector<const Point*>& mine) {
  const recipe::ServeSpec& s = mine.front()->serve;
  std::string yaml = "  " + Q(key) + ":\n";
  yaml += "    engine: " + Q(s.engine) + "\n";
  yaml += "    framework: " + Q(s.framework) + "\n";
  yaml += "    model: " + Q(s.model) + "\n";
  if (!s.served_model_name.empty())
    yaml += "    served_model_name: " + Q(s.served_model_name) + "\n";
  yaml += "    image: " + Q(s.image) + "\n";
  yaml += "    precision: " + Q(s.precision) + "\n";
  yaml += "    hardware: " + Q(s.hardware) + "\n";
  yaml += "    runner: " + Q(mine.front()->runner) + "\n";
  yaml += "    model_prefix: " + Q(mine.front()->model_prefix) + "\n";
  if (s.readiness_timeout_s > 0)
    yaml += "    readiness_timeout_s: " + engine::FormatDecimal(s.readiness_timeout_s) + "\n";
  if (!s.kv_cache_dtype.empty()) yaml += "    kv_cache_dtype: " + Q(s.kv_cache_dtype) + "\n";
  // Captured values are the script's configuration, never secrets (ApplyCapture):
  // shown in the dry run and records, as they were in the capture.
  std::vector<std::string> shown;
  for (const Point* p : mine)
    for (const auto& name : p->env_not_secret)
      if (std::find(shown.begin(), shown.end(), name) == shown.end()) shown.push_back(name);
  std::sort(shown.begin(), shown.end());
  if (!shown.empty()) yaml += "    env_not_secret: " + List(shown) + "\n";
  bool any_len = false;
  for (const Point* p : mine)
    any_len = any_len || (p->serve.max_model_len > 0 && p->load.scenario != "agentic-coding");
  // `auto` resolves per scenario, as InferenceX's row rule does.
  if (any_len) yaml += "    max_model_len: auto\n";
  yaml += "    scenarios:\n";
  std::vector<std::string> load_keys;
  for (const Point* p : mine)
    if (std::find(load_keys.begin(), load_keys.end(), LoadKey(*p)) == load_keys.end())
      load_keys.push_back(LoadKey(*p));
  for (const auto& load_key : load_keys) {
    std::vector<const Point*> scenario;
    for (const Point* p : mine)
      if (LoadKey(*p) == load_key) scenario.push_back(p);
    const int isl = scenario.front()->load.isl, osl = scenario.front()->load.osl;
    const bool agentic = scenario.front()->load.scenario == "agentic-coding";
    std::string where = agentic ? key + " agentic-coding" : fmt::format("{} {}x{}", key, isl, osl);
    SB_ASSIGN_OR_RETURN(std::string load, ScenarioLoad(scenario, where));
    int max_model_len = scenario.front()->serve.max_model_len;
    for (const Point* p : scenario)
      if (p->serve.max_model_len != max_model_len)
        return Status::InvalidArgument(where +
                                       ": points of one scenario have different "
                                       "max-model-len values");
    if (agentic && max_model_len != 0) {
      // `auto` gives an agentic scenario the model's own context length.
      return Status::InvalidArgument(fmt::format(
          "{}: max-model-len {} in an agentic-coding scenario; the native format runs them "
          "at the model's own context length",
          where, max_model_len));
    }
    // max_model_len is a recipe field; a scenario of its own says it through
    // `auto` only when it is InferenceX's isl + osl + 256.
    if (!agentic &&
        ((max_model_len > 0) != any_len || (max_model_len > 0 && max_model_len != isl + osl + 256)))
      return Status::InvalidArgument(fmt::format(
          "{}: max-model-len {} is not isl + osl + 256; the native format cannot say it "
          "per scenario",
          where, max_model_len));
    if (agentic)
      yaml += fmt::format("      - scenario: agentic-coding\n        duration_s: {}\n",
                          scenario.front()->load.duration_s);
    else
      yaml += fmt::format("      - isl: {}\n        osl: {}\n", isl, osl);
    yaml += load;
    yaml += "        search_space:\n";
    std::vector<std::string> entry_keys;
    std::map<std::string, std::pair<const Point*, std::vector<int>>> entries;
    for (const Point* p : scenario) {
      std::string k = EntryKey(*p);
      if (entries.count(k) == 0) entry_keys.push_back(k);
      auto& e = entries[k];
      if (e.first == nullptr) e.first = p;
      e.second.push_back(p->load.concurrency);
    }
    for (const auto& k : entry_keys) yaml += Entry(*entries[k].first, entries[k].second);
  }
  return yaml;
}

}  // namespace

StatusOr<WrittenRecipes> WriteNativeRecipes(const std::vector<recipe::Point>& points,
                                            const std::string& header) {
  WrittenRecipes out;
  std::vector<std::string> keys;
  std::map<std::string, std::vector<const Point*>> by_key;
  for (const auto& p : points) {
    if (p.source_format != "inferencex" || p.serve.command.argv.empty()) continue;
    if (by_key.count(p.recipe) == 0) keys.push_back(p.recipe);
    by_key[p.recipe].push_back(&p);
  }
  std::string yaml;
  for (size_t i = 0; i < header.size();) {
    size_t end = header.find('\n', i);
    if (end == std::string::npos) end = header.size();
    yaml += "# " + header.substr(i, end - i) + "\n";
    i = end + 1;
  }
  yaml += "servebench: 1\nrecipes:\n";
  for (const auto& key : keys) {
    auto recipe_yaml = RecipeYaml(key, by_key[key]);
    if (!recipe_yaml.ok()) {
      out.skipped.push_back(recipe_yaml.status().message() +
                            "; not written: run the master config with --inferencex-root");
      continue;
    }
    yaml += *recipe_yaml;
    ++out.recipes;
  }
  out.yaml = std::move(yaml);
  return out;
}

}  // namespace servebench::capture
