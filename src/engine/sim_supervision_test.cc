// The supervisor driving the real simulated engine (`servebench sim`, SERVEBENCH_BIN)
// through the sim adapter: readiness, a readiness timeout, a startup failure with
// the seed's EAGLE3 line, a SIGKILLed engine, and no process left behind.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>

#include "common/testing/files.h"
#include "engine/engine.h"
#include "engine/testing/processes.h"

namespace servebench::engine {
namespace {

using ::testing::HasSubstr;

constexpr char kEagle3Line[] =
    "ValueError: Model does not support EAGLE3 interface but aux_hidden_state_outputs was "
    "requested";

class SimSupervisionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(std::filesystem::exists(SERVEBENCH_BIN)) << SERVEBENCH_BIN;
    dir_ = servebench::testing::FreshTestDir("sim_sup");
  }

  recipe::ServeSpec Spec() const {
    recipe::ServeSpec spec;
    spec.engine = "sim";
    spec.model = "llama-3.1-8b";
    spec.hardware = "h200";
    spec.sim_options = {{"time-scale", "0"}};
    return spec;
  }

  std::unique_ptr<Supervisor> Start(const recipe::ServeSpec& spec) {
    RenderOptions options;
    options.port = *FindFreePort();
    options.servebench_bin = SERVEBENCH_BIN;
    options.work_dir = dir_;
    auto command = RenderServerCommand(spec, options);
    EXPECT_TRUE(command.ok()) << command.status().ToString();
    if (!command.ok()) return nullptr;
    SupervisorOptions sup_options;
    sup_options.log_path = dir_ + "/engine.log";
    sup_options.stop_grace_s = 3;
    auto sup = Supervisor::Start(*command, sup_options);
    EXPECT_TRUE(sup.ok()) << sup.status().ToString();
    return sup.ok() ? std::move(sup).value() : nullptr;
  }

  std::string dir_;
};

TEST_F(SimSupervisionTest, SimBecomesReadyReportsItsVersionAndStopsCleanly) {
  auto sup = Start(Spec());
  ASSERT_NE(sup, nullptr);
  auto ready = sup->WaitUntilReady();
  ASSERT_TRUE(ready.ok()) << ready.status().ToString();
  EXPECT_FALSE(ready->engine_version.empty());
  EXPECT_LT(ready->ready_after_s, 10);
  const pid_t group = sup->engine_pid();
  EXPECT_TRUE(sup->Stop().ok());
  ASSERT_TRUE(sup->exit_info().has_value());
  EXPECT_TRUE(testing::ProcessGone(-group));
}

TEST_F(SimSupervisionTest, SeedEagle3StartupFailureIsClassified) {
  recipe::ServeSpec spec = Spec();
  spec.sim_options["fault-exit-at-startup"] = kEagle3Line;
  spec.sim_options["fault-exit-code"] = "3";
  auto sup = Start(spec);
  ASSERT_NE(sup, nullptr);
  auto ready = sup->WaitUntilReady();
  ASSERT_FALSE(ready.ok());
  ASSERT_TRUE(sup->failure().has_value());
  EXPECT_EQ(sup->failure()->failure_class.name(), "server.spec.eagle3_unsupported");
  EXPECT_THAT(sup->failure()->summary, HasSubstr("exited with code 3 before it became ready"));
  EXPECT_THAT(sup->failure()->matched_line, HasSubstr(kEagle3Line));
}

TEST_F(SimSupervisionTest, SlowReadinessPastTheDeadlineIsATimeout) {
  recipe::ServeSpec spec = Spec();
  spec.readiness_timeout_s = 1;
  spec.sim_options["fault-ready-after-s"] = "30";
  auto sup = Start(spec);
  ASSERT_NE(sup, nullptr);
  auto ready = sup->WaitUntilReady();
  ASSERT_FALSE(ready.ok());
  EXPECT_EQ(ready.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(sup->failure()->failure_class.name(), "server.readiness_timeout");
  EXPECT_TRUE(sup->IsAlive());
  const pid_t group = sup->engine_pid();
  EXPECT_TRUE(sup->Stop().ok());
  EXPECT_TRUE(testing::ProcessGone(-group));
}

TEST_F(SimSupervisionTest, ReadinessWaitsOutASlowStart) {
  recipe::ServeSpec spec = Spec();
  spec.sim_options["fault-ready-after-s"] = "0.5";
  auto sup = Start(spec);
  ASSERT_NE(sup, nullptr);
  auto ready = sup->WaitUntilReady();
  ASSERT_TRUE(ready.ok()) << ready.status().ToString();
  EXPECT_GE(ready->ready_after_s, 0.5);
}

TEST_F(SimSupervisionTest, SigkilledSimIsDetectedAsDiedDuringRunAndNothingIsLeft) {
  auto sup = Start(Spec());
  ASSERT_NE(sup, nullptr);
  ASSERT_TRUE(sup->WaitUntilReady().ok());
  const pid_t group = sup->engine_pid();
  ASSERT_EQ(kill(group, SIGKILL), 0);
  auto exit = sup->WaitForExit(3000);
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->signal, SIGKILL);
  EngineFailure failure = sup->Classify(Situation::kDiedDuringRun);
  EXPECT_EQ(failure.failure_class, failure_class::kServerDiedDuringRun);
  EXPECT_TRUE(testing::ProcessGone(-group));
}

}  // namespace
}  // namespace servebench::engine
