#include "sim/catalogue.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <vector>

#include "config/config_file.h"
#include "config/field_reader.h"

namespace servebench::sim {

// Defined in the generated catalogue_data.cc (CMake embeds data/sim/*.yaml).
extern const char* const kBuiltInHardwareYaml;
extern const char* const kBuiltInModelsYaml;
extern const char* const kBuiltInEnginesYaml;

namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

using config::FieldReader;
using config::LoadContext;
using config::YNode;

// One catalogue entry read strictly: only the fields it may hold (plus `sources`),
// every number present named in its `sources` map (the catalogue's rule: no number
// without a source), every problem reported with file:line:column.
class Entry {
 public:
  Entry(const LoadContext& ctx, const YNode& node, const std::string& path,
        std::vector<std::string> fields)
      : ctx_(ctx), reader_(ctx, node, path, WithSources(fields)), fields_(std::move(fields)) {
    if (const YNode* sources = reader_.Get("sources")) {
      FieldReader list(ctx, *sources, reader_.PathOf("sources"), fields_,
                       "source (sources name fields of this entry)");
      for (const std::string& field : fields_) {
        if (list.String(field)) sourced_.push_back(field);
      }
    }
  }

  void Text(const std::string& key, std::string* out, bool required) {
    if (auto v = reader_.String(key, required, /*non_empty=*/true)) *out = *v;
  }
  void Choice(const std::string& key, std::string* out, const std::vector<std::string>& allowed) {
    if (auto v = reader_.Enum(key, allowed, /*required=*/true)) *out = *v;
  }
  void Number(const std::string& key, double* out, bool required) {
    if (auto v = reader_.Double(key, required)) {
      *out = *v;
      NeedsSource(key);
    }
  }
  void Number(const std::string& key, int* out, bool required) {
    if (auto v = reader_.Int(key, required)) {
      *out = static_cast<int>(*v);
      NeedsSource(key);
    }
  }
  // A yes/no claim about the engine: sourced like a number.
  void Flag(const std::string& key, bool* out, bool required) {
    if (auto v = reader_.Bool(key, required)) {
      *out = *v;
      NeedsSource(key);
    }
  }
  void Names(const std::string& key, std::vector<std::string>* out) {
    if (auto v = reader_.StringList(key, false)) *out = *v;
  }
  // Precision -> TFLOP/s, each > 0.
  void Throughputs(const std::string& key, std::map<std::string, double>* out) {
    const YNode* map = reader_.Get(key);
    if (map == nullptr) return reader_.Missing(key);
    if (!map->IsMap()) {
      return reader_.ErrorAt(key, "is " + map->TypeName() + "; expected a map precision: TFLOP/s");
    }
    for (const auto& [precision, value] : map->entries) {
      auto tflops = value.AsDouble();
      if (!tflops || *tflops <= 0) {
        ctx_.Error(value, reader_.PathOf(key) + "." + precision.scalar,
                   "is " + value.TypeName() + " '" + value.scalar + "'; expected TFLOP/s > 0");
        continue;
      }
      (*out)[precision.scalar] = *tflops;
    }
    NeedsSource(key);
  }
  // Reports `message` at `key` unless `ok` (a rule on values already read).
  void Require(bool ok, const std::string& key, const std::string& message) {
    if (!ok && reader_.Has(key)) reader_.ErrorAt(key, message);
  }
  bool Has(const std::string& key) const { return reader_.Has(key); }
  const std::string& path() const { return reader_.path(); }

 private:
  static std::vector<std::string> WithSources(std::vector<std::string> fields) {
    fields.push_back("sources");
    return fields;
  }
  void NeedsSource(const std::string& key) {
    if (std::find(sourced_.begin(), sourced_.end(), key) != sourced_.end()) return;
    reader_.ErrorAt(key,
                    fmt::format("no source given; add 'sources: {{{}: \"where the number comes "
                                "from\"}}'",
                                key));
  }

  const LoadContext& ctx_;
  FieldReader reader_;
  std::vector<std::string> fields_;
  std::vector<std::string> sourced_;
};

void ReadHardware(const LoadContext& ctx, const std::string& name, const YNode& node, Hardware* h) {
  Entry e(ctx, node, "hardware." + name,
          {"description", "hbm_gb", "hbm_tb_per_s", "dense_tflops", "scaleup_gb_per_s",
           "gpus_per_node", "matmul_efficiency", "hbm_efficiency", "allreduce_bus_efficiency",
           "allreduce_latency_us", "alltoall_latency_us", "step_overhead_us", "layer_overhead_us",
           "moe_layer_overhead_us", "attention_efficiency", "tdp_w", "idle_power_w"});
  h->name = name;
  e.Text("description", &h->description, false);
  e.Number("hbm_gb", &h->hbm_gb, true);
  e.Number("hbm_tb_per_s", &h->hbm_tb_per_s, true);
  e.Throughputs("dense_tflops", &h->dense_tflops);
  e.Number("scaleup_gb_per_s", &h->scaleup_gb_per_s, true);
  e.Number("gpus_per_node", &h->gpus_per_node, true);
  e.Number("matmul_efficiency", &h->matmul_efficiency, true);
  e.Number("hbm_efficiency", &h->hbm_efficiency, true);
  e.Number("allreduce_bus_efficiency", &h->allreduce_bus_efficiency, true);
  e.Number("allreduce_latency_us", &h->allreduce_latency_us, true);
  e.Number("alltoall_latency_us", &h->alltoall_latency_us, true);
  e.Number("step_overhead_us", &h->step_overhead_us, true);
  e.Number("layer_overhead_us", &h->layer_overhead_us, true);
  e.Number("moe_layer_overhead_us", &h->moe_layer_overhead_us, true);
  e.Number("attention_efficiency", &h->attention_efficiency, true);
  e.Number("tdp_w", &h->tdp_w, true);
  e.Number("idle_power_w", &h->idle_power_w, true);
  e.Require(h->hbm_gb > 0, "hbm_gb", "must be > 0 (GB)");
  e.Require(h->idle_power_w > 0, "idle_power_w", "must be > 0 (W)");
  e.Require(h->tdp_w > h->idle_power_w, "tdp_w",
            fmt::format("must be above idle_power_w {} (W)", h->idle_power_w));
  e.Require(h->hbm_tb_per_s > 0, "hbm_tb_per_s", "must be > 0 (TB/s)");
  e.Require(h->gpus_per_node > 0, "gpus_per_node", "must be > 0");
  for (auto [key, value] : {std::pair{"matmul_efficiency", h->matmul_efficiency},
                            std::pair{"hbm_efficiency", h->hbm_efficiency},
                            std::pair{"allreduce_bus_efficiency", h->allreduce_bus_efficiency},
                            std::pair{"attention_efficiency", h->attention_efficiency}}) {
    e.Require(value > 0 && value <= 1, key, "must be in (0, 1] (achieved / peak)");
  }
}

void ReadModel(const LoadContext& ctx, const std::string& name, const YNode& node, Model* m) {
  Entry e(ctx, node, "models." + name, {"hf_name",         "aliases",          "params_total_b",
                                        "params_active_b", "layers",           "hidden",
                                        "q_heads",         "kv_heads",         "head_dim",
                                        "vocab",           "max_context",      "default_precision",
                                        "attention",       "mla_kv_lora_rank", "mla_rope_dim",
                                        "sliding_layers",  "sliding_window",   "experts",
                                        "experts_active",  "experts_shared",   "expert_ffn",
                                        "moe_layers"});
  m->name = name;
  e.Text("hf_name", &m->hf_name, true);
  e.Names("aliases", &m->aliases);
  e.Number("params_total_b", &m->params_total_b, true);
  e.Number("params_active_b", &m->params_active_b, true);
  e.Number("layers", &m->layers, true);
  e.Number("hidden", &m->hidden, true);
  e.Number("q_heads", &m->q_heads, true);
  e.Number("kv_heads", &m->kv_heads, true);
  e.Number("head_dim", &m->head_dim, true);
  e.Number("vocab", &m->vocab, true);
  e.Number("max_context", &m->max_context, true);
  e.Text("default_precision", &m->default_precision, true);
  e.Choice("attention", &m->attention, {"gqa", "mla"});
  const bool mla = m->attention == "mla";
  e.Number("mla_kv_lora_rank", &m->mla_kv_lora_rank, mla);
  e.Number("mla_rope_dim", &m->mla_rope_dim, mla);
  e.Number("sliding_layers", &m->sliding_layers, false);
  e.Number("sliding_window", &m->sliding_window, m->sliding_layers > 0);
  e.Number("experts", &m->experts, false);
  const bool moe = m->experts > 0;
  e.Number("experts_active", &m->experts_active, moe);
  e.Number("experts_shared", &m->experts_shared, moe);
  e.Number("expert_ffn", &m->expert_ffn, moe);
  e.Number("moe_layers", &m->moe_layers, moe);
  e.Require(m->layers > 0, "layers", "must be > 0");
  e.Require(m->hidden > 0, "hidden", "must be > 0");
  e.Require(m->params_active_b > 0, "params_active_b", "must be > 0 (billions)");
  e.Require(
      m->params_total_b >= m->params_active_b, "params_total_b",
      fmt::format("is below params_active_b {}: total must be >= active", m->params_active_b));
  e.Require(!moe || m->routed_expert_params_b() < m->params_total_b, "params_total_b",
            fmt::format("is below the routed expert parameters {:.1f}B (moe_layers x experts x 3 "
                        "x hidden x expert_ffn)",
                        m->routed_expert_params_b()));
}

void ReadEngine(const LoadContext& ctx, const std::string& name, const YNode& node,
                EngineProfile* p) {
  Entry e(ctx, node, "engines." + name,
          {"description", "request_overhead_ms", "tokenize_us_per_token", "per_seq_step_us",
           "overlap_cpu", "cuda_graph_max_tokens", "eager_layer_overhead_us",
           "eager_moe_layer_overhead_us", "long_prefill_token_threshold"});
  p->name = name;
  e.Text("description", &p->description, false);
  e.Number("request_overhead_ms", &p->request_overhead_ms, true);
  e.Number("tokenize_us_per_token", &p->tokenize_us_per_token, true);
  e.Number("per_seq_step_us", &p->per_seq_step_us, true);
  e.Flag("overlap_cpu", &p->overlap_cpu, true);
  e.Number("cuda_graph_max_tokens", &p->cuda_graph_max_tokens, true);
  e.Number("eager_layer_overhead_us", &p->eager_layer_overhead_us, true);
  e.Number("eager_moe_layer_overhead_us", &p->eager_moe_layer_overhead_us, true);
  e.Number("long_prefill_token_threshold", &p->long_prefill_token_threshold, true);
  for (auto [key, value] :
       {std::pair{"request_overhead_ms", p->request_overhead_ms},
        std::pair{"tokenize_us_per_token", p->tokenize_us_per_token},
        std::pair{"per_seq_step_us", p->per_seq_step_us},
        std::pair{"cuda_graph_max_tokens", static_cast<double>(p->cuda_graph_max_tokens)},
        std::pair{"eager_layer_overhead_us", p->eager_layer_overhead_us},
        std::pair{"eager_moe_layer_overhead_us", p->eager_moe_layer_overhead_us},
        std::pair{"long_prefill_token_threshold",
                  static_cast<double>(p->long_prefill_token_threshold)}}) {
    e.Require(value >= 0, key, "must be >= 0");
  }
}

// `top: {name: entry, ...}` of `file`: every entry through `read`.
template <typename T>
void ReadEntries(const LoadContext& ctx, FieldReader& file, const std::string& top,
                 std::map<std::string, T>* out,
                 void (*read)(const LoadContext&, const std::string&, const YNode&, T*)) {
  const YNode* entries = file.Get(top);
  if (entries == nullptr) return file.Missing(top);
  if (!entries->IsMap()) {
    return file.ErrorAt(top, "is " + entries->TypeName() + "; expected a map name: entry");
  }
  for (const auto& [name, node] : entries->entries) {
    T entry;
    read(ctx, name.scalar, node, &entry);
    (*out)[name.scalar] = std::move(entry);
  }
}

// A file holding only `top: {name: entry, ...}`.
template <typename T>
config::ConfigReader EntriesUnder(const std::string& top, std::map<std::string, T>* out,
                                  void (*read)(const LoadContext&, const std::string&, const YNode&,
                                               T*)) {
  return [=](const LoadContext& ctx, const YNode& root) {
    FieldReader file(ctx, root, "", {top}, "top-level key");
    ReadEntries(ctx, file, top, out, read);
  };
}

// hardware.yaml: the GPUs, and the power model's weights shared by all of them
// (power_model.h).
config::ConfigReader HardwareFile(Catalogue* c) {
  return [c](const LoadContext& ctx, const YNode& root) {
    FieldReader file(ctx, root, "", {"hardware", "power_model"}, "top-level key");
    ReadEntries(ctx, file, "hardware", &c->hardware, ReadHardware);
    const YNode* pm = file.Get("power_model");
    if (pm == nullptr) return file.Missing("power_model");
    Entry e(ctx, *pm, "power_model", {"compute_weight", "hbm_weight"});
    e.Number("compute_weight", &c->power_model.compute_weight, true);
    e.Number("hbm_weight", &c->power_model.hbm_weight, true);
    e.Require(c->power_model.compute_weight > 0, "compute_weight", "must be > 0");
    e.Require(c->power_model.hbm_weight > 0, "hbm_weight", "must be > 0");
  };
}

}  // namespace

double Model::routed_expert_params_b() const {
  return static_cast<double>(moe_layers) * experts * 3.0 * hidden * expert_ffn / 1e9;
}

StatusOr<Catalogue> Catalogue::FromYaml(const std::string& hardware_yaml,
                                        const std::string& models_yaml,
                                        const std::string& hardware_file,
                                        const std::string& models_file,
                                        const std::string& engines_yaml,
                                        const std::string& engines_file) {
  Catalogue c;
  SB_RETURN_IF_ERROR(config::ReadConfigText(hardware_yaml, hardware_file, HardwareFile(&c)));
  SB_RETURN_IF_ERROR(config::ReadConfigText(models_yaml, models_file,
                                            EntriesUnder("models", &c.models, ReadModel)));
  const bool built_in_engines = engines_yaml.empty();
  SB_RETURN_IF_ERROR(
      config::ReadConfigText(built_in_engines ? kBuiltInEnginesYaml : engines_yaml,
                             built_in_engines ? "data/sim/engines.yaml" : engines_file,
                             EntriesUnder("engines", &c.engines, ReadEngine)));
  return c;
}

StatusOr<Catalogue> Catalogue::BuiltIn() {
  return FromYaml(kBuiltInHardwareYaml, kBuiltInModelsYaml, "data/sim/hardware.yaml",
                  "data/sim/models.yaml", kBuiltInEnginesYaml, "data/sim/engines.yaml");
}

StatusOr<Catalogue> Catalogue::FromDir(const std::string& dir) {
  Catalogue c;
  for (const char* name : {"hardware.yaml", "models.yaml", "engines.yaml"}) {
    if (!std::filesystem::is_regular_file(dir + "/" + name)) {
      return Status::NotFound(
          fmt::format("{}/{}: cannot open (--catalogue-dir must hold hardware.yaml, models.yaml "
                      "and engines.yaml)",
                      dir, name));
    }
  }
  SB_RETURN_IF_ERROR(config::ReadConfigFile(dir + "/hardware.yaml", HardwareFile(&c)));
  SB_RETURN_IF_ERROR(
      config::ReadConfigFile(dir + "/models.yaml", EntriesUnder("models", &c.models, ReadModel)));
  SB_RETURN_IF_ERROR(config::ReadConfigFile(dir + "/engines.yaml",
                                            EntriesUnder("engines", &c.engines, ReadEngine)));
  return c;
}

namespace {

// "; it holds the non-ASCII character U+2011 at byte 6 (catalogue names are ASCII:
// a look-alike of '-'?)" for a name pasted from a document, else "".
std::string NonAsciiHint(const std::string& name) {
  for (size_t i = 0; i < name.size(); ++i) {
    auto c = static_cast<unsigned char>(name[i]);
    if (c < 0x80) continue;
    uint32_t cp = 0;
    size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    cp = len == 1 ? c : c & (0x7F >> len);
    for (size_t k = 1; k < len && i + k < name.size(); ++k) {
      cp = (cp << 6) | (static_cast<unsigned char>(name[i + k]) & 0x3F);
    }
    bool dash = cp >= 0x2010 && cp <= 0x2015;
    return fmt::format(
        "; it holds the non-ASCII character U+{:04X} at byte {} (catalogue names "
        "are ASCII{})",
        cp, i, dash ? ": a look-alike of '-'?" : "");
  }
  return "";
}

}  // namespace

StatusOr<const Hardware*> Catalogue::FindHardware(const std::string& name) const {
  auto it = hardware.find(name);
  if (it != hardware.end()) return &it->second;
  std::string known;
  for (const auto& [k, v] : hardware) known += (known.empty() ? "" : ", ") + k;
  return Status::NotFound(fmt::format("--hardware {}: not in the catalogue{} (known: {})", name,
                                      NonAsciiHint(name), known));
}

StatusOr<const Model*> Catalogue::FindModel(const std::string& name) const {
  auto it = models.find(name);
  if (it != models.end()) return &it->second;
  // Hub names are case-insensitive on the hub (and in InferenceX configs).
  const std::string lower = Lower(name);
  for (const auto& [k, v] : models) {
    if (Lower(v.hf_name) == lower) return &v;
    for (const auto& alias : v.aliases) {
      if (Lower(alias) == lower) return &v;
    }
  }
  std::string known;
  for (const auto& [k, v] : models) known += (known.empty() ? "" : ", ") + k;
  return Status::NotFound(fmt::format("--model {}: not in the catalogue{} (known: {})", name,
                                      NonAsciiHint(name), known));
}

StatusOr<const EngineProfile*> Catalogue::FindEngine(const std::string& name) const {
  auto it = engines.find(name);
  if (it != engines.end()) return &it->second;
  std::string known;
  for (const auto& [k, v] : engines) known += (known.empty() ? "" : ", ") + k;
  return Status::NotFound(
      fmt::format("--engine-profile {}: not in the catalogue (known: {})", name, known));
}

}  // namespace servebench::sim
