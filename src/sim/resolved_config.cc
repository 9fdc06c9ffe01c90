#include "sim/resolved_config.h"

#include <fmt/format.h>

#include "config/golden_al.h"

namespace servebench::sim {

StatusOr<ResolvedConfig> Resolve(const SimSettings& s) {
  SB_ASSIGN_OR_RETURN(Catalogue catalogue, s.catalogue_dir.empty()
                                               ? Catalogue::BuiltIn()
                                               : Catalogue::FromDir(s.catalogue_dir));
  return Resolve(s, catalogue);
}

StatusOr<ResolvedConfig> Resolve(const SimSettings& s, const Catalogue& catalogue) {
  ResolvedConfig r;
  r.catalogue = catalogue;
  SB_ASSIGN_OR_RETURN(const Model* model, r.catalogue.FindModel(s.model));
  SB_ASSIGN_OR_RETURN(const Hardware* hardware, r.catalogue.FindHardware(s.hardware));
  SB_ASSIGN_OR_RETURN(const EngineProfile* profile, r.catalogue.FindEngine(s.engine_profile));
  r.model = *model;
  r.hardware = *hardware;
  r.engine_profile = *profile;
  // As vLLM serves the name it was given: a hub name or alias is served as given, a
  // catalogue key under the model's hub name.
  r.served_name = !s.served_model_name.empty() ? s.served_model_name
                  : s.model == model->name     ? model->hf_name
                                               : s.model;
  r.max_model_len = s.max_model_len > 0 ? s.max_model_len : model->max_context;
  if (r.max_model_len > model->max_context) {
    return Status::InvalidArgument(fmt::format("--max-model-len {}: above {}'s maximum context {}",
                                               r.max_model_len, model->name, model->max_context));
  }
  PerfSettings perf;
  perf.tensor_parallel = s.tensor_parallel_size;
  perf.data_parallel = s.data_parallel_size;
  perf.expert_parallel = s.enable_expert_parallel;
  perf.precision = s.precision;
  perf.kv_cache_dtype = s.kv_cache_dtype;
  perf.gpu_memory_utilization = s.gpu_memory_utilization;
  perf.num_speculative_tokens = s.spec.num_speculative_tokens;
  perf.spec_method = s.spec.method;
  perf.build_slowdown = s.build_slowdown;
  perf.kv_offload_gb_per_s = s.kv_offload_gb_per_s;
  SB_ASSIGN_OR_RETURN(PerfModel pm, PerfModel::Create(*model, *hardware, *profile, perf));
  if (pm.KvBudgetBytesPerGpu() <= 0) {
    return Status::FailedPrecondition(fmt::format(
        "torch.OutOfMemoryError: CUDA out of memory (simulated): {} weights need {:.1f} GB per "
        "GPU, {} has {:.0f} GB "
        "x --gpu-memory-utilization {}; raise --tensor-parallel-size or lower the precision",
        model->name, pm.WeightBytesPerGpu() / 1e9, hardware->name, hardware->hbm_gb,
        s.gpu_memory_utilization));
  }
  r.perf = std::move(pm);
  r.scheduler.max_num_seqs = s.max_num_seqs;
  r.scheduler.max_num_batched_tokens = s.max_num_batched_tokens;
  r.scheduler.block_size = s.block_size;
  r.scheduler.enable_prefix_caching = s.enable_prefix_caching;
  r.scheduler.num_gpu_blocks_override = s.num_gpu_blocks_override;
  r.scheduler.kv_offload_gb = s.kv_offload_gb;
  r.scheduler.num_speculative_tokens = s.spec.num_speculative_tokens;
  r.scheduler.long_prefill_token_threshold = s.long_prefill_token_threshold >= 0
                                                 ? s.long_prefill_token_threshold
                                                 : profile->long_prefill_token_threshold;
  r.engine.time_scale = s.time_scale;
  r.engine.clock_origin_ns = s.clock_origin_ns;
  r.engine.num_speculative_tokens = s.spec.num_speculative_tokens;
  r.engine.target_acceptance_length = s.spec.synthetic_acceptance_length;
  if (s.spec.num_speculative_tokens > 0 && r.engine.target_acceptance_length == 0) {
    if (!s.golden_al.table.empty()) {
      std::string key = s.golden_al.model.empty() ? model->name : s.golden_al.model;
      auto al = config::LookupGoldenAl(s.golden_al.table, key, s.golden_al.thinking,
                                       s.spec.num_speculative_tokens);
      if (!al.ok()) return al.status().WithContext("--golden-al-table " + s.golden_al.table);
      r.engine.target_acceptance_length = *al;
    } else {
      // No target and no table: per-position acceptance 0.7, AL = Σ_{i=0..k} 0.7^i.
      double al = 0, p = 1;
      for (int i = 0; i <= s.spec.num_speculative_tokens; ++i) {
        al += p;
        p *= 0.7;
      }
      r.engine.target_acceptance_length = al;
    }
  }
  r.engine.seed = s.seed;
  return r;
}

}  // namespace servebench::sim
