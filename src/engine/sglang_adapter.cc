// SGLang:
//   python3 -m sglang.launch_server --model-path MODEL --host H --port P
//     [--served-model-name N] --tensor-parallel-size TP [--pp-size PP]
//     [--dp-size DP | --dp-size TP --enable-dp-attention --enable-dp-lm-head] [--ep-size EP]
//     [--context-length L] [--kv-cache-dtype D] EXTRA_ARGS
//     [--speculative-algorithm A [--speculative-draft-model-path DRAFT]
//      --speculative-num-steps N --speculative-eagle-topk K --speculative-num-draft-tokens T]
// Synthetic acceptance: env SGLANG_SIMULATE_ACC_LEN=AL with METHOD=match-expected and
// TOKEN_MODE=real-draft-token (engines.md §2).
#include <fmt/format.h>

#include "engine/adapter.h"
#include "engine/adapters_internal.h"

namespace servebench::engine::internal {
namespace {

using recipe::SpecMethod;

std::string Algorithm(SpecMethod method) {
  switch (method) {
    case SpecMethod::kEagle3:
      return "EAGLE3";
    case SpecMethod::kEagle:
      return "EAGLE";
    case SpecMethod::kMtp:
      return "EAGLE";  // DeepSeek-style MTP runs as EAGLE in SGLang
    case SpecMethod::kDraftModel:
      return "STANDALONE";
    case SpecMethod::kNgram:
      return "NGRAM";
    case SpecMethod::kNone:
      break;
  }
  return "";
}

// vLLM's "fp8" is SGLang's "fp8_e4m3"; other values pass through.
std::string KvDtype(const std::string& dtype) { return dtype == "fp8" ? "fp8_e4m3" : dtype; }

}  // namespace

Status RenderSglang(const RenderContext& ctx, ServerCommand& out) {
  const auto& s = ctx.spec;
  const auto& t = ctx.table;
  auto& argv = out.argv;
  argv = t.command;
  AddFlag(argv, t.Flag("model"), s.model);
  AddFlag(argv, t.Flag("host"), ctx.host);
  AddFlag(argv, t.Flag("port"), std::to_string(ctx.port));
  if (!s.served_model_name.empty()) AddFlag(argv, t.Flag("served_model_name"), s.served_model_name);
  AddFlag(argv, t.Flag("tensor_parallel"), std::to_string(s.tp));
  if (s.pp > 1) AddFlag(argv, t.Flag("pipeline_parallel"), std::to_string(s.pp));
  if (s.dp_attn) {
    // DP attention: --dp-size equals TP (InferenceX also enables the DP LM head).
    if (s.dp != 1 && s.dp != s.tp) {
      return Unsupported(t.engine, "dp", std::to_string(s.dp), "with dp_attn the DP size is TP");
    }
    AddFlag(argv, t.Flag("data_parallel"), std::to_string(s.tp));
    argv.push_back(t.Flag("dp_attention"));
    argv.push_back(t.Flag("dp_lm_head"));
  } else if (s.dp > 1) {
    AddFlag(argv, t.Flag("data_parallel"), std::to_string(s.dp));
  }
  if (s.ep > 1) AddFlag(argv, t.Flag("expert_parallel"), std::to_string(s.ep));
  if (s.dcp_size > 1 || s.pcp_size > 1) {
    return Unsupported(t.engine, "dcp_size/pcp_size", fmt::format("{}/{}", s.dcp_size, s.pcp_size),
                       "no context parallelism");
  }
  if (s.max_model_len > 0) AddFlag(argv, t.Flag("max_model_len"), std::to_string(s.max_model_len));
  if (!s.kv_cache_dtype.empty()) AddFlag(argv, t.Flag("kv_cache_dtype"), KvDtype(s.kv_cache_dtype));
  argv.insert(argv.end(), s.extra_args.begin(), s.extra_args.end());

  const auto& spec = s.spec;
  if (spec.method == SpecMethod::kNone) return Status::Ok();
  // A chain (top-k 1) of N steps proposes N + 1 tokens including the root; the
  // recipe may override either through serve.spec.extra.
  auto extra = spec.extra;
  std::string topk = "1";
  std::string draft_tokens = std::to_string(spec.num_speculative_tokens + 1);
  if (auto it = extra.find("eagle_topk"); it != extra.end()) {
    topk = it->second;
    extra.erase(it);
  }
  if (auto it = extra.find("num_draft_tokens"); it != extra.end()) {
    draft_tokens = it->second;
    extra.erase(it);
  }
  AddFlag(argv, t.Flag("speculative_algorithm"), Algorithm(spec.method));
  if (!spec.draft_model.empty()) AddFlag(argv, t.Flag("speculative_draft_model"), spec.draft_model);
  AddFlag(argv, t.Flag("speculative_num_steps"), std::to_string(spec.num_speculative_tokens));
  AddFlag(argv, t.Flag("speculative_eagle_topk"), topk);
  AddFlag(argv, t.Flag("speculative_num_draft_tokens"), draft_tokens);
  for (const auto& [key, value] : extra) {
    std::string flag = "--speculative-" + key;
    for (char& c : flag) c = c == '_' ? '-' : c;
    AddFlag(argv, flag, value);
  }
  if (IsSynthetic(spec)) {
    out.env[t.Env("synthetic_acceptance_length")] = FormatDecimal(spec.synthetic_acceptance_length);
    for (const auto& [name, value] : t.synthetic_env) out.env[name] = value;
  }
  return Status::Ok();
}

}  // namespace servebench::engine::internal
