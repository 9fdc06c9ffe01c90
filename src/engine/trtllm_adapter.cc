// TensorRT-LLM:
//   trtllm-serve MODEL --host H --port P --backend pytorch --tp_size TP [--pp_size PP]
//     [--ep_size EP] [--max_seq_len L] [--config WORK_DIR/trtllm-config.yaml] EXTRA_ARGS
// with the config file holding what has no CLI flag: enable_attention_dp,
// kv_cache_config.dtype and speculative_config. Synthetic acceptance:
// env TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS = AL - 1 — off by one on purpose: the
// knob counts accepted draft tokens only, AL also counts the target's token
// (engines.md §2; the fractional part is the probability of one more).
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "engine/adapter.h"
#include "engine/adapters_internal.h"

namespace servebench::engine::internal {
namespace {

using recipe::SpecMethod;

std::string DecodingType(SpecMethod method) {
  switch (method) {
    case SpecMethod::kEagle3:
      return "Eagle3";
    case SpecMethod::kEagle:
      return "Eagle";
    case SpecMethod::kMtp:
      return "MTP";
    case SpecMethod::kDraftModel:
      return "DraftTarget";
    case SpecMethod::kNgram:
      return "NGram";
    case SpecMethod::kNone:
      break;
  }
  return "";
}

std::string ConfigYaml(const recipe::ServeSpec& s) {
  YAML::Emitter y;
  y << YAML::BeginMap;
  if (s.dp_attn) y << YAML::Key << "enable_attention_dp" << YAML::Value << true;
  if (!s.kv_cache_dtype.empty()) {
    y << YAML::Key << "kv_cache_config" << YAML::Value << YAML::BeginMap;
    y << YAML::Key << "dtype" << YAML::Value << s.kv_cache_dtype << YAML::EndMap;
  }
  const auto& spec = s.spec;
  if (spec.method != SpecMethod::kNone) {
    y << YAML::Key << "speculative_config" << YAML::Value << YAML::BeginMap;
    y << YAML::Key << "decoding_type" << YAML::Value << DecodingType(spec.method);
    if (spec.method == SpecMethod::kMtp) {
      y << YAML::Key << "num_nextn_predict_layers" << YAML::Value << spec.num_speculative_tokens;
    } else {
      y << YAML::Key << "max_draft_len" << YAML::Value << spec.num_speculative_tokens;
    }
    if (!spec.draft_model.empty())
      y << YAML::Key << "speculative_model" << YAML::Value << spec.draft_model;
    for (const auto& [key, value] : spec.extra) {
      y << YAML::Key << key << YAML::Value << value;  // plain scalar: "4" reads as 4
    }
    y << YAML::EndMap;
  }
  y << YAML::EndMap;
  return std::string(y.c_str()) + "\n";
}

}  // namespace

Status RenderTrtllm(const RenderContext& ctx, ServerCommand& out) {
  const auto& s = ctx.spec;
  const auto& t = ctx.table;
  if (s.dp > 1 && !s.dp_attn) {
    return Unsupported(t.engine, "dp", std::to_string(s.dp),
                       "no plain data parallelism; use dp_attn");
  }
  if (s.dcp_size > 1 || s.pcp_size > 1) {
    return Unsupported(t.engine, "dcp_size/pcp_size", fmt::format("{}/{}", s.dcp_size, s.pcp_size),
                       "no context parallelism");
  }
  if (!s.served_model_name.empty() && s.served_model_name != s.model) {
    return Unsupported(t.engine, "served_model_name", s.served_model_name,
                       "trtllm-serve serves the model under its own name");
  }
  auto& argv = out.argv;
  argv = t.command;
  argv.push_back(s.model);
  AddFlag(argv, t.Flag("host"), ctx.host);
  AddFlag(argv, t.Flag("port"), std::to_string(ctx.port));
  AddFlag(argv, t.Flag("backend"), "pytorch");
  AddFlag(argv, t.Flag("tensor_parallel"), std::to_string(s.tp));
  if (s.pp > 1) AddFlag(argv, t.Flag("pipeline_parallel"), std::to_string(s.pp));
  if (s.ep > 1) AddFlag(argv, t.Flag("expert_parallel"), std::to_string(s.ep));
  if (s.max_model_len > 0) AddFlag(argv, t.Flag("max_model_len"), std::to_string(s.max_model_len));
  if (s.dp_attn || !s.kv_cache_dtype.empty() || s.spec.method != SpecMethod::kNone) {
    std::string dir = ctx.options.work_dir.empty() ? "." : ctx.options.work_dir;
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    ConfigFile file{dir + "/trtllm-config.yaml", ConfigYaml(s)};
    AddFlag(argv, t.Flag("config"), file.path);
    out.files.push_back(std::move(file));
  }
  argv.insert(argv.end(), s.extra_args.begin(), s.extra_args.end());
  if (IsSynthetic(s.spec)) {
    out.env[t.Env("forced_accepted_tokens")] =
        FormatDecimal(s.spec.synthetic_acceptance_length - 1.0);
  }
  return Status::Ok();
}

}  // namespace servebench::engine::internal
