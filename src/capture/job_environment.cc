// JobEnvironmentFor: benchmark-tmpl.yml's job environment for one point.
#include "capture/job_environment.h"

#include <fmt/format.h>

#include <filesystem>

#include "common/json_string.h"

namespace servebench::capture {
namespace {

std::string Bool(bool b) { return b ? "true" : "false"; }

// The GPU name in script names: the runner label without `cluster:`, up to the
// first '-' or '_' (mi355x, b200, h200, rtx6000pro, ...).
std::string ScriptGpu(const std::string& runner) {
  std::string label = runner.rfind("cluster:", 0) == 0 ? runner.substr(8) : runner;
  return label.substr(0, label.find_first_of("-_"));
}

bool IsAmd(const std::string& gpu) { return gpu.rfind("mi", 0) == 0; }

}  // namespace

const std::map<std::string, std::string>& SecretPlaceholders() {
  static const std::map<std::string, std::string> kSecrets = {
      {"HF_TOKEN", "servebench-capture-placeholder-HF_TOKEN"},
      {"MODAL_TOKEN_ID", "servebench-capture-placeholder-MODAL_TOKEN_ID"},
      {"MODAL_TOKEN_SECRET", "servebench-capture-placeholder-MODAL_TOKEN_SECRET"},
  };
  return kSecrets;
}

std::string ActionsToJson(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string out = "{";
  for (size_t i = 0; i < fields.size(); ++i) {
    out += i == 0 ? "\n  " : ",\n  ";
    AppendJsonString(&out, fields[i].first);
    out += ": ";
    AppendJsonString(&out, fields[i].second);
  }
  return out + "\n}";
}

StatusOr<JobEnvironment> JobEnvironmentFor(const recipe::Point& point,
                                           const recipe::RunnerConfig& runners, int port,
                                           const std::string& root) {
  const recipe::ServeSpec& s = point.serve;
  const recipe::LoadSpec& l = point.load;
  if (point.source_format != "inferencex") {
    return Status::InvalidArgument(fmt::format(
        "{}: a {} recipe, not an InferenceX config key; only InferenceX rows have launch scripts",
        point.recipe, point.source_format));
  }
  if (s.multinode) {
    return Status::InvalidArgument(fmt::format(
        "{}: a multinode config key; launch capture covers single-node scripts", point.recipe));
  }
  const bool agentic = l.scenario == "agentic-coding";
  const std::string spec = s.spec.method == recipe::SpecMethod::kNone         ? "none"
                           : s.spec.method == recipe::SpecMethod::kDraftModel ? "draft_model"
                                                                              : "mtp";
  std::string node = point.runner + "_00";
  if (const auto* nodes = runners.Nodes(point.runner); nodes != nullptr && !nodes->empty())
    node = nodes->front();
  const int gpus = s.tp * s.pp * s.pcp_size;
  JobEnvironment job;
  auto& v = job.vars;
  // benchmark-tmpl.yml `env:`, in its order.
  v["RANDOM_RANGE_RATIO"] = "0.8";
  for (const auto& [name, placeholder] : SecretPlaceholders()) v[name] = placeholder;
  v["HF_HUB_CACHE"] = "/mnt/hf_hub_cache/";
  v["EXP_NAME"] = point.exp_name;
  v["RECIPE_FINGERPRINT"] = "";  // set only on InferenceX's changelog path
  v["MODEL"] = s.model;
  v["MODEL_PREFIX"] = point.model_prefix;
  v["ISL"] = agentic ? "" : std::to_string(l.isl);
  v["OSL"] = agentic ? "" : std::to_string(l.osl);
  v["MAX_MODEL_LEN"] = s.max_model_len > 0 ? std::to_string(s.max_model_len) : "";
  v["IMAGE"] = s.image;
  v["FRAMEWORK"] = s.framework;
  v["PRECISION"] = s.precision;
  v["TP"] = std::to_string(s.tp);
  v["PP_SIZE"] = std::to_string(s.pp);
  v["DCP_SIZE"] = std::to_string(s.dcp_size);
  v["PCP_SIZE"] = std::to_string(s.pcp_size);
  v["EP_SIZE"] = std::to_string(s.ep);
  v["DP_ATTENTION"] = Bool(s.dp_attn);
  v["CONC"] = std::to_string(l.concurrency);
  v["SPEC_DECODING"] = spec;
  v["DISAGG"] = Bool(s.disagg);
  v["RUN_EVAL"] = Bool(point.run_eval);
  v["EVAL_ONLY"] = Bool(point.eval_only);
  v["SCENARIO_TYPE"] = l.scenario;
  v["SCENARIO_SUBDIR"] = agentic ? "agentic/" : "fixed_seq_len/";
  v["IS_AGENTIC"] = agentic ? "1" : "0";
  v["KV_OFFLOADING"] = agentic ? s.kv_offloading : "";
  v["KV_OFFLOAD_BACKEND"] = s.kv_offload_backend;
  std::vector<std::pair<std::string, std::string>> backend;
  if (!s.kv_offload_backend.empty()) backend.emplace_back("name", s.kv_offload_backend);
  if (!s.kv_offload_backend_version.empty())
    backend.emplace_back("version", s.kv_offload_backend_version);
  v["KV_OFFLOAD_BACKEND_METADATA"] = backend.empty() ? "" : ActionsToJson(backend);
  std::vector<std::pair<std::string, std::string>> router;
  if (!s.router_name.empty()) router = {{"name", s.router_name}, {"version", s.router_version}};
  v["ROUTER_METADATA"] = router.empty() ? "" : ActionsToJson(router);
  v["KV_P2P_TRANSFER"] = s.kv_p2p_transfer;
  v["TOTAL_CPU_DRAM_GB"] = std::to_string(s.total_cpu_dram_gb);
  v["DURATION"] = std::to_string(l.duration_s > 0 ? l.duration_s : 3600);
  v["REQUIRE_POWER"] = "0";
  v["AIPERF_EXPERIMENTAL_FAST"] = "0";
  v["EVAL_LIMIT"] = "";
  v["SWEBENCH_GEN_MODE"] = "";
  v["AIPERF_FAILED_REQUEST_THRESHOLD"] = "0.10";
  v["RESULT_DIR"] = "/workspace/results";
  v["PYTHONDONTWRITEBYTECODE"] = "1";
  v["PYTHONPYCACHEPREFIX"] = "/tmp/inferencex-pycache";
  v["SWEBENCH_USE_MODAL"] = "true";
  v["SALLOC_EXCLUDE"] = "b300-005,b300-006";
  // The launch step.
  v["RUNNER_NAME"] = node;
  v["RUNNER_TYPE"] = point.runner;
  v["GPU_COUNT"] = std::to_string(gpus);
  v["GITHUB_STEP_SUMMARY"] = "";
  v["GITHUB_WORKSPACE"] = "/workspace";
  v["RESULT_FILENAME"] =
      fmt::format("{}_{}_{}_tp{}-pp{}-dcp{}-pcp{}-ep{}-dpa{}_disagg-{}_spec-{}_conc{}_{}",
                  point.exp_name, s.precision, s.framework, s.tp, s.pp, s.dcp_size, s.pcp_size,
                  s.ep, Bool(s.dp_attn), Bool(s.disagg), spec, l.concurrency, node);
  v["PORT"] = std::to_string(port);
  // The allocation's GPUs.
  const std::string gpu = ScriptGpu(point.runner);
  std::string devices;
  for (int i = 0; i < gpus; ++i) devices += (i ? "," : "") + std::to_string(i);
  v[IsAmd(gpu) ? "ROCR_VISIBLE_DEVICES" : "CUDA_VISIBLE_DEVICES"] = devices;

  const std::string base =
      fmt::format("benchmarks/single_node/{}{}_{}_{}", v["SCENARIO_SUBDIR"],
                  point.exp_name.substr(0, point.exp_name.find('_')), s.precision, gpu);
  const std::string mtp = spec == "mtp" ? "_mtp" : "";
  const std::string legacy = s.framework == "trt" ? "_trt" : s.framework == "atom" ? "_atom" : "";
  job.candidates = {base + "_" + s.framework + mtp + ".sh", base + legacy + mtp + ".sh"};
  for (const auto& candidate : job.candidates) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(std::filesystem::path(root) / candidate, ec)) {
      job.script = candidate;
      break;
    }
  }
  return job;
}

}  // namespace servebench::capture
