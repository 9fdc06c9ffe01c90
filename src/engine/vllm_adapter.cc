// vLLM and the simulated engine (which takes vLLM's flag names), plus the
// speculative-decoding checks every adapter shares.
//
//   vllm serve MODEL --host H --port P [--served-model-name N] --tensor-parallel-size TP
//     [--pipeline-parallel-size PP] [--data-parallel-size DP] [--enable-expert-parallel]
//     [--decode-/--prefill-context-parallel-size] [--max-model-len L] [--kv-cache-dtype D]
//     EXTRA_ARGS  --speculative-config.method M --speculative-config.model DRAFT
//     --speculative-config.num_speculative_tokens N [... synthetic acceptance]
//
// The speculative config comes last, in vLLM's dotted form, so a perf-eval workload
// (`vllm serve <model> --port <port> <serve_args>`) renders with its flags in its order.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>

#include "engine/adapter.h"
#include "engine/adapters_internal.h"

namespace servebench::engine::internal {
namespace {

using recipe::SpecMethod;

// vLLM: DP attention is TP 1 x DP N with expert parallelism (no separate flag).
Status AddVllmParallelism(const RenderContext& ctx, std::vector<std::string>& argv, bool with_pp) {
  const auto& s = ctx.spec;
  const auto& t = ctx.table;
  int tp = s.tp, dp = s.dp;
  bool expert = s.ep > 1;
  if (s.dp_attn) {
    tp = 1;
    dp = s.tp * s.dp;
    expert = true;
  }
  if (s.ep > 1 && s.ep != s.tp * s.dp) {
    return Unsupported(ctx.table.engine, "ep", std::to_string(s.ep),
                       fmt::format("expert parallelism spans TP x DP = {}", s.tp * s.dp));
  }
  AddFlag(argv, t.Flag("tensor_parallel"), std::to_string(tp));
  if (s.pp > 1) {
    if (!with_pp)
      return Unsupported(ctx.table.engine, "pp", std::to_string(s.pp), "no pipeline parallelism");
    AddFlag(argv, t.Flag("pipeline_parallel"), std::to_string(s.pp));
  }
  if (dp > 1) AddFlag(argv, t.Flag("data_parallel"), std::to_string(dp));
  if (expert) argv.push_back(t.Flag("expert_parallel"));
  return Status::Ok();
}

std::string VllmMethod(SpecMethod method) { return std::string(SpecMethodName(method)); }

// A JSON value for a spec extra: numbers and booleans bare, anything else a string.
std::string JsonValue(const std::string& value) {
  if (value == "true" || value == "false") return value;
  char* end = nullptr;
  std::strtod(value.c_str(), &end);
  if (!value.empty() && end != nullptr && *end == '\0') return value;
  std::string out = "\"";
  for (char c : value) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// The speculative config as (key, JSON value) pairs in rendering order.
std::vector<std::pair<std::string, std::string>> VllmSpecConfig(const recipe::SpecDecoding& spec) {
  std::vector<std::pair<std::string, std::string>> kv;
  kv.emplace_back("method", VllmMethod(spec.method));
  if (!spec.draft_model.empty()) kv.emplace_back("model", spec.draft_model);
  if (spec.num_speculative_tokens > 0) {
    kv.emplace_back("num_speculative_tokens", std::to_string(spec.num_speculative_tokens));
  }
  for (const auto& [key, value] : spec.extra) kv.emplace_back(key, value);
  if (IsSynthetic(spec)) {
    kv.emplace_back("rejection_sample_method", "synthetic");
    kv.emplace_back("synthetic_acceptance_length", FormatDecimal(spec.synthetic_acceptance_length));
  }
  return kv;
}

Status AddCommon(const RenderContext& ctx, ServerCommand& out) {
  const auto& s = ctx.spec;
  const auto& t = ctx.table;
  auto& argv = out.argv;
  AddFlag(argv, t.Flag("host"), ctx.host);
  AddFlag(argv, t.Flag("port"), std::to_string(ctx.port));
  if (!s.served_model_name.empty()) AddFlag(argv, t.Flag("served_model_name"), s.served_model_name);
  SB_RETURN_IF_ERROR(AddVllmParallelism(ctx, argv, t.engine == "vllm"));
  if (s.dcp_size > 1 || s.pcp_size > 1) {
    if (t.engine != "vllm") {
      return Unsupported(t.engine, "dcp_size/pcp_size",
                         fmt::format("{}/{}", s.dcp_size, s.pcp_size), "no context parallelism");
    }
    if (s.dcp_size > 1)
      AddFlag(argv, t.Flag("decode_context_parallel"), std::to_string(s.dcp_size));
    if (s.pcp_size > 1)
      AddFlag(argv, t.Flag("prefill_context_parallel"), std::to_string(s.pcp_size));
  }
  if (s.max_model_len > 0) AddFlag(argv, t.Flag("max_model_len"), std::to_string(s.max_model_len));
  if (!s.kv_cache_dtype.empty()) AddFlag(argv, t.Flag("kv_cache_dtype"), s.kv_cache_dtype);
  return Status::Ok();
}

}  // namespace

bool IsSynthetic(const recipe::SpecDecoding& spec) {
  return spec.method != SpecMethod::kNone && spec.acceptance != recipe::AcceptanceMode::kReal;
}

Status Unsupported(std::string_view engine, std::string_view field, std::string_view value,
                   std::string_view why) {
  return Status::InvalidArgument(fmt::format("serve.{} = {}: the {} adapter cannot express it ({})",
                                             field, value, engine, why));
}

Status CheckSpec(const recipe::SpecDecoding& spec, std::string_view engine) {
  if (spec.method == SpecMethod::kNone) {
    if (spec.acceptance != recipe::AcceptanceMode::kReal) {
      return Status::InvalidArgument(
          "serve.spec.acceptance is synthetic but serve.spec.method is none: synthetic acceptance "
          "needs a speculative method");
    }
    return Status::Ok();
  }
  const std::string_view method = SpecMethodName(spec.method);
  // vLLM's MTP takes its depth from the model (num_nextn_predict_layers) when the
  // recipe leaves it out, as InferenceX master configs do; every other case needs N.
  const bool engine_default_depth =
      engine == "vllm" && spec.method == SpecMethod::kMtp && !IsSynthetic(spec);
  if (spec.num_speculative_tokens < 1 &&
      !(engine_default_depth && spec.num_speculative_tokens == 0)) {
    return Status::InvalidArgument(
        fmt::format("serve.spec.num_speculative_tokens = {}: must be >= 1 with method {}",
                    spec.num_speculative_tokens, method));
  }
  const bool needs_draft = spec.method == SpecMethod::kEagle ||
                           spec.method == SpecMethod::kEagle3 ||
                           spec.method == SpecMethod::kDraftModel;
  if (needs_draft && spec.draft_model.empty()) {
    return Status::InvalidArgument(
        fmt::format("serve.spec.draft_model is empty: method {} needs a draft model (engine {})",
                    method, engine));
  }
  if (IsSynthetic(spec)) {
    const double al = spec.synthetic_acceptance_length;
    const double max_al = spec.num_speculative_tokens + 1.0;
    if (!(al >= 1.0 && al <= max_al)) {
      return Status::InvalidArgument(
          fmt::format("serve.spec.synthetic_acceptance_length = {}: must be in [1, "
                      "num_speculative_tokens + 1 = {}] "
                      "(accepted drafts + 1 per step)",
                      FormatDecimal(al), FormatDecimal(max_al)));
    }
  }
  return Status::Ok();
}

Status RenderVllm(const RenderContext& ctx, ServerCommand& out) {
  out.argv = ctx.table.command;
  out.argv.push_back(ctx.spec.model);
  SB_RETURN_IF_ERROR(AddCommon(ctx, out));
  out.argv.insert(out.argv.end(), ctx.spec.extra_args.begin(), ctx.spec.extra_args.end());
  if (ctx.spec.spec.method != SpecMethod::kNone) {
    const std::string& flag = ctx.table.Flag("speculative_config");
    for (const auto& [key, value] : VllmSpecConfig(ctx.spec.spec))
      AddFlag(out.argv, flag + "." + key, value);
  }
  return Status::Ok();
}

Status RenderSim(const RenderContext& ctx, ServerCommand& out) {
  std::string bin = ctx.options.servebench_bin;
  if (bin.empty()) {
    char buf[4096];
    ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
    bin = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "servebench";
  }
  out.argv = {bin};
  out.argv.insert(out.argv.end(), ctx.table.command.begin(), ctx.table.command.end());
  AddFlag(out.argv, ctx.table.Flag("model"), ctx.spec.model);
  SB_RETURN_IF_ERROR(AddCommon(ctx, out));
  // The sim's catalogue is keyed by servebench's hardware and precision names; an
  // explicit sim option wins.
  auto has_option = [&](const std::string& name) {
    return ctx.spec.sim_options.count(name) > 0 || ctx.spec.sim_options.count("--" + name) > 0;
  };
  if (!ctx.spec.hardware.empty() && !has_option("hardware"))
    AddFlag(out.argv, "--hardware", ctx.spec.hardware);
  if (!ctx.spec.precision.empty() && !has_option("precision") && !has_option("quantization")) {
    AddFlag(out.argv, "--precision", ctx.spec.precision);
  }
  out.argv.insert(out.argv.end(), ctx.spec.extra_args.begin(), ctx.spec.extra_args.end());
  for (const auto& [key, value] : ctx.spec.sim_options) {
    out.argv.push_back(key.rfind("-", 0) == 0 ? key : "--" + key);
    if (!value.empty()) out.argv.push_back(value);
  }
  if (ctx.spec.spec.method != SpecMethod::kNone) {
    // The sim takes the whole config as one JSON value (no dotted form).
    std::string json = "{";
    for (const auto& [key, value] : VllmSpecConfig(ctx.spec.spec)) {
      json += fmt::format("{}\"{}\":{}", json.size() > 1 ? "," : "", key, JsonValue(value));
    }
    AddFlag(out.argv, ctx.table.Flag("speculative_config"), json + "}");
  }
  return Status::Ok();
}

}  // namespace servebench::engine::internal
