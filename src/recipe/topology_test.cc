// Serve-session topologies: every InferenceX multinode/disagg row of the golden full
// sweep counts its GPUs as InferenceX's own harness does (disagg.md §3), placement on
// nodes, native recipes with prefill/decode/aggregated workers, and single-node point
// identity unchanged by the topology fields.
#include "recipe/topology.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "common/sha256.h"
#include "recipe/recipe.h"

namespace servebench::recipe {
namespace {

const std::string kRoot = std::string(SERVEBENCH_SOURCE_DIR) + "/";
const std::string kData = kRoot + "src/recipe/testdata/";

Plan Expand(const std::vector<std::string>& files, MatrixFilters f = {}) {
  Diagnostics d;
  RecipeSet set = LoadRecipes(files, &d);
  EXPECT_TRUE(d.ok()) << d.ToString();
  auto plan = ExpandRecipes(set, f);
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  return plan.ok() ? *plan : Plan{};
}

StatusOr<Plan> ExpandText(const std::string& yaml) {
  Diagnostics d;
  RecipeSet set = LoadRecipeText(yaml, "t.yaml", &d);
  if (!d.ok()) return Status::InvalidArgument(d.ToString());
  return ExpandRecipes(set, MatrixFilters{});
}

int64_t IntAt(const boost::json::object& o, const char* key) { return o.at(key).as_int64(); }

std::map<std::string, int> Settings(const boost::json::object& row) {
  std::map<std::string, int> out;
  for (const char* role : {"prefill", "decode"}) {
    const auto* list = row.at(role).as_object().if_contains("additional-settings");
    if (list == nullptr) continue;  // decode of most srt-slurm rows
    for (const auto& kv : list->as_array()) {
      std::string s(kv.as_string());
      auto eq = s.find('=');
      try {
        out[s.substr(0, eq)] = std::stoi(s.substr(eq + 1));
      } catch (...) {
      }
    }
  }
  return out;
}

// InferenceX's accounting of a row's prefill and decode GPUs, written from the
// harness table of disagg.md §3 straight from the row's JSON, independently of the
// topology code: srt-slurm counts workers × GPUs per worker (max(tp × pp × pcp, ep),
// §1.3) and an aggregated session's whole nodes; amd_utils PREFILL_NODES × tp; llm-d
// PREFILL_NODES × GPUS_PER_NODE; TileRT tp × workers.
std::pair<int, int> InferenceXGpus(const boost::json::object& row) {
  const auto& p = row.at("prefill").as_object();
  const auto& d = row.at("decode").as_object();
  auto per_worker = [](const boost::json::object& w) {
    return std::max<int64_t>(IntAt(w, "tp") * IntAt(w, "pp") * IntAt(w, "pcp-size"),
                             IntAt(w, "ep"));
  };
  std::string framework(row.at("framework").as_string());
  std::string runner(row.at("runner").as_string());
  auto settings = Settings(row);
  if (framework == "sglang-disagg" || framework == "atom-disagg") {
    return {settings.at("PREFILL_NODES") * IntAt(p, "tp"),
            settings.at("DECODE_NODES") * IntAt(d, "tp")};
  }
  if (framework == "llmd-vllm") {
    return {settings.at("PREFILL_NODES") * settings.at("GPUS_PER_NODE"),
            settings.at("DECODE_NODES") * settings.at("GPUS_PER_NODE")};
  }
  if (framework == "tilert") {
    return {static_cast<int>(IntAt(p, "tp") * IntAt(p, "num-worker")),
            static_cast<int>(IntAt(d, "tp") * IntAt(d, "num-worker"))};
  }
  // srt-slurm: dynamo-vllm, dynamo-sglang, dynamo-trt, vllm.
  if (IntAt(d, "num-worker") == 0) {
    const int gpn =
        runner.find("gb200") != std::string::npos || runner.find("gb300") != std::string::npos ? 4
                                                                                               : 8;
    int64_t gpus = IntAt(p, "num-worker") * per_worker(p);
    return {static_cast<int>((gpus + gpn - 1) / gpn * gpn), 0};
  }
  return {static_cast<int>(IntAt(p, "num-worker") * per_worker(p)),
          static_cast<int>(IntAt(d, "num-worker") * per_worker(d))};
}

TEST(TopologyTest, EveryInferenceXMultinodeRowCountsItsGpusAsInferenceXDoes) {
  Plan plan =
      Expand({kData + "amd-master.yaml", kData + "nvidia-master.yaml", kData + "runners.yaml"});
  ASSERT_EQ(plan.rows.size(), 1820u);
  // Points come in row order: one per concurrency of a multinode row's list, one per
  // single-node row.
  size_t next_point = 0;
  int multinode = 0, disagg = 0, whole_node_rounding = 0;
  std::map<LaunchPath, int> by_launch;
  for (const auto& row : plan.rows) {
    const auto& conc = row.at("conc");
    const size_t n = conc.is_array() ? conc.as_array().size() : 1;
    ASSERT_LE(next_point + n, plan.points.size());
    if (!row.contains("prefill")) {
      next_point += n;
      continue;
    }
    ++multinode;
    const auto [want_p, want_d] = InferenceXGpus(row);
    for (size_t i = 0; i < n; ++i) {
      const Point& point = plan.points[next_point + i];
      ASSERT_TRUE(HasTopology(point.serve)) << point.recipe;
      auto t = SessionTopology(point.serve);
      ASSERT_TRUE(t.ok()) << point.recipe << ": " << t.status().ToString();
      EXPECT_EQ(t->prefill_gpus, want_p) << point.recipe << " " << point.exp_name;
      EXPECT_EQ(t->decode_gpus, want_d) << point.recipe << " " << point.exp_name;
      EXPECT_EQ(t->disagg, want_d > 0) << point.recipe;
      // A session's nodes hold its GPUs.
      int used = 0;
      for (const auto& r : t->roles) used += r.gpus_used();
      EXPECT_LE(used, t->nodes * t->gpus_per_node) << point.recipe;
      if (i == 0) {
        ++by_launch[t->launch];
        disagg += t->disagg;
        whole_node_rounding += t->total_gpus() > used;
      }
    }
    next_point += n;
  }
  EXPECT_EQ(next_point, plan.points.size());
  EXPECT_EQ(multinode, 648);
  // 468 rows of disagg configs, two of which have decode num-worker 0 (disagg.md §1.1).
  EXPECT_EQ(disagg, 466);
  EXPECT_EQ(by_launch[LaunchPath::kSrtSlurm], 595);
  EXPECT_EQ(by_launch[LaunchPath::kAmdUtils], 48);
  EXPECT_EQ(by_launch[LaunchPath::kLlmD], 3);
  EXPECT_EQ(by_launch[LaunchPath::kTileRt], 2);
  // Aggregated srt-slurm rows with 2-GPU replicas on 4-GPU GB200/GB300 nodes count the
  // whole node, as agg_nodes × gpus_per_node does.
  EXPECT_EQ(whole_node_rounding, 16);
}

TEST(TopologyTest, SingleNodePointIdsAreThoseBeforeTopologiesExisted) {
  // SHA-256 over the point ids (one per line) of every single-node point of the full
  // sweep, the three examples and the nightly seed, computed by servebench before the
  // topology fields were added (commit 42510da): none of these identities may move.
  Plan ix =
      Expand({kData + "amd-master.yaml", kData + "nvidia-master.yaml", kData + "runners.yaml"}, [] {
        MatrixFilters f;
        f.multi_node = false;
        return f;
      }());
  std::string ids;
  size_t count = 0;
  auto add = [&](const Plan& plan) {
    for (const auto& p : plan.points) {
      // Agentic points are left out: none could run before their trace replay existed
      // (the client refused their load), so no record holds their old ids, and the
      // launch flags of their scripts (recipe/agentic_trace.h) gave them new ones.
      if (p.load.scenario == "agentic-coding") continue;
      ids += (ids.empty() ? "" : "\n") + p.point_id;
      ++count;
    }
  };
  add(ix);
  for (const char* f :
       {"examples/minimax_m3_mi355x.nightly.yaml", "examples/minimaxm3-mi355x-mtp.yaml",
        "examples/quickstart.yaml", "src/recipe/testdata/minimax_m3_mi355x.workload.yaml"})
    add(Expand({kRoot + f}));
  EXPECT_EQ(count, 773u);  // 1255 with the 482 agentic ones
  // The hash moved once since: the examples themselves changed (power added
  // sim.power_average_s, faithful made the seed recipe exact). With the examples of
  // 42510da's time the ids still hash to 7656c7f9b754c0cad6444055b2dafa13... Without
  // the agentic points (all 1255: 5e1610134a0fb4bf...) the expansion before their launch
  // flags gives this same value.
  EXPECT_EQ(Sha256Hex(ids), "caa270064714f1d06292119a7c468ea52e75c872956addc5e0f0b1e474632fef");
}

ServeSpec Disagg(int p_workers, int p_tp, int d_workers, int d_tp, std::string hardware) {
  ServeSpec s;
  s.engine = "sim";
  s.hardware = std::move(hardware);
  s.multinode = true;
  s.disagg = true;
  s.kv_p2p_transfer = "nixl";
  s.prefill.num_workers = p_workers;
  s.prefill.tp = p_tp;
  s.decode.num_workers = d_workers;
  s.decode.tp = d_tp;
  return s;
}

TEST(TopologyTest, SmallReplicasShareANodeAndLargeOnesSpanWholeNodes) {
  auto t = SessionTopology(Disagg(1, 2, 2, 2, "h200"));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->gpus_per_node, 8);
  ASSERT_EQ(t->roles.size(), 2u);
  EXPECT_EQ(t->roles[0].role, WorkerRole::kPrefill);
  EXPECT_EQ(t->roles[1].replicas_per_node, 4);
  EXPECT_EQ(t->roles[1].nodes, 1);
  EXPECT_EQ(t->roles[1].first_node, 1);  // decode after the prefill node, as srt-slurm
  EXPECT_EQ(t->nodes, 2);
  EXPECT_EQ(t->prefill_gpus, 2);
  EXPECT_EQ(t->decode_gpus, 4);
  EXPECT_EQ(DescribeTopology(*t), "1P×TP2 2D×TP2");

  auto big = SessionTopology(Disagg(2, 16, 1, 8, "gb200"));
  ASSERT_TRUE(big.ok()) << big.status().ToString();
  EXPECT_EQ(big->roles[0].nodes_per_replica, 4);  // TP16 on 4-GPU trays
  EXPECT_EQ(big->roles[0].nodes, 8);
  EXPECT_EQ(big->roles[1].first_node, 8);
  EXPECT_EQ(big->nodes, 10);
  EXPECT_EQ(big->prefill_gpus, 32);
  EXPECT_EQ(big->decode_gpus, 8);
}

TEST(TopologyTest, DataParallelExpertReplicaWrittenTp1Ep8TakesEightGpus) {
  ServeSpec s = Disagg(1, 1, 1, 8, "gb200");
  s.prefill.ep = 8;
  s.prefill.dp_attn = true;
  EXPECT_EQ(GpusPerReplica(s.prefill), 8);
  auto t = SessionTopology(s);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->prefill_gpus, 8);
  EXPECT_EQ(t->roles[0].nodes, 2);
}

TEST(TopologyTest, BadPlacementsNameTheRoleAndTheRule) {
  ServeSpec uneven = Disagg(1, 12, 1, 8, "h200");
  auto t = SessionTopology(uneven);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("serve.prefill: one replica takes 12 GPUs"),
            std::string::npos)
      << t.status().message();

  ServeSpec odd = Disagg(1, 3, 1, 8, "h200");
  t = SessionTopology(odd);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("does not divide a 8-GPU node"), std::string::npos);

  ServeSpec crowded = Disagg(2, 8, 1, 8, "mi355x");
  crowded.prefill.nodes = 1;
  t = SessionTopology(crowded);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("serve.prefill.nodes = 1: 2 replica(s) × 8 GPUs need 2"),
            std::string::npos)
      << t.status().message();

  ServeSpec unknown = Disagg(1, 2, 1, 2, "tpu-v9");
  t = SessionTopology(unknown);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("unknown for hardware 'tpu-v9'"), std::string::npos);

  ServeSpec none = Disagg(0, 2, 1, 2, "h200");
  t = SessionTopology(none);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("serve.prefill.num_workers = 0"), std::string::npos);
}

const char kNativeDisagg[] = R"(servebench: 1
recipes:
  sim-pd:
    engine: sim
    model: llama-3.1-8b
    hardware: h200
    topology: {router: sim-router, router_policy: round_robin, kv_connector: nixl}
    scenarios:
      - isl: 1024
        osl: 128
        search_space:
          - prefill: {replicas: 1, tp: 2}
            decode: {replicas: 2, tp: 2, env: {SIM_DECODE: "1"}}
            concurrency: [4, 8]
          - aggregated: {replicas: 2, tp: 4}
            concurrency: 8
          - {tp: 8, concurrency: 8}
)";

TEST(TopologyTest, NativeRecipeWritesPrefillDecodeAndAggregatedWorkers) {
  auto plan = ExpandText(kNativeDisagg);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->points.size(), 4u);
  const ServeSpec& pd = plan->points[0].serve;
  EXPECT_TRUE(pd.multinode);
  EXPECT_TRUE(pd.disagg);
  EXPECT_EQ(pd.router_name, "sim-router");
  EXPECT_EQ(pd.router_policy, "round_robin");
  EXPECT_EQ(pd.kv_p2p_transfer, "nixl");
  EXPECT_EQ(pd.decode.additional_settings, std::vector<std::string>{"SIM_DECODE=1"});
  auto t = SessionTopology(pd);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->launch, LaunchPath::kServebench);
  EXPECT_EQ(DescribeTopology(*t), "1P×TP2 2D×TP2");
  EXPECT_EQ(plan->points[0].session_id, plan->points[1].session_id);

  const ServeSpec& agg = plan->points[2].serve;
  EXPECT_TRUE(agg.multinode);
  EXPECT_FALSE(agg.disagg);
  EXPECT_TRUE(agg.kv_p2p_transfer.empty());
  auto ta = SessionTopology(agg);
  ASSERT_TRUE(ta.ok());
  EXPECT_EQ(ta->roles[0].role, WorkerRole::kAggregated);
  EXPECT_EQ(ta->prefill_gpus, 8);
  EXPECT_EQ(ta->decode_gpus, 0);
  EXPECT_FALSE(HasTopology(plan->points[3].serve));

  // The matrix row is InferenceX's multinode shape.
  const auto& row = plan->rows[0];
  EXPECT_EQ(row.at("prefill").at("num-worker").as_int64(), 1);
  EXPECT_EQ(row.at("decode").at("num-worker").as_int64(), 2);
  EXPECT_EQ(row.at("kv-p2p-transfer").as_string(), "nixl");
  EXPECT_TRUE(row.at("disagg").as_bool());

  MatrixFilters single;
  single.multi_node = false;
  Diagnostics d;
  RecipeSet set = LoadRecipeText(kNativeDisagg, "t.yaml", &d);
  auto only_single = ExpandRecipes(set, single);
  ASSERT_TRUE(only_single.ok());
  EXPECT_EQ(only_single->points.size(), 1u);
}

TEST(TopologyTest, NativeTopologyMistakesAreLocatedErrors) {
  auto expect_error = [](const std::string& yaml, const std::string& needle) {
    auto plan = ExpandText(yaml);
    ASSERT_FALSE(plan.ok()) << yaml;
    EXPECT_NE(plan.status().message().find(needle), std::string::npos) << plan.status().message();
  };
  const std::string head =
      "servebench: 1\nrecipes:\n  r:\n    engine: sim\n    model: llama-3.1-8b\n    hardware: "
      "h200\n";
  const std::string scen =
      "    scenarios:\n      - isl: 64\n        osl: 8\n        search_space:\n";
  expect_error(head + scen +
                   "          - {prefill: {replicas: 1}, decode: {replicas: 1}, "
                   "concurrency: 1}\n",
               "no topology.kv_connector");
  expect_error(head + "    topology: {kv_connector: nixl}\n" + scen +
                   "          - {tp: 2, prefill: {replicas: 1}, decode: {replicas: 1}, "
                   "concurrency: 1}\n",
               "search_space[0].tp: is set beside prefill/decode/aggregated workers");
  expect_error(head + "    topology: {kv_connector: nixl}\n" + scen +
                   "          - {prefill: {replicas: 1}, concurrency: 1}\n",
               "search_space[0].prefill: is set without its partner");
  expect_error(head + "    topology: {kv_connector: nixl}\n" + scen +
                   "          - {tp: 2, concurrency: 1}\n",
               "r.topology: is set but no search-space entry has");
  expect_error(head + "    topology: {kv_connector: nixl}\n" + scen +
                   "          - {prefill: {replicas: 1, tp: 3}, decode: {replicas: 1}, "
                   "concurrency: 1}\n",
               "r: serve.prefill: one replica takes 3 GPUs, which does not divide a 8-GPU node");
}

}  // namespace
}  // namespace servebench::recipe
