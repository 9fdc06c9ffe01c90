#include "sim/catalogue.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>

namespace servebench::sim {

// Defined in the generated catalogue_data.cc (CMake embeds data/sim/*.yaml).
extern const char* const kBuiltInHardwareYaml;
extern const char* const kBuiltInModelsYaml;

namespace {

// Reads field `key` of `node` into `out` when present. Every numeric field present
// must be named in the entry's `sources` map (the catalogue's rule: no number
// without a source).
template <typename T>
Status Read(const YAML::Node& node, const char* key, T* out, const std::string& where,
            bool required) {
  YAML::Node v = node[key];
  if (!v) {
    if (required) return Status::InvalidArgument(fmt::format("{}: missing field '{}'", where, key));
    return Status::Ok();
  }
  try {
    *out = v.as<T>();
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(
        fmt::format("{}.{} (line {}): {}", where, key, v.Mark().line + 1, e.what()));
  }
  if constexpr (std::is_arithmetic_v<T>) {
    if (!node["sources"] || !node["sources"][key]) {
      return Status::InvalidArgument(fmt::format(
          "{}.{}: no source given; add 'sources: {{{}: \"where the number comes from\"}}'", where,
          key, key));
    }
  }
  return Status::Ok();
}

Status ParseHardware(const std::string& name, const YAML::Node& n, Hardware* h) {
  std::string where = "hardware." + name;
  h->name = name;
  SB_RETURN_IF_ERROR(Read(n, "description", &h->description, where, false));
  SB_RETURN_IF_ERROR(Read(n, "hbm_gb", &h->hbm_gb, where, true));
  SB_RETURN_IF_ERROR(Read(n, "hbm_tb_per_s", &h->hbm_tb_per_s, where, true));
  SB_RETURN_IF_ERROR(Read(n, "scaleup_gb_per_s", &h->scaleup_gb_per_s, where, true));
  SB_RETURN_IF_ERROR(Read(n, "gpus_per_node", &h->gpus_per_node, where, true));
  SB_RETURN_IF_ERROR(Read(n, "matmul_efficiency", &h->matmul_efficiency, where, true));
  SB_RETURN_IF_ERROR(Read(n, "hbm_efficiency", &h->hbm_efficiency, where, true));
  SB_RETURN_IF_ERROR(
      Read(n, "allreduce_bus_efficiency", &h->allreduce_bus_efficiency, where, true));
  SB_RETURN_IF_ERROR(Read(n, "allreduce_latency_us", &h->allreduce_latency_us, where, true));
  SB_RETURN_IF_ERROR(Read(n, "alltoall_latency_us", &h->alltoall_latency_us, where, true));
  SB_RETURN_IF_ERROR(Read(n, "step_overhead_us", &h->step_overhead_us, where, true));
  SB_RETURN_IF_ERROR(Read(n, "layer_overhead_us", &h->layer_overhead_us, where, true));
  SB_RETURN_IF_ERROR(Read(n, "moe_layer_overhead_us", &h->moe_layer_overhead_us, where, true));
  YAML::Node t = n["dense_tflops"];
  if (!t || !t.IsMap())
    return Status::InvalidArgument(where + ": missing map 'dense_tflops' (precision: TFLOP/s)");
  if (!n["sources"] || !n["sources"]["dense_tflops"]) {
    return Status::InvalidArgument(where + ".dense_tflops: no source given");
  }
  for (const auto& kv : t) {
    try {
      h->dense_tflops[kv.first.as<std::string>()] = kv.second.as<double>();
    } catch (const YAML::Exception& e) {
      return Status::InvalidArgument(fmt::format("{}.dense_tflops: {}", where, e.what()));
    }
  }
  if (h->hbm_gb <= 0 || h->hbm_tb_per_s <= 0)
    return Status::InvalidArgument(where + ": hbm_gb and hbm_tb_per_s must be > 0");
  if (h->hbm_efficiency <= 0 || h->hbm_efficiency > 1 || h->matmul_efficiency <= 0 ||
      h->matmul_efficiency > 1) {
    return Status::InvalidArgument(where + ": efficiencies must be in (0, 1]");
  }
  return Status::Ok();
}

Status ParseModel(const std::string& name, const YAML::Node& n, Model* m) {
  std::string where = "models." + name;
  m->name = name;
  SB_RETURN_IF_ERROR(Read(n, "hf_name", &m->hf_name, where, true));
  SB_RETURN_IF_ERROR(Read(n, "params_total_b", &m->params_total_b, where, true));
  SB_RETURN_IF_ERROR(Read(n, "params_active_b", &m->params_active_b, where, true));
  SB_RETURN_IF_ERROR(Read(n, "layers", &m->layers, where, true));
  SB_RETURN_IF_ERROR(Read(n, "hidden", &m->hidden, where, true));
  SB_RETURN_IF_ERROR(Read(n, "q_heads", &m->q_heads, where, true));
  SB_RETURN_IF_ERROR(Read(n, "kv_heads", &m->kv_heads, where, true));
  SB_RETURN_IF_ERROR(Read(n, "head_dim", &m->head_dim, where, true));
  SB_RETURN_IF_ERROR(Read(n, "vocab", &m->vocab, where, true));
  SB_RETURN_IF_ERROR(Read(n, "max_context", &m->max_context, where, true));
  SB_RETURN_IF_ERROR(Read(n, "default_precision", &m->default_precision, where, true));
  SB_RETURN_IF_ERROR(Read(n, "attention", &m->attention, where, true));
  SB_RETURN_IF_ERROR(
      Read(n, "mla_kv_lora_rank", &m->mla_kv_lora_rank, where, m->attention == "mla"));
  SB_RETURN_IF_ERROR(Read(n, "mla_rope_dim", &m->mla_rope_dim, where, m->attention == "mla"));
  SB_RETURN_IF_ERROR(Read(n, "sliding_layers", &m->sliding_layers, where, false));
  SB_RETURN_IF_ERROR(Read(n, "sliding_window", &m->sliding_window, where, m->sliding_layers > 0));
  SB_RETURN_IF_ERROR(Read(n, "experts", &m->experts, where, false));
  bool moe = m->experts > 0;
  SB_RETURN_IF_ERROR(Read(n, "experts_active", &m->experts_active, where, moe));
  SB_RETURN_IF_ERROR(Read(n, "experts_shared", &m->experts_shared, where, moe));
  SB_RETURN_IF_ERROR(Read(n, "expert_ffn", &m->expert_ffn, where, moe));
  SB_RETURN_IF_ERROR(Read(n, "moe_layers", &m->moe_layers, where, moe));
  if (m->attention != "gqa" && m->attention != "mla") {
    return Status::InvalidArgument(
        fmt::format("{}.attention = {}: must be gqa or mla", where, m->attention));
  }
  if (m->layers <= 0 || m->hidden <= 0 || m->params_active_b <= 0 ||
      m->params_total_b < m->params_active_b) {
    return Status::InvalidArgument(where +
                                   ": layers, hidden, params must be > 0 and total >= active");
  }
  if (moe && m->routed_expert_params_b() >= m->params_total_b) {
    return Status::InvalidArgument(
        fmt::format("{}: routed expert parameters {:.1f}B (moe_layers x experts x 3 x hidden x "
                    "expert_ffn) exceed "
                    "params_total_b {}",
                    where, m->routed_expert_params_b(), m->params_total_b));
  }
  return Status::Ok();
}

StatusOr<YAML::Node> LoadDoc(const std::string& text, const char* what) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(fmt::format("{}: {}", what, e.what()));
  }
}

}  // namespace

double Model::routed_expert_params_b() const {
  return static_cast<double>(moe_layers) * experts * 3.0 * hidden * expert_ffn / 1e9;
}

StatusOr<Catalogue> Catalogue::FromYaml(const std::string& hardware_yaml,
                                        const std::string& models_yaml) {
  Catalogue c;
  SB_ASSIGN_OR_RETURN(YAML::Node hw, LoadDoc(hardware_yaml, "hardware.yaml"));
  SB_ASSIGN_OR_RETURN(YAML::Node md, LoadDoc(models_yaml, "models.yaml"));
  if (!hw["hardware"] || !hw["hardware"].IsMap())
    return Status::InvalidArgument("hardware.yaml: top-level key 'hardware' (a map) missing");
  if (!md["models"] || !md["models"].IsMap())
    return Status::InvalidArgument("models.yaml: top-level key 'models' (a map) missing");
  for (const auto& kv : hw["hardware"]) {
    Hardware h;
    SB_RETURN_IF_ERROR(ParseHardware(kv.first.as<std::string>(), kv.second, &h));
    c.hardware[h.name] = h;
  }
  for (const auto& kv : md["models"]) {
    Model m;
    SB_RETURN_IF_ERROR(ParseModel(kv.first.as<std::string>(), kv.second, &m));
    c.models[m.name] = m;
  }
  return c;
}

StatusOr<Catalogue> Catalogue::BuiltIn() {
  return FromYaml(kBuiltInHardwareYaml, kBuiltInModelsYaml);
}

StatusOr<Catalogue> Catalogue::FromDir(const std::string& dir) {
  auto slurp = [](const std::string& path) -> StatusOr<std::string> {
    std::ifstream in(path);
    if (!in)
      return Status::NotFound(fmt::format(
          "{}: cannot open (--catalogue-dir must hold hardware.yaml and models.yaml)", path));
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  SB_ASSIGN_OR_RETURN(std::string hw, slurp(dir + "/hardware.yaml"));
  SB_ASSIGN_OR_RETURN(std::string md, slurp(dir + "/models.yaml"));
  return FromYaml(hw, md);
}

StatusOr<const Hardware*> Catalogue::FindHardware(const std::string& name) const {
  auto it = hardware.find(name);
  if (it != hardware.end()) return &it->second;
  std::string known;
  for (const auto& [k, v] : hardware) known += (known.empty() ? "" : ", ") + k;
  return Status::NotFound(
      fmt::format("--hardware {}: not in the catalogue (known: {})", name, known));
}

StatusOr<const Model*> Catalogue::FindModel(const std::string& name) const {
  auto it = models.find(name);
  if (it != models.end()) return &it->second;
  for (const auto& [k, v] : models) {
    if (v.hf_name == name) return &v;
  }
  std::string known;
  for (const auto& [k, v] : models) known += (known.empty() ? "" : ", ") + k;
  return Status::NotFound(fmt::format("--model {}: not in the catalogue (known: {})", name, known));
}

}  // namespace servebench::sim
