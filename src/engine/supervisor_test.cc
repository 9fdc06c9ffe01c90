// Supervisor against fake engines (testdata/fake_engines/*.sh) and an in-test HTTP
// server standing in for the engine's API. Real processes, real signals, real
// loopback HTTP; every wait is bounded.
#include "engine/supervisor.h"

#include <errno.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/clock.h"
#include "common/testing/files.h"
#include "engine/free_port.h"
#include "engine/testing/processes.h"
#include "net/testing/fake_openai_server.h"
#include "net/testing/tls_proxy.h"

namespace servebench::engine {
namespace {

using servebench::testing::ReadFileOrEmpty;
using ::testing::HasSubstr;

std::string FakeEngine(const std::string& name) {
  return std::string(SERVEBENCH_SOURCE_DIR) + "/src/engine/testdata/fake_engines/" + name;
}

std::string TempDir(const std::string& name) {
  const std::string dir =
      ::testing::TempDir() + "/sb_engine_" + std::to_string(getpid()) + "_" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

ServerCommand Command(std::vector<std::string> argv, int port = 1) {
  ServerCommand command;
  command.engine = "fake";
  command.argv = std::move(argv);
  command.host = "127.0.0.1";
  command.port = port;
  command.readiness_timeout_s = 10;
  command.readiness_poll_ms = 20;
  return command;
}

SupervisorOptions Options(const std::string& dir, double grace_s = 2) {
  SupervisorOptions options;
  options.log_path = dir + "/engine.log";
  options.stop_grace_s = grace_s;
  return options;
}

// The in-test engine API: /health answers 503 `unhealthy_probes` times, then 200.
net::testing::FakeServerOptions EngineApi(int unhealthy_probes, bool llama_cpp_style = false) {
  net::testing::FakeServerOptions options;
  options.unhealthy_probes = unhealthy_probes;
  options.llama_cpp_style = llama_cpp_style;
  return options;
}

// A loopback port with nothing listening.
int ClosedPort() { return *FindFreePort(); }

bool WaitForFile(const std::string& path, double within_s = 5) {
  const int64_t deadline = MonotonicNowNs() + static_cast<int64_t>(within_s * 1e9);
  while (MonotonicNowNs() < deadline) {
    if (std::filesystem::exists(path)) return true;
    usleep(20000);
  }
  return false;
}

std::vector<pid_t> ReadPids(const std::string& path) {
  std::ifstream in(path);
  std::vector<pid_t> pids;
  for (pid_t p; in >> p;) pids.push_back(p);
  return pids;
}

TEST(SupervisorTest, ReadyAfterHealthThenModelsAnswer200AndVersionIsRead) {
  const std::string dir = TempDir("ready");
  net::testing::FakeOpenAiServer server(EngineApi(/*unhealthy_probes=*/3));
  auto sup = Supervisor::Start(Command({FakeEngine("hang.sh")}, server.port()), Options(dir));
  ASSERT_TRUE(sup.ok()) << sup.status().ToString();
  auto ready = (*sup)->WaitUntilReady();
  ASSERT_TRUE(ready.ok()) << ready.status().ToString();
  EXPECT_EQ(ready->engine_version, "9.9.9-fake");
  EXPECT_THAT(ready->models_json, HasSubstr("\"fake\""));
  EXPECT_GE(server.requests(), 5);  // 3 unhealthy + healthy + models (+ version)
  EXPECT_TRUE((*sup)->IsAlive());
  const pid_t group = (*sup)->engine_pid();
  EXPECT_TRUE((*sup)->Stop().ok());
  EXPECT_TRUE(testing::ProcessGone(-group)) << "engine process group still has members";
}

TEST(SupervisorTest, LlamaCppVersionComesFromPropsBuildInfo) {
  const std::string dir = TempDir("props");
  net::testing::FakeOpenAiServer server(EngineApi(0, /*llama_cpp_style=*/true));
  auto sup = Supervisor::Start(Command({FakeEngine("hang.sh")}, server.port()), Options(dir));
  ASSERT_TRUE(sup.ok()) << sup.status().ToString();
  auto ready = (*sup)->WaitUntilReady();
  ASSERT_TRUE(ready.ok()) << ready.status().ToString();
  EXPECT_EQ(ready->engine_version, "b6500-abc123");
}

const std::string kTlsDir = std::string(SERVEBENCH_SOURCE_DIR) + "/src/net/testdata/tls/";

// A fake engine that serves https: the in-test API behind a TLS-terminating proxy,
// and the supervisor options a test adjusts before Start().
struct HttpsEngine {
  explicit HttpsEngine(const std::string& name) : dir(TempDir(name)), options(Options(dir)) {}
  StatusOr<std::unique_ptr<Supervisor>> Start(double readiness_timeout_s = 10) {
    ServerCommand command = Command({FakeEngine("hang.sh")}, proxy.port());
    command.tls = true;
    command.readiness_timeout_s = readiness_timeout_s;
    return Supervisor::Start(command, options);
  }
  std::string dir;
  SupervisorOptions options;
  net::testing::FakeOpenAiServer api{EngineApi(/*unhealthy_probes=*/1)};
  net::testing::TlsProxy proxy{api.port(), kTlsDir + "server.pem", kTlsDir + "server.key"};
};

TEST(SupervisorTest, HttpsEngineIsReadyWhenItsCertificateIsTrusted) {
  HttpsEngine engine("https_ready");
  engine.options.tls.ca_cert_file = kTlsDir + "ca.pem";
  auto sup = engine.Start();
  ASSERT_TRUE(sup.ok()) << sup.status().ToString();
  auto ready = (*sup)->WaitUntilReady();
  ASSERT_TRUE(ready.ok()) << ready.status().ToString();
  EXPECT_EQ(ready->engine_version, "9.9.9-fake");
  EXPECT_EQ(BaseUrl((*sup)->command()), "https://127.0.0.1:" + std::to_string(engine.proxy.port()));
}

TEST(SupervisorTest, HttpsEngineIsReadyUnverifiedWithInsecure) {
  HttpsEngine engine("https_insecure");
  engine.options.tls.insecure = true;
  auto sup = engine.Start();
  ASSERT_TRUE(sup.ok()) << sup.status().ToString();
  EXPECT_TRUE((*sup)->WaitUntilReady().ok());
}

TEST(SupervisorTest, HttpsEngineWithAnUntrustedCertificateNeverBecomesReady) {
  HttpsEngine engine("https_untrusted");
  auto sup = engine.Start(/*readiness_timeout_s=*/0.6);
  ASSERT_TRUE(sup.ok()) << sup.status().ToString();
  auto ready = (*sup)->WaitUntilReady();
  ASSERT_FALSE(ready.ok());
  EXPECT_EQ(ready.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_THAT((*sup)->failure()->summary, HasSubstr("on https://127.0.0.1:"));
  EXPECT_EQ(engine.api.requests(), 0) << "no request may pass an unverified handshake";
}

TEST(SupervisorTest, HttpsEngineWithAnUnreadableCaFileIsAStartFailure) {
  HttpsEngine engine("https_bad_ca");
  engine.options.tls.ca_cert_file = engine.dir + "/no-such-ca.pem";
  auto sup = engine.Start();
  ASSERT_FALSE(sup.ok());
  EXPECT_EQ(sup.status().code(), StatusCode::kInvalidArgument);
  // The message says what; the class (infra.start_failed) is the caller's to attach.
  EXPECT_THAT(sup.status().message(), HasSubstr("no-such-ca.pem"));
}

TEST(SupervisorTest, EarlyExitIsNoticedAtOnceAndClassifiedFromTheLog) {
  const std::string dir = TempDir("early_exit");
  ServerCommand command = Command({FakeEngine("print_and_exit.sh"),
                                   "ValueError: Model does not support EAGLE3 interface but "
                                   "aux_hidden_state_outputs was requested",
                                   "1"},
                                  ClosedPort());
  command.readiness_timeout_s = 60;
  command.readiness_poll_ms = 5000;  // exit must not wait out a poll gap
  const int64_t start = MonotonicNowNs();
  auto sup = Supervisor::Start(command, Options(dir));
  ASSERT_TRUE(sup.ok()) << sup.status().ToString();
  auto ready = (*sup)->WaitUntilReady();
  const double elapsed_s = (MonotonicNowNs() - start) / 1e9;
  ASSERT_FALSE(ready.ok());
  EXPECT_EQ(ready.status().code(), StatusCode::kUnavailable);
  EXPECT_LT(elapsed_s, 3.0);
  ASSERT_TRUE((*sup)->failure().has_value());
  EXPECT_EQ((*sup)->failure()->failure_class.name(), "server.spec.eagle3_unsupported");
  EXPECT_THAT((*sup)->failure()->summary, HasSubstr("exited with code 1 before it became ready"));
  EXPECT_THAT(ready.status().message(), HasSubstr("Model does not support EAGLE3 interface"));
  EXPECT_EQ((*sup)->exit_info()->exit_code, 1);
}

// An engine that exits before readiness without a word (llama-server can lose its
// last log lines): what the host shows names the cause (exit_facts.h).
TEST(SupervisorTest, SilentEarlyExitIsClassifiedByAMissingInputFile) {
  const std::string dir = TempDir("silent_missing");
  ServerCommand command = Command({FakeEngine("print_and_exit.sh"), "", "1"}, ClosedPort());
  command.input_files = {{dir + "/absent.gguf", "serve.model"}};
  auto sup = Supervisor::Start(command, Options(dir));
  ASSERT_TRUE(sup.ok()) << sup.status().ToString();
  ASSERT_FALSE((*sup)->WaitUntilReady().ok());
  ASSERT_TRUE((*sup)->failure().has_value());
  EXPECT_EQ((*sup)->failure()->failure_class.name(), "model.file_missing");
  EXPECT_THAT((*sup)->failure()->summary, HasSubstr("absent.gguf (serve.model) does not exist"));
}

TEST(SupervisorTest, SilentEarlyExitIsClassifiedByAPortHeldByAnotherProcess) {
  const std::string dir = TempDir("silent_port");
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(listen(fd, 1), 0);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ServerCommand command = Command({FakeEngine("print_and_exit.sh"), "", "1"}, ntohs(addr.sin_port));
  auto sup = Supervisor::Start(command, Options(dir));
  ASSERT_TRUE(sup.ok()) << sup.status().ToString();
  ASSERT_FALSE((*sup)->WaitUntilReady().ok());
  close(fd);
  ASSERT_TRUE((*sup)->failure().has_value());
  EXPECT_EQ((*sup)->failure()->failure_class.name(), "infra.port_in_use");
  EXPECT_THAT((*sup)->failure()->summary, HasSubstr("another process holds 127.0.0.1:"));
}

// With nothing to show, the situation's class stays.
TEST(SupervisorTest, SilentEarlyExitWithNothingToShowIsDiedBeforeReady) {
  const std::string dir = TempDir("silent_nothing");
  ServerCommand command = Command({FakeEngine("print_and_exit.sh"), "", "1"}, ClosedPort());
  command.input_files = {{FakeEngine("print_and_exit.sh"), "serve.model"}};  // exists
  auto sup = Supervisor::Start(command, Options(dir));
  ASSERT_TRUE(sup.ok()) << sup.status().ToString();
  ASSERT_FALSE((*sup)->WaitUntilReady().ok());
  EXPECT_EQ((*sup)->failure()->failure_class.name(), "server.died_before_ready");
}

TEST(SupervisorTest, ReadinessDeadlineWithTheEngineAliveIsATimeout) {
  const std::string dir = TempDir("timeout");
  ServerCommand command = Command({FakeEngine("hang.sh")}, ClosedPort());
  command.readiness_timeout_s = 0.6;
  auto sup = Supervisor::Start(command, Options(dir));
  ASSERT_TRUE(sup.ok()) << sup.status().ToString();
  auto ready = (*sup)->WaitUntilReady();
  ASSERT_FALSE(ready.ok());
  EXPECT_EQ(ready.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ((*sup)->failure()->failure_class.name(), "server.readiness_timeout");
  EXPECT_THAT((*sup)->failure()->summary, HasSubstr("not ready after 0.6 s"));
  EXPECT_THAT((*sup)->failure()->summary, HasSubstr("loading weights"));
  EXPECT_TRUE((*sup)->IsAlive());
  EXPECT_TRUE((*sup)->Stop().ok());
  EXPECT_EQ((*sup)->exit_info()->signal, SIGTERM);
}

TEST(SupervisorTest, MissingEngineBinaryIsCommandNotFound) {
  const std::string dir = TempDir("missing");
  auto sup = Supervisor::Start(Command({"servebench-no-such-engine", "--port", "1"}, ClosedPort()),
                               Options(dir));
  ASSERT_TRUE(sup.ok()) << sup.status().ToString();
  auto ready = (*sup)->WaitUntilReady();
  ASSERT_FALSE(ready.ok());
  EXPECT_EQ((*sup)->failure()->failure_class.name(), "infra.command_not_found");
  EXPECT_EQ((*sup)->exit_info()->exit_code, 127);
}

TEST(SupervisorTest, StopEscalatesToSigkillWhenSigtermIsIgnored) {
  const std::string dir = TempDir("ignore_term");
  auto sup =
      Supervisor::Start(Command({FakeEngine("ignore_term.sh")}), Options(dir, /*grace_s=*/0.3));
  ASSERT_TRUE(sup.ok()) << sup.status().ToString();
  for (int i = 0;
       i < 250 && ReadFileOrEmpty(dir + "/engine.log").find("ignoring") == std::string::npos; ++i) {
    usleep(20000);  // let the script install its trap
  }
  const pid_t group = (*sup)->engine_pid();
  const int64_t start = MonotonicNowNs();
  EXPECT_TRUE((*sup)->Stop().ok());
  EXPECT_LT((MonotonicNowNs() - start) / 1e9, 3.0);
  EXPECT_EQ((*sup)->exit_info()->signal, SIGKILL);
  EXPECT_TRUE(testing::ProcessGone(-group));
}

TEST(SupervisorTest, StopLeavesNoWorkerOrOrphanedGrandchild) {
  const std::string dir = TempDir("workers");
  const std::string pidfile = dir + "/workers.pid";
  auto sup = Supervisor::Start(Command({FakeEngine("grandchildren.sh"), pidfile}), Options(dir));
  ASSERT_TRUE(sup.ok()) << sup.status().ToString();
  ASSERT_TRUE(WaitForFile(pidfile));
  const std::vector<pid_t> workers = ReadPids(pidfile);
  ASSERT_EQ(workers.size(), 2u);
  const pid_t group = (*sup)->engine_pid();
  EXPECT_TRUE((*sup)->Stop().ok());
  for (pid_t w : workers) EXPECT_TRUE(testing::ProcessGone(w)) << "worker " << w;
  EXPECT_TRUE(testing::ProcessGone(-group));
}

TEST(SupervisorTest, WorkersOfAnEngineThatExitedAreKilled) {
  const std::string dir = TempDir("exit_workers");
  const std::string pidfile = dir + "/workers.pid";
  auto sup =
      Supervisor::Start(Command({FakeEngine("grandchildren.sh"), pidfile, "exit"}), Options(dir));
  ASSERT_TRUE(sup.ok()) << sup.status().ToString();
  ASSERT_TRUE(WaitForFile(pidfile));
  const std::vector<pid_t> workers = ReadPids(pidfile);
  auto exit = (*sup)->WaitForExit(5000);
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->exit_code, 0);
  for (pid_t w : workers) EXPECT_TRUE(testing::ProcessGone(w)) << "worker " << w;
}

TEST(SupervisorTest, SigkilledEngineIsNoticedAndClassifiedDiedDuringRun) {
  const std::string dir = TempDir("sigkill");
  net::testing::FakeOpenAiServer server;
  auto sup = Supervisor::Start(Command({FakeEngine("hang.sh")}, server.port()), Options(dir));
  ASSERT_TRUE(sup.ok()) << sup.status().ToString();
  ASSERT_TRUE((*sup)->WaitUntilReady().ok());
  ASSERT_EQ(kill((*sup)->engine_pid(), SIGKILL), 0);
  auto exit = (*sup)->WaitForExit(3000);
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->signal, SIGKILL);
  EXPECT_FALSE((*sup)->IsAlive());
  EngineFailure failure = (*sup)->Classify(Situation::kDiedDuringRun);
  EXPECT_EQ(failure.failure_class, failure_class::kServerDiedDuringRun);
  EXPECT_THAT(failure.summary, HasSubstr("killed by signal 9 (SIGKILL) while serving"));
  EXPECT_TRUE(testing::ProcessGone(-(*sup)->engine_pid()));
}

TEST(SupervisorTest, NoEngineProcessOutlivesAKilledServebench) {
  const std::string dir = TempDir("parent_killed");
  const std::string pidfile = dir + "/workers.pid";
  const std::string enginefile = dir + "/engine.pid";
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Stands in for servebench: starts an engine, then is SIGKILLed by the test.
    ServerCommand command = Command({FakeEngine("grandchildren.sh"), pidfile});
    command.cleanup_argv = {"/bin/sh", "-c", "echo cleaned > " + dir + "/cleanup.txt"};
    auto sup = Supervisor::Start(command, Options(dir, 0.5));
    if (!sup.ok()) _exit(1);
    std::ofstream(enginefile + ".tmp") << (*sup)->engine_pid() << "\n";
    std::filesystem::rename(enginefile + ".tmp", enginefile);
    for (;;) pause();
  }
  ASSERT_TRUE(WaitForFile(enginefile));
  ASSERT_TRUE(WaitForFile(pidfile));
  const pid_t engine = ReadPids(enginefile).at(0);
  const std::vector<pid_t> workers = ReadPids(pidfile);
  ASSERT_EQ(kill(child, SIGKILL), 0);
  waitpid(child, nullptr, 0);
  EXPECT_TRUE(testing::ProcessGone(-engine))
      << "engine group " << engine << " outlived its servebench";
  for (pid_t w : workers) EXPECT_TRUE(testing::ProcessGone(w)) << "worker " << w;
  EXPECT_TRUE(WaitForFile(dir + "/cleanup.txt"))
      << "the cleanup command (docker rm -f) did not run";
}

TEST(SupervisorTest, CleanupCommandRunsAfterStopWithOutputInTheLog) {
  const std::string dir = TempDir("cleanup");
  ServerCommand command = Command({FakeEngine("hang.sh")});
  command.cleanup_argv = {"/bin/sh", "-c", "echo removing container; exit 1"};
  auto sup = Supervisor::Start(command, Options(dir));
  ASSERT_TRUE(sup.ok()) << sup.status().ToString();
  EXPECT_TRUE((*sup)->Stop().ok());  // a failed `docker rm -f` (already removed) is not an error
  ASSERT_TRUE((*sup)->exit_info().has_value());
  EXPECT_EQ((*sup)->exit_info()->cleanup_exit_code, 1);
  EXPECT_THAT(ReadFileOrEmpty(dir + "/engine.log"), HasSubstr("removing container"));
}

TEST(SupervisorTest, EchoCopiesEachLogLineWithThePrefix) {
  const std::string dir = TempDir("echo");
  SupervisorOptions options = Options(dir);
  options.echo = true;
  options.echo_prefix = "[fake] ";
  ::testing::internal::CaptureStderr();
  {
    auto sup = Supervisor::Start(
        Command({FakeEngine("print_and_exit.sh"), "hello from the engine", "0"}), options);
    ASSERT_TRUE(sup.ok()) << sup.status().ToString();
    ASSERT_TRUE((*sup)->WaitForExit(5000).has_value());
    EXPECT_TRUE((*sup)->Stop().ok());
  }
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(err, HasSubstr("[fake] hello from the engine\n"));
  EXPECT_THAT(err, HasSubstr("[fake] INFO fake engine starting"));
}

TEST(SupervisorTest, ConfigFilesAndEnvironmentReachTheEngine) {
  const std::string dir = TempDir("config");
  ServerCommand command =
      Command({"/bin/sh", "-c", "cat \"$0\"; echo \"ACC=$SB_TEST_ACC\"", dir + "/cfg/x.yaml"});
  command.files.push_back({dir + "/cfg/x.yaml", "speculative_config:\n  max_draft_len: 3\n"});
  command.env["SB_TEST_ACC"] = "1.78";
  auto sup = Supervisor::Start(command, Options(dir));
  ASSERT_TRUE(sup.ok()) << sup.status().ToString();
  ASSERT_TRUE((*sup)->WaitForExit(5000).has_value());
  const std::string log = ReadFileOrEmpty(dir + "/engine.log");
  EXPECT_THAT(log, HasSubstr("max_draft_len: 3"));
  EXPECT_THAT(log, HasSubstr("ACC=1.78"));
}

TEST(SupervisorTest, UnwritableLogIsAStartFailure) {
  auto sup = Supervisor::Start(Command({"/bin/true"}), Options("/proc/no/such/dir"));
  ASSERT_FALSE(sup.ok());
  // The class (infra.start_failed) is the caller's to attach; the message says what.
  EXPECT_THAT(sup.status().message(), HasSubstr("cannot open engine log /proc/no/such/dir"));
}

TEST(SupervisorTest, FindFreePortGivesABindableLoopbackPort) {
  auto port = FindFreePort();
  ASSERT_TRUE(port.ok()) << port.status().ToString();
  EXPECT_GT(*port, 0);
  net::testing::FakeOpenAiServer unused;  // another listener does not make it fail
  EXPECT_TRUE(FindFreePort().ok());
  EXPECT_FALSE(FindFreePort("not-an-address").ok());
}

TEST(SupervisorTest, StopAllEnginesStopsEveryLiveEngine) {
  const std::string dir1 = TempDir("all1"), dir2 = TempDir("all2");
  auto a = Supervisor::Start(Command({FakeEngine("hang.sh")}), Options(dir1));
  auto b = Supervisor::Start(Command({FakeEngine("ignore_term.sh")}), Options(dir2, 0.2));
  ASSERT_TRUE(a.ok() && b.ok());
  StopAllEngines();
  EXPECT_FALSE((*a)->IsAlive());
  EXPECT_FALSE((*b)->IsAlive());
  EXPECT_TRUE(testing::ProcessGone(-(*a)->engine_pid()));
  EXPECT_TRUE(testing::ProcessGone(-(*b)->engine_pid()));
}

TEST(SupervisorTest, KillAllFromSignalHandlerKillsEveryGroup) {
  const std::string dir = TempDir("killall");
  auto sup = Supervisor::Start(Command({FakeEngine("ignore_term.sh")}), Options(dir));
  ASSERT_TRUE(sup.ok());
  KillAllEnginesFromSignalHandler();
  auto exit = (*sup)->WaitForExit(3000);
  ASSERT_TRUE(exit.has_value());
  EXPECT_TRUE(testing::ProcessGone(-(*sup)->engine_pid()));
}

}  // namespace
}  // namespace servebench::engine
