// HttpServer's send-time stamps, in process: a placeholder is written with the time
// of the send() that carries it, not the time the chunk was built.
#include "sim/http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <string>
#include <thread>

#include "common/clock.h"

namespace servebench::sim {
namespace {

constexpr int64_t kBusyNs = 30'000'000;  // the rest of a long loop iteration

// Answers every request with one stamped chunk, then keeps the loop busy before the
// iteration ends (when the server flushes), then ends the stream.
class StampingHandler final : public HttpServer::Handler {
 public:
  HttpServer* server = nullptr;
  int64_t built_ns = 0;
  void OnRequest(ConnId conn, HttpRequest&) override {
    server->BeginStream(conn, 200, "text/event-stream");
    std::string chunk = "data: {\"stamped\":";
    size_t at = chunk.size();
    chunk += HttpServer::kSendStampPlaceholder;
    chunk += ",\"unstamped\":";
    chunk += HttpServer::kSendStampPlaceholder;
    chunk += "}\n\n";
    size_t stamps[] = {at};
    server->WriteChunk(conn, chunk, stamps);
    built_ns = MonotonicNowNs();
    while (MonotonicNowNs() < built_ns + kBusyNs) {
    }
    server->EndStream(conn);
  }
  void OnConnectionLost(ConnId) override {}
};

std::string Exchange(int port, const std::string& request) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return "";
  (void)write(fd, request.data(), request.size());
  std::string got;
  char buf[4096];
  while (got.find("0\r\n\r\n") == std::string::npos) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return got;
}

TEST(HttpServerTest, SendStampIsTakenAtSendNotWhenTheChunkWasBuilt) {
  auto loop = EventLoop::Create();
  ASSERT_TRUE(loop.ok()) << loop.status().ToString();
  StampingHandler handler;
  auto server = HttpServer::Listen(loop->get(), "127.0.0.1", 0, &handler);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  handler.server = server->get();
  std::thread loop_thread([&] { (void)(*loop)->Run(); });

  std::string response = Exchange((*server)->port(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  int64_t received_ns = MonotonicNowNs();
  (*loop)->Stop();
  loop_thread.join();

  size_t data = response.find("data: ");
  ASSERT_NE(data, std::string::npos) << response;
  size_t end = response.find("\n\n", data);
  boost::json::object event =
      boost::json::parse(response.substr(data + 6, end - data - 6)).as_object();
  int64_t stamp = event.at("stamped").as_int64();
  EXPECT_GE(stamp, handler.built_ns + kBusyNs) << "stamped before the bytes left";
  EXPECT_LE(stamp, received_ns);
  EXPECT_EQ(event.at("unstamped").as_int64(), -1) << "a placeholder without an offset stays -1";
}

}  // namespace
}  // namespace servebench::sim
