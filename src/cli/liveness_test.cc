// Liveness and progress: bench and eval probe the server first with the same probe
// and message, so a server that accepts connections and never answers is reported in
// seconds (it used to hang eval for 300 s x 4 attempts per question); eval and run
// print progress as they go, as plain lines when stderr is not a terminal.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_test_util.h"
#include "net/testing/fake_openai_server.h"

namespace servebench::cli::testing {
namespace {

using ::testing::HasSubstr;

// Accepts every connection on 127.0.0.1 and never sends a byte.
class SilentServer {
 public:
  SilentServer() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    ::listen(fd_, 64);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] {
      while (!stop_) {
        int c = ::accept(fd_, nullptr, nullptr);
        if (c >= 0) accepted_.push_back(c);
      }
    });
  }
  ~SilentServer() {
    stop_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
    for (int c : accepted_) ::close(c);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::vector<int> accepted_;  // only the accept thread touches it until join
  std::thread thread_;
};

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

class LivenessTest : public CliTest {};

TEST_F(LivenessTest, BenchAndEvalReportASilentServerWithTheSameProbeMessage) {
  SilentServer server;
  std::string data = Path("gsm.jsonl");
  ASSERT_EQ(Servebench("eval make-synthetic --count 5 --output " + data).exit_code, 0);
  const std::string expected =
      "server at " + server.url() + " accepted the connection but did not answer GET /v1/models";
  // Both at once (each probe waits out its deadline): outputs and codes to files.
  std::string bin = SERVEBENCH_BIN;
  std::string both = "cd " + dir_.string() + " && { (" + bin + " bench --model m --base-url " +
                     server.url() + " > bench.out 2>&1; echo $? > bench.rc) & (" + bin +
                     " eval --base-url " + server.url() + " --model m --data " + data +
                     " --num-fewshot 0 > eval.out 2>&1; echo $? > eval.rc) & wait; }";
  auto start = std::chrono::steady_clock::now();
  servebench::testing::RunShell(both);
  EXPECT_LT(Seconds(start), 30) << "both probes gave up within their deadline";
  ShellResult bench{std::stoi("0" + servebench::testing::ReadFileOrEmpty(Path("bench.rc"))),
                    servebench::testing::ReadFileOrEmpty(Path("bench.out"))};
  ShellResult eval{std::stoi("0" + servebench::testing::ReadFileOrEmpty(Path("eval.rc"))),
                   servebench::testing::ReadFileOrEmpty(Path("eval.out"))};
  EXPECT_EQ(bench.exit_code, 3) << bench.output;
  EXPECT_EQ(eval.exit_code, 3) << eval.output;
  EXPECT_THAT(bench.output, HasSubstr(expected));
  EXPECT_THAT(eval.output, HasSubstr(expected));
}

TEST_F(LivenessTest, EvalAgainstNothingListeningFailsAtOnce) {
  std::string data = Path("gsm.jsonl");
  ASSERT_EQ(Servebench("eval make-synthetic --count 5 --output " + data).exit_code, 0);
  ShellResult eval = Servebench("eval --base-url http://127.0.0.1:1 --model m --data " + data +
                                " --num-fewshot 0");
  EXPECT_EQ(eval.exit_code, 3) << eval.output;
  EXPECT_THAT(eval.output, HasSubstr("server at http://127.0.0.1:1 is not reachable"));
}

TEST_F(LivenessTest, EvalShowsQuestionsDoneAndAccuracySoFar) {
  net::testing::FakeOpenAiServer server([](const std::string&) {
    return net::testing::FakeReply{200, "so #### 4"};
  });
  std::string data = Path("gsm.jsonl");
  ASSERT_EQ(Servebench("eval make-synthetic --count 6 --output " + data).exit_code, 0);
  ShellResult r = Servebench("eval --base-url " + server.base_url() + " --model m --data " + data +
                             " --num-fewshot 0 --num-concurrent 2");
  EXPECT_NE(r.exit_code, 3) << r.output;
  EXPECT_THAT(r.output, HasSubstr("servebench eval: 6/6 questions, accuracy so far 0."));
  EXPECT_THAT(r.output, HasSubstr("(flexible-extract), 0 failed"));
}

TEST_F(LivenessTest, RunShowsPointKOfNWithSessionAndEta) {
  std::string recipe = SimRecipe("recipe.yaml", "", "[1, 2, 4]");
  ShellResult r = Servebench("run " + recipe + RunFlags());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("point 1/3 (session 1/1 "));
  EXPECT_THAT(r.output, HasSubstr("point 3/3 (session 1/1 "));
  EXPECT_THAT(r.output, HasSubstr(", ETA "));
  // Inside each point, the bench line's final state (plain: stderr is not a terminal).
  EXPECT_THAT(r.output, HasSubstr("4/4 requests done, 0 failed"));
}

}  // namespace
}  // namespace servebench::cli::testing
