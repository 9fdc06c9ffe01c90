#include "engine/free_port.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <random>

#include "engine/engine_catalog.h"

namespace servebench::engine {
namespace {

// Ports below this are left to services (PostgreSQL's 5432, engines' 8000, 30000...
// sit above it too, but a listener there fails the bind check below).
constexpr int kLowestPickedPort = 10000;
// Draws tried below the ephemeral range before falling back to the kernel's pick.
constexpr int kDraws = 64;

// The first port of the kernel's ephemeral range; 32768 (Linux's default) when the
// file cannot be read.
int EphemeralLow() {
  std::ifstream in("/proc/sys/net/ipv4/ip_local_port_range");
  int low = 0;
  int high = 0;
  if (in >> low >> high && low > 0) return low;
  return 32768;
}

// Binds a listening-capable socket to `addr` (port 0: the kernel's pick) and returns
// the port it got, or the errno of the failure as a negative number.
int TryBind(sockaddr_in addr) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -errno;
  socklen_t len = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    const int err = errno;
    close(fd);
    return -err;
  }
  close(fd);
  return static_cast<int>(ntohs(addr.sin_port));
}

}  // namespace

StatusOr<int> FindFreePort(const std::string& host) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  if (inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) {
    return Status::InvalidArgument(fmt::format("host \"{}\": not an IPv4 address", host));
  }
  const int ephemeral_low = EphemeralLow();
  if (ephemeral_low - 1 > kLowestPickedPort) {
    thread_local std::mt19937 rng{std::random_device{}()};
    std::uniform_int_distribution<int> draw(kLowestPickedPort, ephemeral_low - 1);
    for (int i = 0; i < kDraws; ++i) {
      addr.sin_port = htons(static_cast<uint16_t>(draw(rng)));
      const int port = TryBind(addr);
      if (port > 0) return port;
    }
  }
  addr.sin_port = 0;
  const int port = TryBind(addr);
  if (port < 0) {
    return Status::Unavailable(
        fmt::format("cannot bind a port on {}: {}", host, std::strerror(-port)));
  }
  return port;
}

bool IsPortTaken(const FailureClass& c) {
  auto catalog = DefaultEngineCatalog();
  if (!catalog.ok()) return false;
  const auto& situations = (*catalog)->signatures.situations;
  auto it = situations.find("port_held");
  return it != situations.end() && it->second == c;
}

}  // namespace servebench::engine
