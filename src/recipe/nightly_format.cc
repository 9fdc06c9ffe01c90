// perf-eval nightly workload recipes (nightly-workloads.md, parse_workload.py at
// bbd3fc7): one server (vllm block), vllm_bench configs fanned out over
// max_concurrency, lm_eval tasks and bfcl run on the same server afterwards.
// Flags servebench owns (parallelism, speculative decoding, lengths) are lifted
// out of serve_args into the ServeSpec; the rest stay as extra_args, in order.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

#include "common/limits.h"
#include "common/speed_bench_names.h"
#include "recipe/formats.h"

namespace servebench::recipe {
namespace {

const std::vector<std::string> kGpus = {"H200", "B200", "MI300X", "MI355X"};
const std::vector<std::string> kReservedArgs = {"backend",
                                                "base-url",
                                                "host",
                                                "port",
                                                "model",
                                                "dataset-name",
                                                "num-prompts",
                                                "max-concurrency",
                                                "trust-remote-code",
                                                "random-input-len",
                                                "random-output-len",
                                                "ignore-eos",
                                                "dataset-path",
                                                "speed-bench-output-len",
                                                "speed-bench-dataset-subset",
                                                "speed-bench-category",
                                                "skip-tokenizer-init",
                                                "save-result",
                                                "result-filename"};

std::string Lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The flag name without dashes, with '_' as '-': "--tensor_parallel_size" → "tensor-parallel-size".
std::string FlagName(const std::string& token) {
  std::string s = token;
  while (!s.empty() && s[0] == '-') s.erase(0, 1);
  std::replace(s.begin(), s.end(), '_', '-');
  return s;
}

bool ParsePositive(const std::string& s, int* out) {
  try {
    size_t used = 0;
    int v = std::stoi(s, &used);
    if (used != s.size() || v <= 0) return false;
    *out = v;
    return true;
  } catch (...) {
    return false;
  }
}

std::optional<SpecMethod> SpecMethodFromVllm(const std::string& m) {
  if (m == "eagle3") return SpecMethod::kEagle3;
  if (m == "eagle") return SpecMethod::kEagle;
  if (m == "ngram") return SpecMethod::kNgram;
  if (m == "draft_model") return SpecMethod::kDraftModel;
  if (m == "mtp" || (m.size() > 4 && m.substr(m.size() - 4) == "_mtp")) return SpecMethod::kMtp;
  return std::nullopt;
}

// Lifts owned flags of `serve_args` into `serve`; returns problems as messages.
std::vector<std::string> LiftServeArgs(const std::string& serve_args, ServeSpec* serve) {
  std::vector<std::string> problems, tokens;
  std::istringstream in(serve_args);
  for (std::string t; in >> t;) tokens.push_back(t);
  int dp = 1;
  bool expert_parallel = false;
  std::string method;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string& tok = tokens[i];
    if (tok.size() < 2 || tok[0] != '-') {
      serve->extra_args.push_back(tok);
      continue;
    }
    std::string name = tok, value;
    bool has_inline = false;
    if (auto eq = tok.find('='); eq != std::string::npos) {
      name = tok.substr(0, eq);
      value = tok.substr(eq + 1);
      has_inline = true;
    }
    std::string flag = FlagName(name);
    auto take_value = [&]() -> bool {
      if (has_inline) return true;
      if (i + 1 < tokens.size() && tokens[i + 1].rfind("--", 0) != 0) {
        value = tokens[++i];
        return true;
      }
      problems.push_back(fmt::format("{} needs a value", name));
      return false;
    };
    auto int_flag = [&](int* out) {
      if (!take_value()) return;
      if (!ParsePositive(value, out))
        problems.push_back(fmt::format("{} {}: expected an integer > 0", name, value));
    };
    if (flag == "tensor-parallel-size" || flag == "tp") {
      int_flag(&serve->tp);
    } else if (flag == "pipeline-parallel-size" || flag == "pp") {
      int_flag(&serve->pp);
    } else if (flag == "data-parallel-size" || flag == "dp") {
      int_flag(&dp);
    } else if (flag == "decode-context-parallel-size") {
      int_flag(&serve->dcp_size);
    } else if (flag == "prefill-context-parallel-size") {
      int_flag(&serve->pcp_size);
    } else if (flag == "max-model-len") {
      int_flag(&serve->max_model_len);
    } else if (flag == "enable-expert-parallel") {
      expert_parallel = true;
    } else if (flag == "kv-cache-dtype") {
      if (take_value()) serve->kv_cache_dtype = value;
    } else if (flag == "served-model-name") {
      if (take_value()) serve->served_model_name = value;
    } else if (flag.rfind("speculative-config.", 0) == 0) {
      std::string key = name.substr(name.find('.') + 1);
      if (!take_value()) continue;
      if (key == "method")
        method = value;
      else if (key == "model")
        serve->spec.draft_model = value;
      else if (key == "num_speculative_tokens" || key == "num-speculative-tokens") {
        if (!ParsePositive(value, &serve->spec.num_speculative_tokens))
          problems.push_back(fmt::format("{} {}: expected an integer > 0", name, value));
      } else
        serve->spec.extra[key] = value;
    } else if (flag == "speculative-config") {
      if (!take_value()) continue;
      try {
        auto obj = boost::json::parse(value).as_object();
        for (const auto& kv : obj) {
          std::string key(kv.key());
          const auto& v = kv.value();
          std::string text =
              v.is_string() ? std::string(v.get_string()) : boost::json::serialize(v);
          if (key == "method")
            method = text;
          else if (key == "model")
            serve->spec.draft_model = text;
          else if (key == "num_speculative_tokens" && v.is_int64())
            serve->spec.num_speculative_tokens = static_cast<int>(v.get_int64());
          else
            serve->spec.extra[key] = text;
        }
      } catch (const std::exception&) {
        problems.push_back(
            fmt::format("--speculative-config {}: not a JSON object without "
                        "spaces; use the dotted form "
                        "(--speculative-config.method eagle3)",
                        value));
      }
    } else {
      serve->extra_args.push_back(tok);
    }
  }
  serve->dp = dp;
  if (expert_parallel) serve->ep = serve->tp * dp;
  if (!method.empty()) {
    auto m = SpecMethodFromVllm(method);
    if (!m) {
      problems.push_back(
          fmt::format("--speculative-config method '{}' is not one of eagle, "
                      "eagle3, mtp, draft_model, ngram",
                      method));
    } else {
      serve->spec.method = *m;
      if (serve->spec.num_speculative_tokens < 1)
        problems.push_back("speculative decoding needs num_speculative_tokens >= 1");
    }
  } else if (!serve->spec.draft_model.empty() || serve->spec.num_speculative_tokens > 0) {
    problems.push_back("--speculative-config without a method");
  }
  return problems;
}

// vllm bench serve `args`: normalized `--key`; true → bare flag; false/null → omitted.
void ReadBenchArgs(const LoadContext& ctx, const YNode& args, const std::string& path,
                   LoadSpec* load, bool* ok) {
  if (!args.IsMap()) {
    ctx.Error(args, path, "expected a map of vllm bench serve option → value");
    *ok = false;
    return;
  }
  std::set<std::string> seen;
  for (const auto& [k, v] : args.entries) {
    std::string key = FlagName(k.scalar);
    std::string kpath = JoinPath(path, k.scalar);
    if (!seen.insert(key).second) {
      ctx.Error(k, kpath, fmt::format("--{} is given twice (after normalising - and _)", key));
      *ok = false;
      continue;
    }
    if (std::find(kReservedArgs.begin(), kReservedArgs.end(), key) != kReservedArgs.end()) {
      ctx.Error(k, kpath,
                fmt::format("--{} is set by the recipe itself (config fields); it may "
                            "not be passed in args",
                            key));
      *ok = false;
      continue;
    }
    if (key == "num-warmups") {
      auto n = v.AsInt();
      if (!n || *n < 0) {
        ctx.Error(v, kpath, "expected an integer >= 0");
        *ok = false;
      } else {
        load->num_warmups = static_cast<int>(*n);
      }
      continue;
    }
    if (key == "request-rate") {
      auto r = v.AsDouble();
      if (r && *r >= 0) {
        load->request_rate_per_s = *r;
        continue;
      }
      if (v.AsString() != "inf") {
        ctx.Error(v, kpath, "expected a rate >= 0 or inf");
        *ok = false;
      }
      continue;
    }
    if (v.IsNull() || v.AsBool() == false) continue;
    if (v.AsBool() == true) {
      load->extra_args.push_back("--" + key);
      continue;
    }
    if (v.IsSequence()) {
      for (const auto& item : v.items) {
        load->extra_args.push_back("--" + key);
        load->extra_args.push_back(item.IsScalar() ? item.scalar
                                                   : boost::json::serialize(YamlToJson(item)));
      }
      continue;
    }
    load->extra_args.push_back("--" + key);
    load->extra_args.push_back(v.IsScalar() ? v.scalar : boost::json::serialize(YamlToJson(v)));
  }
}

std::optional<Scenario> ReadBenchConfig(const LoadContext& ctx, const YNode& n,
                                        const std::string& path, const ServeSpec& serve) {
  FieldReader r(
      ctx, n, path,
      {"name", "input_len", "output_len", "num_prompts", "max_concurrency", "backend", "dataset",
       "repetitions", "args", "speed_bench_dataset_subset", "speed_bench_category"});
  if (!r.valid()) return std::nullopt;
  bool ok = true;
  Scenario s;
  auto name = r.String("name", true, true);
  auto isl = r.PositiveInt("input_len", true, limits::kMaxTokensPerRequest);
  auto osl = r.PositiveInt("output_len", true, limits::kMaxTokensPerRequest);
  s.name = name.value_or("");
  s.isl = static_cast<int>(isl.value_or(0));
  s.osl = static_cast<int>(osl.value_or(0));
  if (!name || !isl || !osl) ok = false;
  SearchEntry e;
  e.location = ctx.At(n);
  e.path = path;
  e.has_tp = true;
  e.tp = serve.tp;
  e.pp = serve.pp;
  e.dp = serve.dp;
  e.ep = serve.ep;
  e.dcp_size = serve.dcp_size;
  e.pcp_size = serve.pcp_size;
  const YNode* mc = r.Get("max_concurrency");
  bool conc_is_list = false;
  if (mc == nullptr) {
    r.Missing("max_concurrency");
    ok = false;
  } else if (mc->IsSequence()) {
    conc_is_list = true;
    if (mc->items.empty())
      ctx.Error(*mc, r.PathOf("max_concurrency"), "is an empty list"), ok = false;
    for (size_t i = 0; i < mc->items.size(); ++i) {
      auto v = mc->items[i].AsInt();
      if (!v || *v <= 0 || *v > limits::kMaxConcurrency) {
        ctx.Error(mc->items[i], IndexPath(r.PathOf("max_concurrency"), i),
                  fmt::format("expected a concurrency 1 .. {} (docs/limits.md)",
                              limits::kMaxConcurrency));
        ok = false;
        continue;
      }
      e.conc.list.push_back(static_cast<int>(*v));
    }
  } else if (auto v = r.PositiveInt("max_concurrency", false, limits::kMaxConcurrency)) {
    e.conc.list.push_back(static_cast<int>(*v));
  } else {
    ok = false;
  }
  const YNode* np = r.Get("num_prompts");
  if (np == nullptr) {
    r.Missing("num_prompts");
    ok = false;
  } else if (np->IsSequence()) {
    if (!conc_is_list) {
      ctx.Error(*np, r.PathOf("num_prompts"),
                "is a list but max_concurrency is not; a list of "
                "num_prompts pairs with a list of concurrencies");
      ok = false;
    } else if (np->items.size() != mc->items.size()) {
      ctx.Error(*np, r.PathOf("num_prompts"),
                fmt::format("has {} entries but max_concurrency has {}; they pair up one to one",
                            np->items.size(), mc->items.size()));
      ok = false;
    }
    for (size_t i = 0; i < np->items.size(); ++i) {
      auto v = np->items[i].AsInt();
      if (!v || *v <= 0 || *v > limits::kMaxPromptsPerRun) {
        ctx.Error(
            np->items[i], IndexPath(r.PathOf("num_prompts"), i),
            fmt::format("expected an integer 1 .. {} (docs/limits.md)", limits::kMaxPromptsPerRun));
        ok = false;
        continue;
      }
      s.num_prompts_per_conc.push_back(static_cast<int>(*v));
    }
  } else if (auto v = r.PositiveInt("num_prompts", false, limits::kMaxPromptsPerRun)) {
    s.load.num_prompts = static_cast<int>(*v);
  } else {
    ok = false;
  }
  if (auto b = r.Enum("backend", {"openai", "openai-chat"})) {
    s.load.backend = *b;
    s.load.endpoint = *b == "openai-chat" ? "/v1/chat/completions" : "/v1/completions";
  }
  auto dataset = r.Enum("dataset", {"random", "speed_bench"}).value_or("random");
  s.load.dataset = dataset;
  if (const YNode* rep = r.Get("repetitions")) {
    auto v = rep->AsInt();
    if (!v || *v < 1 || *v % 2 == 0 || *v > 99) {
      ctx.Error(*rep, r.PathOf("repetitions"),
                fmt::format("is {}; repetitions is a positive odd integer (the median is kept)",
                            rep->scalar));
      ok = false;
    } else {
      s.load.repetitions = static_cast<int>(*v);
    }
  }
  if (const YNode* args = r.Get("args")) ReadBenchArgs(ctx, *args, r.PathOf("args"), &s.load, &ok);
  // The subset and category become the client's flags in the load's extra arguments
  // (common/speed_bench_names.h), checked here against SPEED-Bench's names so a typo is
  // an error at its line; the file comes at plan time (--speed-bench-dir).
  std::string subset = "qualitative";  // perf-eval's default
  std::string category;
  if (auto v = r.String("speed_bench_dataset_subset", false, true)) subset = *v;
  if (auto v = r.String("speed_bench_category", false, true)) category = *v;
  for (const char* k : {"speed_bench_dataset_subset", "speed_bench_category"}) {
    if (r.Has(k) && dataset != "speed_bench") {
      r.ErrorAt(k, "is only for dataset: speed_bench");
      ok = false;
    }
  }
  if (dataset == "speed_bench") {
    const std::vector<std::string>& categories = SpeedBenchCategories(subset);
    if (categories.empty()) {
      r.ErrorAt("speed_bench_dataset_subset", fmt::format("'{}' is not a SPEED-Bench subset ({})",
                                                          subset, JoinNames(SpeedBenchSubsets())));
      ok = false;
    } else if (!category.empty() &&
               std::find(categories.begin(), categories.end(), category) == categories.end()) {
      r.ErrorAt("speed_bench_category", fmt::format("'{}' is not a category of the {} subset ({})",
                                                    category, subset, JoinNames(categories)));
      ok = false;
    }
    s.load.extra_args.emplace_back(kSpeedBenchSubsetFlag);
    s.load.extra_args.push_back(subset);
    if (!category.empty()) {
      s.load.extra_args.emplace_back(kSpeedBenchCategoryFlag);
      s.load.extra_args.push_back(category);
    }
  }
  s.load.ignore_eos = dataset == "random";
  if (!ok) return std::nullopt;
  s.search_space.push_back(std::move(e));
  return s;
}

}  // namespace

std::vector<Recipe> LoadNightly(const LoadContext& ctx, const YNode& root) {
  FieldReader r(ctx, root, "",
                {"name", "gpu", "num_gpus", "nightly", "timeout_in_minutes", "bench_only", "vllm",
                 "lm_eval", "vllm_bench", "bfcl"});
  if (!r.valid()) return {};
  bool ok = true;
  Recipe recipe;
  recipe.source_format = "nightly";
  recipe.location = ctx.At(root);
  auto name = r.String("name");
  if (!name || name->empty()) {
    // perf-eval names results after the file when `name` is empty.
    std::string base = ctx.file.substr(ctx.file.find_last_of('/') + 1);
    name = base.substr(0, base.find('.'));
  }
  recipe.name = *name;
  auto gpu = r.Enum("gpu", kGpus, true);
  if (!gpu) ok = false;
  auto num_gpus = r.PositiveInt("num_gpus");
  recipe.nightly = r.Bool("nightly").value_or(false);
  if (auto t = r.PositiveInt("timeout_in_minutes")) (void)t;
  bool bench_only = r.Bool("bench_only").value_or(false);
  ServeSpec& s = recipe.serve;
  s.engine = "vllm";
  s.framework = "vllm";
  s.readiness_timeout_s = 3600;  // perf-eval polls /health for up to an hour
  s.hardware = Lower(gpu.value_or(""));
  recipe.runner = s.hardware;
  const YNode* vllm = r.Get("vllm");
  if (vllm == nullptr) {
    r.Missing("vllm");
    ok = false;
  } else {
    FieldReader v(ctx, *vllm, "vllm", {"model", "image", "env", "serve_args"});
    auto model = v.String("model", true, true);
    if (!model) ok = false;
    s.model = model.value_or("");
    bool amd = gpu && gpu->rfind("MI", 0) == 0;
    s.image = v.String("image", false, true)
                  .value_or(amd ? "vllm/vllm-openai-rocm:nightly" : "vllm/vllm-openai:nightly");
    if (auto env = v.StringMap("env"))
      for (const auto& [k, val] : *env) s.env[k] = val;
    if (auto args = v.String("serve_args")) {
      for (const auto& problem : LiftServeArgs(*args, &s)) {
        v.ErrorAt("serve_args", problem);
        ok = false;
      }
    }
  }
  if (num_gpus && s.tp * s.pp * s.dp > *num_gpus) {
    r.ErrorAt("num_gpus", fmt::format("is {} but serve_args ask for tp×pp×dp = {} GPUs", *num_gpus,
                                      s.tp * s.pp * s.dp));
    ok = false;
  }
  std::string precision;
  for (const char* p : {"fp4", "fp8", "int4", "int8", "bf16", "fp16"})
    if (precision.empty() && Lower(s.model).find(p) != std::string::npos) precision = p;
  s.precision = precision.empty() ? "bf16" : precision;
  bool any_work = false;
  if (const YNode* lm = r.Get("lm_eval")) {
    FieldReader l(ctx, *lm, "lm_eval", {"model_args", "tasks"});
    std::map<std::string, std::string> defaults;
    if (const YNode* ma = l.Get("model_args")) {
      if (!ma->IsMap())
        ctx.Error(*ma, "lm_eval.model_args", "expected a map"), ok = false;
      else
        for (const auto& [k, v] : ma->entries)
          defaults[k.scalar] = v.IsScalar() ? v.scalar : boost::json::serialize(YamlToJson(v));
    }
    if (const YNode* tasks = l.Get("tasks")) {
      if (!tasks->IsSequence()) {
        ctx.Error(*tasks, "lm_eval.tasks", "expected a list of {name, num_fewshot, model_args}");
        ok = false;
      } else {
        for (size_t i = 0; i < tasks->items.size(); ++i) {
          std::string tpath = IndexPath("lm_eval.tasks", i);
          FieldReader t(ctx, tasks->items[i], tpath, {"name", "num_fewshot", "model_args"});
          auto tname = t.String("name", true, true);
          if (!tname) {
            ok = false;
            continue;
          }
          EvalTask task{*tname, -1, defaults};
          if (auto f = t.Int("num_fewshot")) {
            if (*f < 0) t.ErrorAt("num_fewshot", "must be >= 0"), ok = false;
            task.num_fewshot = static_cast<int>(*f);
          }
          if (const YNode* ma = t.Get("model_args")) {
            if (!ma->IsMap())
              ctx.Error(*ma, t.PathOf("model_args"), "expected a map"), ok = false;
            else
              for (const auto& [k, v] : ma->entries)
                task.model_args[k.scalar] =
                    v.IsScalar() ? v.scalar : boost::json::serialize(YamlToJson(v));
          }
          if (!bench_only) recipe.evals.push_back(std::move(task));
          any_work = true;
        }
      }
    }
  }
  if (const YNode* bfcl = r.Get("bfcl")) {
    FieldReader b(
        ctx, *bfcl, "bfcl",
        {"test_categories", "num_threads", "temperature", "maximum_step_limit", "max_test_cases"});
    b.StringList("test_categories");
    b.PositiveInt("num_threads");
    b.Double("temperature");
    b.PositiveInt("maximum_step_limit");
    if (!bench_only) recipe.evals.push_back(EvalTask{"bfcl", -1, {}});
    any_work = true;
  }
  recipe.eval_at = "once";  // evals run once per server, after every bench run
  if (const YNode* vb = r.Get("vllm_bench")) {
    FieldReader b(ctx, *vb, "vllm_bench", {"metadata", "configs"});
    if (const YNode* md = b.Get("metadata")) {
      FieldReader m(ctx, *md, "vllm_bench.metadata", {"device", "tp", "precision"});
      m.String("device", false, true);
      m.PositiveInt("tp");
      if (auto p = m.String("precision", false, true)) s.precision = *p;
    }
    if (const YNode* configs = b.Get("configs")) {
      if (!configs->IsSequence()) {
        ctx.Error(*configs, "vllm_bench.configs", "expected a list of bench configs");
        ok = false;
      } else {
        std::set<std::string> run_names;
        for (size_t i = 0; i < configs->items.size(); ++i) {
          std::string cpath = IndexPath("vllm_bench.configs", i);
          auto sc = ReadBenchConfig(ctx, configs->items[i], cpath, s);
          if (!sc) {
            ok = false;
            continue;
          }
          for (int c : sc->search_space[0].conc.list) {
            std::string run = fmt::format("{}-conc-{}", sc->name, c);
            if (!run_names.insert(run).second) {
              ctx.Error(configs->items[i], cpath,
                        fmt::format("run name '{}' is used twice; names + concurrencies must be "
                                    "unique",
                                    run));
              ok = false;
            }
          }
          recipe.scenarios.push_back(std::move(*sc));
          any_work = true;
        }
      }
    }
  }
  if (!any_work) {
    ctx.Error(root, "", "nothing to run: give lm_eval.tasks, vllm_bench.configs or bfcl");
    ok = false;
  }
  recipe.model = s.model;
  recipe.image = s.image;
  recipe.precision = s.precision;
  recipe.framework = "vllm";
  recipe.model_prefix = recipe.name;
  if (!ok) return {};
  return {std::move(recipe)};
}

}  // namespace servebench::recipe
