// Serve sessions of several processes: one InferenceX key per stack dry-runs with
// every process's command, node and GPUs (golden files), a native sim session on one
// host, and the checks validate and run share (roles, connectors, routers).
#include "engine/session_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "common/atomic_file.h"
#include "engine/testing/golden.h"
#include "recipe/recipe.h"

namespace servebench::engine {
namespace {

using testing::ExpectMatchesGolden;
using ::testing::HasSubstr;

const std::string kMasters = std::string(SERVEBENCH_SOURCE_DIR) + "/src/recipe/testdata/";

const EngineCatalog& Engines() {
  static const EngineCatalog* c = [] {
    auto loaded = LoadEngineCatalog(std::string(SERVEBENCH_SOURCE_DIR) + "/data/engine");
    EXPECT_TRUE(loaded.ok()) << loaded.status().ToString();
    return new EngineCatalog(std::move(loaded).value());
  }();
  return *c;
}

const SessionCatalog& Sessions() {
  static const SessionCatalog* c = [] {
    auto text = ReadFile(std::string(SERVEBENCH_SOURCE_DIR) + "/data/engine/sessions.yaml");
    EXPECT_TRUE(text.ok());
    auto parsed = ParseSessionCatalog(*text, "data/engine");
    EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
    return new SessionCatalog(std::move(parsed).value());
  }();
  return *c;
}

// The first serve session of an InferenceX config key (both master configs loaded).
recipe::Point FirstPointOf(const std::string& key) {
  recipe::Diagnostics d;
  recipe::RecipeSet set = recipe::LoadRecipes(
      {kMasters + "amd-master.yaml", kMasters + "nvidia-master.yaml", kMasters + "runners.yaml"},
      &d);
  recipe::MatrixFilters f;
  f.config_keys = {key};
  f.evals = recipe::EvalSelection::kNone;
  auto plan = recipe::ExpandRecipes(set, f);
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  return plan.ok() && !plan->points.empty() ? plan->points.front() : recipe::Point{};
}

SessionOptions DryRun() {
  SessionOptions o;
  o.render.work_dir = "/out/session";
  o.render.servebench_bin = "/usr/bin/servebench";
  return o;
}

SessionPlan Plan(const recipe::ServeSpec& serve, const SessionOptions& options = DryRun()) {
  auto plan = PlanSession(serve, options, Engines(), Sessions());
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  return plan.ok() ? *plan : SessionPlan{};
}

std::vector<std::string> Names(const SessionPlan& plan) {
  std::vector<std::string> out;
  for (const auto& p : plan.processes) out.push_back(p.Name());
  return out;
}

bool Has(const std::vector<std::string>& argv, const std::string& word) {
  return std::find(argv.begin(), argv.end(), word) != argv.end();
}

TEST(SessionPlanTest, DynamoVllmGb200RunsEtcdNatsDpPrefillOverTwoTraysAndTheFrontend) {
  recipe::Point p = FirstPointOf("dsv4-fp4-gb200-dynamo-vllm");
  SessionPlan plan = Plan(p.serve);
  EXPECT_EQ(plan.stack, "dynamo-vllm");
  EXPECT_EQ(plan.router, "dynamo-frontend");
  ASSERT_GE(plan.processes.size(), 5u);
  EXPECT_EQ(plan.processes[0].Name(), "etcd");
  EXPECT_EQ(plan.processes[1].Name(), "nats");
  EXPECT_EQ(plan.entry().Name(), "router");
  for (const auto& proc : plan.processes) {
    if (proc.kind != ProcessKind::kWorker) continue;
    EXPECT_EQ(proc.command.argv[2], "dynamo.vllm") << proc.Name();
    EXPECT_EQ(proc.command.env.at("ETCD_ENDPOINTS"), "http://node0:2379");
    EXPECT_TRUE(Has(proc.command.argv, "--kv-transfer-config"));
  }
  ExpectMatchesGolden("session_dynamo_vllm_dsv4_fp4_gb200",
                      FormatSessionPlanForDisplay(p.recipe, plan));
}

TEST(SessionPlanTest, DynamoSglangGb200PassesBootstrapPortsAndModes) {
  recipe::Point p = FirstPointOf("dsr1-fp8-gb200-dynamo-sglang");
  SessionPlan plan = Plan(p.serve);
  EXPECT_EQ(plan.stack, "dynamo-sglang");
  for (const auto& proc : plan.processes) {
    if (proc.kind != ProcessKind::kWorker) continue;
    EXPECT_EQ(proc.command.argv[2], "dynamo.sglang");
    EXPECT_TRUE(Has(proc.command.argv, proc.role));  // --disaggregation-mode <role>
    // Every node of a prefill replica gets the same P/D flags, bootstrap port included.
    EXPECT_EQ(Has(proc.command.argv, "--disaggregation-bootstrap-port"), proc.role == "prefill")
        << proc.Name();
  }
  ExpectMatchesGolden("session_dynamo_sglang_dsr1_fp8_gb200",
                      FormatSessionPlanForDisplay(p.recipe, plan));
}

TEST(SessionPlanTest, DynamoTrtIsOneMpiLaunchPerReplicaWithItsEngineYaml) {
  recipe::Point p = FirstPointOf("dsr1-fp4-gb200-dynamo-trt");
  SessionPlan plan = Plan(p.serve);
  EXPECT_EQ(plan.stack, "dynamo-trt");
  int workers = 0;
  for (const auto& proc : plan.processes) {
    if (proc.kind != ProcessKind::kWorker) continue;
    ++workers;
    EXPECT_EQ(proc.command.argv[0], "trtllm-llmapi-launch");
    EXPECT_EQ(proc.tasks, static_cast<int>(proc.nodes.size() * proc.gpus.size()));
    ASSERT_EQ(proc.command.files.size(), 1u);
    EXPECT_THAT(proc.command.files[0].contents, HasSubstr("cache_transceiver_config:"));
  }
  const recipe::Topology& t = plan.topology;
  int replicas = 0;
  for (const auto& r : t.roles) replicas += r.replicas;
  EXPECT_EQ(workers, replicas);
  ExpectMatchesGolden("session_dynamo_trt_dsr1_fp4_gb200",
                      FormatSessionPlanForDisplay(p.recipe, plan));
}

TEST(SessionPlanTest, AmdSglangDisaggUsesMoriAndTheRouterPolicyOfItsLauncher) {
  recipe::Point p = FirstPointOf("dsr1-fp8-mi355x-sglang-disagg");
  SessionPlan plan = Plan(p.serve);
  EXPECT_EQ(plan.stack, "sglang-disagg");
  EXPECT_EQ(plan.router, "sglang-router");
  const auto& router = plan.entry().command.argv;
  EXPECT_TRUE(Has(router, "--pd-disaggregation"));
  EXPECT_TRUE(Has(router, "random"));
  for (const auto& proc : plan.processes) {
    if (proc.kind != ProcessKind::kWorker) continue;
    EXPECT_TRUE(Has(proc.command.argv, "mori"));
    EXPECT_TRUE(proc.command.env.count("HIP_VISIBLE_DEVICES"));
  }
  ExpectMatchesGolden("session_sglang_disagg_dsr1_fp8_mi355x",
                      FormatSessionPlanForDisplay(p.recipe, plan));
}

recipe::ServeSpec SimDisagg() {
  recipe::ServeSpec s;
  s.engine = "sim";
  s.framework = "sim";
  s.model = "llama-3.1-8b";
  s.hardware = "h200";
  s.multinode = true;
  s.disagg = true;
  s.kv_p2p_transfer = "nixl";
  s.prefill.num_workers = 1;
  s.prefill.tp = 2;
  s.decode.num_workers = 2;
  s.decode.tp = 2;
  return s;
}

TEST(SessionPlanTest, SimSessionOnOneHostGetsDistinctPortsAndTheRouterListsEveryWorker) {
  SessionOptions o = DryRun();
  o.node_hosts = {"127.0.0.1", "127.0.0.1"};
  int next = 41000;
  std::vector<int> asked;
  o.port_for = [&](int, int default_port) -> StatusOr<int> {
    asked.push_back(default_port);
    return next++;
  };
  SessionPlan plan = Plan(SimDisagg(), o);
  EXPECT_EQ(Names(plan),
            (std::vector<std::string>{"prefill[0]", "decode[0]", "decode[1]", "router"}));
  std::set<int> ports;
  for (const auto& proc : plan.processes) ports.insert(proc.command.port);
  EXPECT_EQ(ports.size(), plan.processes.size());
  EXPECT_EQ(plan.processes[1].nodes, std::vector<int>{1});
  EXPECT_EQ(plan.processes[1].gpus, (std::vector<int>{0, 1}));
  EXPECT_EQ(plan.processes[2].gpus, (std::vector<int>{2, 3}));
  const auto& worker = plan.processes[0].command.argv;
  EXPECT_EQ(worker[0], "/usr/bin/servebench");
  EXPECT_TRUE(Has(worker, "--role") && Has(worker, "prefill") && Has(worker, "nixl"));
  // Each sim worker plays the GPUs the plan gives it, on its node: decode[1] GPUs 2,3
  // of node 1, so the power each exports is of distinct GPUs.
  const auto& decode1 = plan.processes[2].command.argv;
  auto value_of = [](const std::vector<std::string>& argv, const std::string& flag) {
    auto it = std::find(argv.begin(), argv.end(), flag);
    return it != argv.end() && it + 1 != argv.end() ? *(it + 1) : std::string("(none)");
  };
  EXPECT_EQ(value_of(decode1, "--gpus"), "2,3");
  EXPECT_EQ(value_of(decode1, "--node-index"), "1");
  EXPECT_EQ(value_of(worker, "--gpus"), "0,1");
  EXPECT_EQ(value_of(worker, "--node-index"), "0");
  const auto& router = plan.entry().command.argv;
  EXPECT_EQ(std::vector<std::string>(router.begin(), router.begin() + 4),
            (std::vector<std::string>{"/usr/bin/servebench", "sim", "--role", "router"}));
  EXPECT_TRUE(Has(router, "http://127.0.0.1:41000"));
  EXPECT_TRUE(Has(router, "http://127.0.0.1:41001"));
  EXPECT_TRUE(Has(router, "http://127.0.0.1:41002"));
  EXPECT_EQ(plan.entry().command.port, 41003);
  EXPECT_EQ(asked.back(), 8000);  // srt-slurm's public frontend port was the default asked for
}

TEST(SessionPlanTest, NativeVllmSessionRendersConnectorRolesAndVllmRouter) {
  recipe::ServeSpec s = SimDisagg();
  s.engine = "vllm";
  s.framework = "vllm";
  s.model = "meta-llama/Llama-3.1-8B-Instruct";
  s.kv_p2p_transfer = "p2p-nccl";
  s.router_policy = "round_robin";
  SessionPlan plan = Plan(s);
  EXPECT_EQ(plan.router, "vllm-router");
  EXPECT_TRUE(Has(plan.processes[0].command.argv,
                  R"({"kv_connector":"P2pNcclConnector","kv_role":"kv_producer"})"));
  EXPECT_TRUE(Has(plan.processes[1].command.argv,
                  R"({"kv_connector":"P2pNcclConnector","kv_role":"kv_consumer"})"));
  const auto& router = plan.entry().command.argv;
  EXPECT_TRUE(Has(router, "--vllm-pd-disaggregation") && Has(router, "round_robin"));
}

// --profile: each worker its own profiler folder under the session's root, set as its
// stack's profiler variable; the router has no profiler and gets none.
TEST(SessionPlanTest, ProfileRootGivesEveryWorkerItsOwnProfilerFolderAndTheRouterNone) {
  SessionOptions o = DryRun();
  o.profile_root = "/out/profiles/s1-0";
  o.render.profile_dir = "/ignored";  // a session's folders come from profile_root alone
  SessionPlan plan = Plan(SimDisagg(), o);
  ASSERT_EQ(plan.processes.size(), 4u);
  for (const char* name : {"prefill[0]", "decode[0]", "decode[1]"}) {
    auto it = std::find_if(plan.processes.begin(), plan.processes.end(),
                           [&](const SessionProcess& p) { return p.Name() == name; });
    ASSERT_NE(it, plan.processes.end()) << name;
    const std::string want = std::string("/out/profiles/s1-0/") + name;
    EXPECT_EQ(it->profile_dir, want);
    EXPECT_EQ(it->command.env.at("VLLM_TORCH_PROFILER_DIR"), want) << name;
  }
  EXPECT_EQ(plan.entry().profile_dir, "");
  EXPECT_EQ(plan.entry().command.env.count("VLLM_TORCH_PROFILER_DIR"), 0u);

  recipe::ServeSpec sglang = SimDisagg();
  sglang.engine = "sglang";
  sglang.framework = "sglang";
  sglang.model = "meta-llama/Llama-3.1-8B-Instruct";
  sglang.kv_p2p_transfer = "nixl";
  SessionPlan sg = Plan(sglang, o);
  ASSERT_FALSE(sg.processes.empty());
  EXPECT_EQ(sg.processes[0].command.env.at("SGLANG_TORCH_PROFILER_DIR"),
            "/out/profiles/s1-0/prefill[0]");

  // Without a root nobody profiles, whatever render.profile_dir says.
  SessionOptions off = DryRun();
  off.render.profile_dir = "/ignored";
  for (const auto& p : Plan(SimDisagg(), off).processes) {
    EXPECT_EQ(p.profile_dir, "") << p.Name();
    EXPECT_EQ(p.command.env.count("VLLM_TORCH_PROFILER_DIR"), 0u) << p.Name();
  }
}

TEST(SessionPlanTest, ChecksNameTheRoleConnectorOrRouterThatCannotWork) {
  recipe::ServeSpec llama = SimDisagg();
  llama.engine = llama.framework = "llamacpp";
  Status s = CheckSession(llama, Sessions());
  EXPECT_THAT(s.message(), HasSubstr("serve.engine = \"llamacpp\": no serve-session stack"));

  recipe::ServeSpec wrong_connector = SimDisagg();
  wrong_connector.engine = wrong_connector.framework = "sglang";
  wrong_connector.kv_p2p_transfer = "p2p-nccl";
  s = CheckSession(wrong_connector, Sessions());
  EXPECT_THAT(s.message(),
              HasSubstr("topology.kv_connector = \"p2p-nccl\": sglang has no such KV connector "
                        "(it speaks: ascend, mooncake, mori, nixl)"));

  recipe::ServeSpec wrong_router = SimDisagg();
  wrong_router.router_name = "sglang-router";
  s = CheckSession(wrong_router, Sessions());
  EXPECT_THAT(s.message(), HasSubstr("it cannot front sim workers (it fronts: sglang)"));

  recipe::ServeSpec llmd = SimDisagg();
  llmd.engine = "vllm";
  llmd.framework = "llmd-vllm";
  s = CheckSession(llmd, Sessions());
  EXPECT_THAT(s.message(), HasSubstr("servebench does not launch llmd-vllm sessions"));
}

TEST(SessionPlanTest, EveryInferenceXDisaggRowServebenchLaunchesPlansOnItsNodes) {
  recipe::Diagnostics d;
  recipe::RecipeSet set = recipe::LoadRecipes(
      {kMasters + "amd-master.yaml", kMasters + "nvidia-master.yaml", kMasters + "runners.yaml"},
      &d);
  recipe::MatrixFilters f;
  f.single_node = false;
  auto expanded = recipe::ExpandRecipes(set, f);
  ASSERT_TRUE(expanded.ok());
  int planned = 0, refused = 0;
  std::set<std::string> unexpressed;
  for (const auto& session : recipe::GroupSessions(expanded->points)) {
    const recipe::ServeSpec& serve = session.points.front().serve;
    auto plan = PlanSession(serve, DryRun(), Engines(), Sessions());
    const auto launch = recipe::LaunchPathFor(serve);
    if (launch == recipe::LaunchPath::kLlmD || launch == recipe::LaunchPath::kTileRt ||
        serve.framework == "atom-disagg") {
      EXPECT_FALSE(plan.ok());
      ++refused;
      continue;
    }
    if (!plan.ok() && plan.status().message().find("cannot express it") != std::string::npos) {
      // A parallelism the single-server adapter has no flag for (SGLang context
      // parallelism): its srt-slurm recipe supplies the flags; said, not guessed.
      unexpressed.insert(session.points.front().recipe + ": " + plan.status().message());
      continue;
    }
    ASSERT_TRUE(plan.ok()) << session.points.front().recipe << ": " << plan.status().ToString();
    ++planned;
    // Every GPU a worker takes is on a node of the session, and no two workers share one.
    std::set<std::pair<int, int>> used;
    for (const auto& p : plan->processes) {
      if (p.kind != ProcessKind::kWorker || p.node_rank > 0) continue;
      for (int n : p.nodes) {
        ASSERT_LT(n, plan->topology.nodes);
        for (int g : p.gpus) {
          ASSERT_LT(g, plan->topology.gpus_per_node);
          EXPECT_TRUE(used.insert({n, g}).second) << session.points.front().recipe;
        }
      }
    }
  }
  EXPECT_GT(planned, 400);
  EXPECT_GT(refused, 0);
  EXPECT_LE(unexpressed.size(), 3u) << ::testing::PrintToString(unexpressed);
}

}  // namespace
}  // namespace servebench::engine
