#include "run/sim_rehearsal.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>

#include "recipe/recipe.h"
#include "sim/catalogue.h"
#include "sim/perf_model.h"

namespace servebench::run {
namespace {

// Engine flags with a simulator equivalent (the sim takes vLLM's names).
const std::map<std::string, std::map<std::string, std::string>>& Translations() {
  static const std::map<std::string, std::map<std::string, std::string>> kTable = {
      {"vllm",
       {{"--max-num-seqs", "max-num-seqs"},
        {"--max-num-batched-tokens", "max-num-batched-tokens"},
        {"--gpu-memory-utilization", "gpu-memory-utilization"},
        {"--stream-interval", "stream-interval"},
        {"--block-size", "block-size"}}},
      {"atom", {{"--max-num-seqs", "max-num-seqs"}, {"--block-size", "block-size"}}},
      {"sglang",
       {{"--max-running-requests", "max-num-seqs"},
        {"--chunked-prefill-size", "max-num-batched-tokens"},
        {"--mem-fraction-static", "gpu-memory-utilization"},
        {"--page-size", "block-size"}}},
  };
  return kTable;
}

// Engine switches (no value) with a simulator equivalent.
const std::map<std::string, std::map<std::string, std::string>>& SwitchTranslations() {
  static const std::map<std::string, std::map<std::string, std::string>> kTable = {
      {"vllm", {{"--enable-prefix-caching", "enable-prefix-caching"}}},
      {"atom", {{"--enable-prefix-caching", "enable-prefix-caching"}}},
  };
  return kTable;
}

// Moves the extras with a simulator meaning into sim_options; returns the dropped ones.
std::vector<std::string> TranslateExtras(recipe::ServeSpec* s) {
  std::vector<std::string> dropped;
  auto table = Translations().find(s->stands_in_for);
  auto switches = SwitchTranslations().find(s->stands_in_for);
  const std::vector<std::string>& args = s->extra_args;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string name = a.substr(0, a.find('='));
    bool has_inline = a.find('=') != std::string::npos;
    if (switches != SwitchTranslations().end() && !has_inline) {
      if (auto it = switches->second.find(name); it != switches->second.end()) {
        s->sim_options[it->second] = "";
        continue;
      }
    }
    bool next_is_value = !has_inline && i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0;
    if (table != Translations().end()) {
      auto it = table->second.find(name);
      if (it != table->second.end() && (has_inline || next_is_value)) {
        s->sim_options[it->second] = has_inline ? a.substr(a.find('=') + 1) : args[++i];
        continue;
      }
    }
    if (a.rfind("-", 0) == 0) dropped.push_back(name);
    if (next_is_value) ++i;  // the dropped flag's value
  }
  s->extra_args.clear();
  return dropped;
}

// The CPU offload tier of a kv-offloading: dram point, in the sim's unit (decimal GB
// over all GPUs, --kv-offload-gb): the launch command's own size when it names one —
// vLLM's --kv-offloading-size (GiB over all ranks, the native backend) or SGLang's
// --hicache-size (GB per rank, × TP) — else the row's total-cpu-dram-gb. Those flags
// are taken out of extra_args. nullopt when the point offloads nothing.
std::optional<double> OffloadGb(recipe::ServeSpec* s) {
  if (s->kv_offloading != "dram") return std::nullopt;
  std::optional<double> from_flag;
  std::vector<std::string>& args = s->extra_args;
  for (size_t i = 0; i < args.size();) {
    const std::string name = args[i].substr(0, args[i].find('='));
    double scale = 0;
    if ((s->stands_in_for == "vllm" || s->stands_in_for == "atom") &&
        (name == "--kv-offloading-size" || name == "--kv_offloading_size")) {
      scale = 1.073741824;  // GiB → GB
    } else if (s->stands_in_for == "sglang" && name == "--hicache-size") {
      scale = std::max(1, s->tp);
    }
    const bool inline_value = args[i].find('=') != std::string::npos;
    if (scale == 0 || (!inline_value && i + 1 >= args.size())) {
      ++i;
      continue;
    }
    const std::string value = inline_value ? args[i].substr(args[i].find('=') + 1) : args[i + 1];
    char* end = nullptr;
    const double gb = std::strtod(value.c_str(), &end);
    if (end != value.c_str() && *end == '\0' && gb > 0) from_flag = gb * scale;
    args.erase(args.begin() + static_cast<std::ptrdiff_t>(i),
               args.begin() + static_cast<std::ptrdiff_t>(i + (inline_value ? 1 : 2)));
  }
  if (from_flag) return from_flag;
  if (s->total_cpu_dram_gb > 0) return static_cast<double>(s->total_cpu_dram_gb);
  return std::nullopt;
}

std::string Known(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

Status RehearseOnSim(std::vector<recipe::Point>* points, const RehearsalSettings& settings,
                     std::vector<std::string>* notes) {
  auto catalogue = settings.catalogue_dir.empty() ? sim::Catalogue::BuiltIn()
                                                  : sim::Catalogue::FromDir(settings.catalogue_dir);
  if (!catalogue.ok()) return catalogue.status().WithContext("--engine sim: the sim catalogue");
  std::vector<std::string> models, gpus;
  for (const auto& [k, m] : catalogue->models) models.push_back(k + " (" + m.hf_name + ")");
  for (const auto& [k, h] : catalogue->hardware) gpus.push_back(k);

  std::vector<recipe::Point> out = *points;
  std::set<std::string> errors;  // one line per recipe and problem, not per point
  std::set<std::string> seen_notes;
  for (recipe::Point& p : out) {
    recipe::ServeSpec& s = p.serve;
    const std::string where = fmt::format("{} ({})", p.recipe, p.source_file);
    if (s.engine != "sim") {
      if (s.multinode || s.disagg) {
        errors.insert(fmt::format(
            "{}: serve.multinode = {}, serve.disagg = {}: the simulator rehearses single-node "
            "deployments only",
            where, s.multinode, s.disagg));
        continue;
      }
      bool bad = false;
      if (!catalogue->FindModel(s.model).ok()) {
        errors.insert(fmt::format(
            "{}: model \"{}\": not in the simulator's catalogue (known: {}; data/sim/models.yaml "
            "lists each model's other hub names under aliases)",
            where, s.model, Known(models)));
        bad = true;
      }
      if (!catalogue->FindHardware(s.hardware).ok()) {
        errors.insert(fmt::format(
            "{}: hardware \"{}\" (runner {}): not in the simulator's catalogue (known: {})", where,
            s.hardware, p.runner, Known(gpus)));
        bad = true;
      }
      if (!s.precision.empty() && !sim::BytesPerParam(s.precision).ok()) {
        errors.insert(fmt::format("{}: precision \"{}\": {}", where, s.precision,
                                  sim::BytesPerParam(s.precision).status().message()));
        bad = true;
      }
      if (bad) continue;
      s.stands_in_for = s.engine;
      s.engine = "sim";
      // The serving stack's costs of the engine it stands in for, when the catalogue
      // has them.
      std::string profile = catalogue->engines.count(s.stands_in_for) ? s.stands_in_for : "vllm";
      if (profile != s.stands_in_for && seen_notes.insert("profile:" + s.stands_in_for).second) {
        notes->push_back(fmt::format(
            "--engine sim: no engine profile for {} in data/sim/engines.yaml; {}'s costs are used",
            s.stands_in_for, profile));
      }
      bool captured_flags = false;
      // A verbatim command (an InferenceX script's, captured) holds the engine's flags
      // itself: those with a simulator meaning are taken from it (its batch cap, an
      // agentic row's prefix cache and block size); the rest go with the command, as
      // the topology comes from the point's fields.
      if (!s.command.argv.empty()) {
        const auto& argv = s.command.argv;
        auto first_flag = std::find_if(argv.begin(), argv.end(),
                                       [](const std::string& a) { return a.rfind("--", 0) == 0; });
        s.extra_args.assign(first_flag, argv.end());
        captured_flags = true;
      }
      // KV offload to CPU DRAM (agentic rows' kv-offloading: dram): the sim's CPU tier
      // of the size the row gives it, behind its prefix cache; a row without a size
      // is simulated without one, and says so.
      if (std::optional<double> gb = OffloadGb(&s)) {
        s.sim_options["kv-offload-gb"] = fmt::format("{}", *gb);
        s.sim_options["enable-prefix-caching"] = "";
      } else if (s.kv_offloading == "dram" && seen_notes.insert("offload:" + p.recipe).second) {
        notes->push_back(fmt::format(
            "--engine sim: {}: kv-offloading dram ({}) without total-cpu-dram-gb or a size "
            "flag: these points are simulated without a CPU offload tier",
            p.recipe, s.kv_offload_backend.empty() ? "no backend" : s.kv_offload_backend));
      }
      // SGLang's radix cache is on unless the command turns it off; the sim's prefix
      // cache stands in for it where prefixes repeat: a trace replay. (Random prompts
      // share no block, and hashing them costs the sim's step thread time.)
      if (s.stands_in_for == "sglang" && p.load.scenario == "agentic-coding" &&
          std::find(s.extra_args.begin(), s.extra_args.end(), "--disable-radix-cache") ==
              s.extra_args.end()) {
        s.sim_options["enable-prefix-caching"] = "";
      }
      for (const std::string& flag : TranslateExtras(&s)) {
        if (!captured_flags && seen_notes.insert(p.recipe + flag).second) {
          notes->push_back(
              fmt::format("--engine sim: {}: {} flag {} means nothing to the "
                          "simulator; dropped",
                          p.recipe, s.stands_in_for, flag));
        }
      }
      // The sim runs on this host, without the engine's image, environment, download
      // steps or verbatim launch command (an InferenceX point's exact script command).
      s.image.clear();
      s.env.clear();
      s.env_from.clear();
      s.prepare.clear();
      s.command = {};
      s.sim_options["hardware"] = s.hardware;
      s.sim_options["engine-profile"] = profile;
      // Accuracy evals of the session answer as a healthy model would (the sim's
      // oracle), so the gates run end to end; load prompts get filler as always.
      s.sim_options["answer-mode"] = "oracle";
      // A speculative method whose depth the engine takes from the model (vLLM's MTP
      // without num_speculative_tokens): the sim needs one; one draft per step.
      if (s.spec.method != recipe::SpecMethod::kNone && s.spec.num_speculative_tokens < 1) {
        s.spec.num_speculative_tokens = 1;
        if (seen_notes.insert("depth:" + p.recipe).second) {
          notes->push_back(fmt::format(
              "--engine sim: {}: speculative decoding without num_speculative_tokens; the "
              "simulator drafts 1 token per step",
              p.recipe));
        }
      }
    }
    if (settings.time_scale > 0)
      s.sim_options["time-scale"] = fmt::format("{}", settings.time_scale);
    recipe::AssignIds(&p);
  }
  if (!errors.empty()) {
    std::string text = "--engine sim: these recipes cannot be rehearsed on the simulator:";
    for (const auto& e : errors) text += "\n  " + e;
    return Status::InvalidArgument(text);
  }
  *points = std::move(out);
  return Status::Ok();
}

}  // namespace servebench::run
