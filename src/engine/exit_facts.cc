#include "engine/exit_facts.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

namespace servebench::engine {
namespace {

// True when binding host:port fails because another socket holds it. SO_REUSEADDR,
// so a connection of the dead engine lingering in TIME_WAIT does not count.
bool PortHeld(const std::string& host, int port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (port <= 0 || inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) return false;
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  bool held = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 && errno == EADDRINUSE;
  close(fd);
  return held;
}

}  // namespace

std::optional<ExitFact> FindExitFact(const ServerCommand& command) {
  for (const InputFile& f : command.input_files) {
    std::error_code ec;
    if (!std::filesystem::exists(f.path, ec)) {
      return ExitFact{"input_file_missing", fmt::format("{} ({}) does not exist", f.path, f.field)};
    }
  }
  if (PortHeld(command.host, command.port)) {
    return ExitFact{"port_held", fmt::format("another process holds {}:{} (bind: {})", command.host,
                                             command.port, std::strerror(EADDRINUSE))};
  }
  return std::nullopt;
}

}  // namespace servebench::engine
