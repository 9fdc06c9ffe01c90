// InferenceX row generation (inferencex-formats.md §5-7): one row per concurrency
// for single-node and agentic entries, one row per search-space entry for fixed
// multinode (its whole `conc` list). Keys in InferenceX's emission order.
#include <fmt/format.h>

#include <algorithm>

#include "recipe/expand_internal.h"

namespace servebench::recipe {
namespace {

// 3 TB (decimal) cap on the DRAM a node offers, in MiB (InferenceX constant).
constexpr int64_t kMaxAgenticDramMib = 2'861'022;
constexpr int kAgenticDurationS = 3600;

// floor(mib × 2^20 × utilization × gpus / gpus_per_node / 10^9) with the
// utilization's decimal text taken exactly, as InferenceX does with Decimal.
int64_t DramBudgetGb(int64_t mib, const std::string& utilization, int64_t gpus,
                     int64_t gpus_per_node) {
  unsigned __int128 numerator = 0, scale = 1;
  bool seen_dot = false, exact = true;
  int decimals = 0;
  for (char c : utilization) {
    if (c == '_') continue;
    if (c == '.') {
      seen_dot = true;
      continue;
    }
    if (c < '0' || c > '9' || decimals > 15) {
      exact = false;
      break;
    }
    numerator = numerator * 10 + static_cast<unsigned>(c - '0');
    if (seen_dot) scale *= 10, ++decimals;
  }
  if (!exact) {
    long double u = std::strtold(utilization.c_str(), nullptr);
    return static_cast<int64_t>(static_cast<long double>(mib) * 1048576.0L * u * gpus /
                                gpus_per_node / 1e9L);
  }
  unsigned __int128 top = static_cast<unsigned __int128>(mib) * 1048576u * numerator *
                          static_cast<unsigned __int128>(gpus);
  unsigned __int128 bottom = scale * static_cast<unsigned __int128>(gpus_per_node) * 1000000000u;
  return static_cast<int64_t>(top / bottom);
}

boost::json::object Component(const std::optional<boost::json::object>& entry,
                              const std::optional<boost::json::object>& top) {
  return entry ? *entry : *top;
}

void AddComponents(const Recipe& r, const SearchEntry& e, boost::json::object* row) {
  if (e.router || r.router) (*row)["router"] = Component(e.router, r.router);
  if (e.kv_p2p_transfer)
    (*row)["kv-p2p-transfer"] = *e.kv_p2p_transfer;
  else if (r.kv_p2p_transfer)
    (*row)["kv-p2p-transfer"] = *r.kv_p2p_transfer;
}

boost::json::object Head(const Recipe& r, const std::string& runner) {
  boost::json::object row;
  row["image"] = r.image;
  row["model"] = r.model;
  row["model-prefix"] = r.model_prefix;
  row["precision"] = r.precision;
  row["framework"] = r.framework;
  row["runner"] = runner;
  return row;
}

std::vector<int> FilterConc(std::vector<int> values, const std::vector<int>& wanted) {
  if (wanted.empty()) return values;
  std::vector<int> out;
  for (int c : values)
    if (std::find(wanted.begin(), wanted.end(), c) != wanted.end()) out.push_back(c);
  return out;
}

std::optional<int64_t> AgenticDram(const Recipe& r, const Scenario& s, const SearchEntry& e,
                                   const RunnerConfig& runners, std::vector<std::string>* errors) {
  if (e.kv_offloading.value_or("none") != "dram") return 0;
  auto hw = runners.hardware.find(r.runner);
  if (hw == runners.hardware.end()) {
    errors->push_back(fmt::format(
        "{}: {}: kv-offloading 'dram' needs runner '{}' in the hardware section of "
        "runners.yaml{}",
        r.name, e.path, r.runner,
        runners.loaded ? "" : " (no runners.yaml loaded: pass it, or use --runners FILE)"));
    return std::nullopt;
  }
  int64_t gpn = hw->second.gpus_per_node;
  int64_t gpus = 0;
  if (e.has_workers) {
    int64_t replica = int64_t{e.prefill.tp} * e.prefill.pp * e.prefill.pcp_size;
    if (replica > gpn) {
      if (replica % gpn != 0) {
        errors->push_back(
            fmt::format("{}: {}: prefill tp*pp*pcp-size={} spans nodes but is not "
                        "a multiple of gpus-per-node={}",
                        r.name, e.path, replica, gpn));
        return std::nullopt;
      }
      gpus = gpn;
    } else {
      if (gpn % replica != 0) {
        errors->push_back(
            fmt::format("{}: {}: prefill tp*pp*pcp-size={} does not divide "
                        "gpus-per-node={} evenly",
                        r.name, e.path, replica, gpn));
        return std::nullopt;
      }
      gpus = replica;
    }
  } else {
    gpus = int64_t{e.tp} * e.pp * e.pcp_size;
    if (gpus > gpn) {
      errors->push_back(
          fmt::format("{}: {}: tp*pp*pcp-size={} GPUs exceeds gpus-per-node={} of "
                      "runner '{}'",
                      r.name, e.path, gpus, gpn, r.runner));
      return std::nullopt;
    }
  }
  int64_t mib = std::min(hw->second.available_cpu_dram_mib, kMaxAgenticDramMib);
  return DramBudgetGb(mib, s.dram_utilization.value_or("0"), gpus, gpn);
}

std::string WorkerTag(const WorkerSpec& w, const char* role) {
  std::string tag = fmt::format("{}{}x{}", role, w.num_workers, w.tp);
  if (w.ep != 1) tag += fmt::format("ep{}", w.ep);
  if (w.dp_attn) tag += "dpa";
  return tag;
}

std::string OffloadSuffix(const SearchEntry& e) {
  std::string mode = e.kv_offloading.value_or("none");
  if (mode == "none") return "kvnone";
  std::string backend;
  if (e.kv_offload_backend) {
    if (auto* n = e.kv_offload_backend->if_contains("name"); n && n->is_string())
      backend = std::string(n->get_string());
  }
  return fmt::format("kv{}-{}", mode, backend);
}

}  // namespace

std::string AgenticExpName(const std::string& model_prefix, int tp, int conc,
                           const std::string& kv_offloading, const std::string& backend,
                           const std::string& spec) {
  const std::string offload = kv_offloading.empty() || kv_offloading == "none"
                                  ? std::string("kvnone")
                                  : fmt::format("kv{}-{}", kv_offloading, backend);
  return fmt::format("{}_tp{}_conc{}_{}{}", model_prefix, tp, conc, offload,
                     spec != "none" ? "_spec-" + spec : "");
}

void GenerateInferenceXRows(const Recipe& r, const RunnerConfig& runners, const MatrixFilters& f,
                            RowSet* out, std::vector<std::string>* errors) {
  std::vector<std::string> runner_values = {r.runner};
  if (!f.runner_node_filter.empty()) {
    runner_values.clear();
    if (const auto* nodes = runners.Nodes(r.runner))
      for (const auto& n : *nodes)
        if (n.find(f.runner_node_filter) != std::string::npos) runner_values.push_back(n);
    if (runner_values.empty()) return;
  }
  auto scenario_wanted = [&](const std::string& type) {
    return f.scenario_types.empty() || std::find(f.scenario_types.begin(), f.scenario_types.end(),
                                                 type) != f.scenario_types.end();
  };
  if (r.multinode ? !f.multi_node : !f.single_node) return;
  std::vector<std::pair<int, int>> seq_filter;
  for (const auto& s : f.seq_lens) {
    int isl = 0, osl = 0;
    if (ParseSeqLen(s, &isl, &osl)) seq_filter.emplace_back(isl, osl);
  }
  bool too_many = false;
  auto emit = [&](boost::json::object row, const Scenario& s, const SearchEntry& e) {
    if (out->rows.size() >= kMaxExpandedPoints) {
      if (!too_many)
        errors->push_back(
            fmt::format("{}: expands to more than {} matrix rows; split the recipe "
                        "or filter it",
                        r.name, kMaxExpandedPoints));
      too_many = true;
      return;
    }
    out->rows.push_back(std::move(row));
    out->origins.push_back({&r, &s, &e, &runners});
  };
  // Fixed sequence lengths first, then agentic, as InferenceX does.
  for (const auto& s : r.scenarios) {
    if (s.type != "fixed-seq-len" || !scenario_wanted(s.type)) continue;
    if (!seq_filter.empty() && std::find(seq_filter.begin(), seq_filter.end(),
                                         std::make_pair(s.isl, s.osl)) == seq_filter.end())
      continue;
    std::string exp_name = r.model_prefix + "_" + SeqLenName(s.isl, s.osl);
    for (const auto& e : s.search_space) {
      std::vector<int> concs = FilterConc(e.conc.Values(), f.conc);
      if (concs.empty()) continue;
      if (e.has_workers) {
        for (const auto& runner : runner_values) {
          boost::json::object row = Head(r, runner);
          row["isl"] = s.isl;
          row["osl"] = s.osl;
          row["spec-decoding"] = e.spec_decoding;
          row["prefill"] = e.prefill_row;
          row["decode"] = e.decode_row;
          boost::json::array conc_array;
          for (int c : concs) conc_array.push_back(c);
          row["conc"] = std::move(conc_array);
          row["max-model-len"] = s.isl + s.osl + 256;
          row["exp-name"] = exp_name;
          row["disagg"] = r.disagg;
          row["run-eval"] = false;
          AddComponents(r, e, &row);
          emit(std::move(row), s, e);
        }
        continue;
      }
      for (int c : concs) {
        for (const auto& runner : runner_values) {
          boost::json::object row = Head(r, runner);
          row["isl"] = s.isl;
          row["osl"] = s.osl;
          row["tp"] = e.tp;
          row["pp"] = e.pp;
          row["dcp-size"] = e.dcp_size;
          row["pcp-size"] = e.pcp_size;
          row["conc"] = c;
          row["max-model-len"] = s.isl + s.osl + 256;
          row["ep"] = e.ep.value_or(1);
          row["dp-attn"] = e.dp_attn.value_or(false);
          row["spec-decoding"] = e.spec_decoding;
          row["exp-name"] = exp_name;
          row["disagg"] = r.disagg;
          row["run-eval"] = false;
          AddComponents(r, e, &row);
          emit(std::move(row), s, e);
        }
      }
    }
  }
  for (const auto& s : r.scenarios) {
    if (s.type != "agentic-coding" || !scenario_wanted(s.type)) continue;
    for (const auto& e : s.search_space) {
      auto dram = AgenticDram(r, s, e, runners, errors);
      if (!dram) continue;
      std::vector<int> concs = FilterConc(e.conc.Values(), f.conc);
      if (concs.empty()) continue;
      std::string mode = e.kv_offloading.value_or("none");
      if (e.has_workers) {
        std::string suffix = mode != "none" ? "_" + OffloadSuffix(e) : "";
        for (const auto& runner : runner_values) {
          for (int c : concs) {  // one concurrency per allocation
            boost::json::object row = Head(r, runner);
            row["spec-decoding"] = e.spec_decoding;
            row["prefill"] = e.prefill_row;
            row["decode"] = e.decode_row;
            row["conc"] = boost::json::array{c};
            row["kv-offloading"] = mode;
            row["total-cpu-dram-gb"] = *dram;
            row["duration"] = kAgenticDurationS;
            row["exp-name"] =
                fmt::format("{}_{}_{}_conc{}{}", r.model_prefix, WorkerTag(e.prefill, "p"),
                            WorkerTag(e.decode, "d"), c, suffix);
            row["disagg"] = r.disagg;
            row["scenario-type"] = "agentic-coding";
            if (e.kv_offload_backend) row["kv-offload-backend"] = *e.kv_offload_backend;
            AddComponents(r, e, &row);
            emit(std::move(row), s, e);
          }
        }
        continue;
      }
      for (int c : concs) {
        for (const auto& runner : runner_values) {
          boost::json::object row = Head(r, runner);
          row["tp"] = e.tp;
          row["pp"] = e.pp;
          row["dcp-size"] = e.dcp_size;
          row["pcp-size"] = e.pcp_size;
          row["ep"] = e.ep.value_or(1);
          row["dp-attn"] = e.dp_attn.value_or(false);
          row["spec-decoding"] = e.spec_decoding;
          row["conc"] = c;
          row["kv-offloading"] = mode;
          row["total-cpu-dram-gb"] = *dram;
          row["duration"] = kAgenticDurationS;
          std::string backend;
          if (e.kv_offload_backend)
            if (auto* n = e.kv_offload_backend->if_contains("name"); n && n->is_string())
              backend = std::string(n->get_string());
          row["exp-name"] = AgenticExpName(r.model_prefix, e.tp, c, mode, backend, e.spec_decoding);
          row["scenario-type"] = "agentic-coding";
          if (e.kv_offload_backend) row["kv-offload-backend"] = *e.kv_offload_backend;
          AddComponents(r, e, &row);
          emit(std::move(row), s, e);
        }
      }
    }
  }
}

}  // namespace servebench::recipe
