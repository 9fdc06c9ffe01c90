// The llamacpp adapter and the supervisor starting a real, unpatched llama-server
// (label realengine): readiness, /props build_info as the engine version, -np from
// the session's concurrency, and each failure class of its real log lines provoked
// for real: a missing model file, a port in use, an unknown flag, out of context.
// llama-server loses its last log lines at exit about half the time (its logger
// thread is not joined): a missing model or a held port is then classified by what
// the host shows (engine/exit_facts.h), so these tests accept either source but
// always the class.
#include <arpa/inet.h>
#include <errno.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/json.hpp>

#include "common/clock.h"
#include "engine/testing/processes.h"
#include "engine/testing/real_llama.h"
#include "net/http_fetch.h"

namespace servebench::engine {
namespace {

using ::testing::HasSubstr;
using testing::LlamaServer;
using testing::LlamaServerOptions;

std::string LogPath(const std::string& name) {
  return ::testing::TempDir() + "/llamacpp-engine-" + name + "-" + std::to_string(getpid()) +
         ".log";
}

class LlamacppEngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto llama = testing::LoadRealLlama();
    ASSERT_TRUE(llama.ok()) << llama.status().ToString();
    llama_ = *llama;
  }
  // Starts `spec` and expects it never to become ready: returns the classification.
  EngineFailure FailedStart(const recipe::ServeSpec& spec, const std::string& name, int port = 0) {
    auto sup = testing::StartSupervised(spec, 2, LogPath(name), port);
    EXPECT_TRUE(sup.ok()) << sup.status().ToString();
    if (!sup.ok()) return {};
    auto ready = (*sup)->WaitUntilReady();
    EXPECT_FALSE(ready.ok());
    EXPECT_TRUE((*sup)->failure().has_value());
    return (*sup)->failure().value_or(EngineFailure{});
  }
  testing::RealLlama llama_;
};

TEST_F(LlamacppEngineTest, BecomesReadyWithBuildInfoAsVersionAndSlotsFromConcurrency) {
  LlamaServerOptions o;
  o.slots = 3;
  auto server = LlamaServer::Start(llama_, o, LogPath("ready"));
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  const ReadyInfo& ready = (*server)->ready();
  // llama.cpp 0.4.0 of node-llama-cpp 3.21.1: /props build_info "b1-80fb11a".
  EXPECT_THAT(ready.engine_version, HasSubstr("80fb11a"));
  EXPECT_LT(ready.ready_after_s, 30);
  EXPECT_THAT(ready.models_json, HasSubstr("\"tiny\""));
  auto url = net::ParseUrl((*server)->base_url());
  ASSERT_TRUE(url.ok());
  auto props = net::HttpFetch(*url, "/props", "", 10);
  ASSERT_TRUE(props.ok()) << props.status().ToString();
  boost::json::value p = boost::json::parse(props->body);
  EXPECT_EQ(p.at("total_slots").as_int64(), 3);
  EXPECT_EQ(p.at("default_generation_settings").at("n_ctx").as_int64(), 2048)
      << "each slot holds max_model_len";
  pid_t group = (*server)->supervisor().engine_pid();
  EXPECT_TRUE((*server)->supervisor().Stop().ok());
  EXPECT_TRUE(testing::ProcessGone(-group, 10));
}

TEST_F(LlamacppEngineTest, MissingModelFileIsClassified) {
  recipe::ServeSpec spec = testing::LlamaServeSpec(llama_, {});
  spec.model = llama_.models + "/no-such-model.gguf";
  EngineFailure f = FailedStart(spec, "missing-model");
  EXPECT_EQ(f.failure_class.name(), "model.file_missing") << f.summary;
  EXPECT_THAT(f.summary, HasSubstr("no-such-model.gguf"));
  if (!f.matched_line.empty()) {
    EXPECT_THAT(f.matched_line, HasSubstr("failed to open GGUF file"));
  }
}

TEST_F(LlamacppEngineTest, PortInUseIsClassified) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(listen(fd, 4), 0);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  EngineFailure f = FailedStart(testing::LlamaServeSpec(llama_, {}), "port", ntohs(addr.sin_port));
  close(fd);
  EXPECT_EQ(f.failure_class.name(), "infra.port_in_use") << f.summary;
  if (!f.matched_line.empty()) {
    EXPECT_THAT(f.matched_line, HasSubstr("couldn't bind HTTP server socket"));
  }
}

TEST_F(LlamacppEngineTest, UnknownFlagIsClassified) {
  recipe::ServeSpec spec = testing::LlamaServeSpec(llama_, {});
  spec.extra_args.push_back("--no-such-flag");
  EngineFailure f = FailedStart(spec, "flag");
  EXPECT_EQ(f.failure_class.name(), "server.unknown_flag") << f.summary;
  EXPECT_THAT(f.matched_line, HasSubstr("--no-such-flag"));
}

// A prompt longer than a slot's context is refused (HTTP 400) while the server keeps
// serving; its log line classifies the point's failed requests.
TEST_F(LlamacppEngineTest, RequestLongerThanTheContextIsClassified) {
  LlamaServerOptions o;
  o.max_model_len = 128;
  auto server = LlamaServer::Start(llama_, o, LogPath("context"));
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  std::string prompt;
  for (int i = 0; i < 300; ++i) prompt += "word ";
  boost::json::object body{{"model", "tiny"}, {"prompt", prompt}, {"max_tokens", 4}};
  auto url = net::ParseUrl((*server)->base_url());
  ASSERT_TRUE(url.ok());
  auto reply = net::HttpFetch(*url, "/v1/completions", boost::json::serialize(body), 30);
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_EQ(reply->status, 400) << reply->body;
  EXPECT_TRUE((*server)->supervisor().IsAlive());
  EngineFailure f = (*server)->supervisor().Classify(Situation::kRequestsFailed);
  EXPECT_EQ(f.failure_class.name(), "server.context_exceeded") << f.summary;
}

}  // namespace
}  // namespace servebench::engine
