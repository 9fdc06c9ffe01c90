// llama.cpp server:
//   llama-server -m MODEL --host H --port P --metrics [--alias N] [-np S] [-sm row|layer]
//     [-c L×S] [-ctk D -ctv D] EXTRA_ARGS [--spec-type T [-md DRAFT] --spec-draft-n-max N]
//     [--spec-synth-len AL]
// Tensor parallelism is `-sm row` (split rows across GPUs), pipeline `-sm layer`;
// llama.cpp has no data/expert parallelism or DP attention (engines.md §1).
// Slots: llama-server decodes at most -np sequences at once and queues the rest, so
// S is the session's highest concurrency (RenderOptions::max_concurrency). Its -c is
// the context of all slots together (each gets c / S), so max_model_len L becomes
// -c L×S. --metrics is always on: /metrics is off without it, and the run reads the
// llamacpp: counters (speculative acceptance, the engine's own per-token time).
#include <fmt/format.h>

#include <algorithm>

#include "engine/adapter.h"
#include "engine/adapters_internal.h"

namespace servebench::engine::internal {

Status RenderLlamacpp(const RenderContext& ctx, ServerCommand& out) {
  using recipe::SpecMethod;
  const auto& s = ctx.spec;
  const auto& t = ctx.table;
  if (s.dp > 1)
    return Unsupported(t.engine, "dp", std::to_string(s.dp),
                       "no data parallelism; slots are not DP");
  if (s.ep > 1) return Unsupported(t.engine, "ep", std::to_string(s.ep), "no expert parallelism");
  if (s.dp_attn) return Unsupported(t.engine, "dp_attn", "true", "no DP attention");
  if (s.dcp_size > 1 || s.pcp_size > 1) {
    return Unsupported(t.engine, "dcp_size/pcp_size", fmt::format("{}/{}", s.dcp_size, s.pcp_size),
                       "no context parallelism");
  }
  if (s.tp > 1 && s.pp > 1) {
    return Unsupported(t.engine, "tp/pp", fmt::format("{}/{}", s.tp, s.pp),
                       "one split mode at a time");
  }
  auto& argv = out.argv;
  argv = t.command;
  AddFlag(argv, t.Flag("model"), s.model);
  out.input_files.push_back({s.model, "serve.model"});
  AddFlag(argv, t.Flag("host"), ctx.host);
  AddFlag(argv, t.Flag("port"), std::to_string(ctx.port));
  argv.push_back(t.Flag("metrics"));
  if (!s.served_model_name.empty()) AddFlag(argv, t.Flag("served_model_name"), s.served_model_name);
  int slots = std::max(1, ctx.options.max_concurrency);
  if (ctx.options.max_concurrency > 0) AddFlag(argv, t.Flag("parallel"), std::to_string(slots));
  if (s.tp > 1) AddFlag(argv, t.Flag("split_mode"), "row");
  if (s.pp > 1) AddFlag(argv, t.Flag("split_mode"), "layer");
  if (s.max_model_len > 0) {
    AddFlag(argv, t.Flag("max_model_len"),
            std::to_string(static_cast<int64_t>(s.max_model_len) * slots));
  }
  if (!s.kv_cache_dtype.empty()) {
    if (s.kv_cache_dtype.rfind("fp8", 0) == 0) {
      return Unsupported(t.engine, "kv_cache_dtype", s.kv_cache_dtype,
                         "llama.cpp cache types are q8_0, q4_0, f16, bf16, ...");
    }
    AddFlag(argv, t.Flag("cache_type_k"), s.kv_cache_dtype);
    AddFlag(argv, t.Flag("cache_type_v"), s.kv_cache_dtype);
  }
  argv.insert(argv.end(), s.extra_args.begin(), s.extra_args.end());

  const auto& spec = s.spec;
  if (spec.method == SpecMethod::kNone) return Status::Ok();
  std::string type;
  switch (spec.method) {
    case SpecMethod::kEagle3:
      type = "draft-eagle3";
      break;
    case SpecMethod::kMtp:
      type = "draft-mtp";
      break;
    case SpecMethod::kDraftModel:
      type = "draft-simple";
      break;
    default:
      return Unsupported(t.engine, "spec.method", SpecMethodName(spec.method),
                         "llama.cpp speculative types are eagle3, mtp and draft_model");
  }
  AddFlag(argv, t.Flag("spec_type"), type);
  if (!spec.draft_model.empty()) {
    AddFlag(argv, t.Flag("draft_model"), spec.draft_model);
    out.input_files.push_back({spec.draft_model, "serve.spec.draft_model"});
  }
  AddFlag(argv, t.Flag("spec_draft_n_max"), std::to_string(spec.num_speculative_tokens));
  for (const auto& [key, value] : spec.extra) {
    std::string flag = "--" + key;
    for (char& c : flag) c = c == '_' ? '-' : c;
    AddFlag(argv, flag, value);
  }
  // --spec-synth-len counts the target's token too: it is the acceptance length itself.
  if (IsSynthetic(spec))
    AddFlag(argv, t.Flag("spec_synth_len"), FormatDecimal(spec.synthetic_acceptance_length));
  return Status::Ok();
}

}  // namespace servebench::engine::internal
