#include "run/slurm_steps.h"

#include <fmt/format.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "run/slurm.h"

namespace servebench::run {
namespace {

// stdout of a shell command line (stderr discarded), and its exit code.
std::pair<int, std::string> Capture(const std::string& command_line) {
  std::string out;
  FILE* pipe = ::popen((command_line + " 2>/dev/null").c_str(), "r");
  if (pipe == nullptr) return {-1, out};
  char buf[4096];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace

StatusOr<std::vector<SlurmNode>> AllocationNodes() {
  const char* job = std::getenv("SLURM_JOB_ID");
  const char* list = std::getenv("SLURM_JOB_NODELIST");
  if (job == nullptr || list == nullptr || *list == '\0') {
    return Status::FailedPrecondition(
        "--slurm-steps: not inside a Slurm allocation (SLURM_JOB_ID / SLURM_JOB_NODELIST unset)");
  }
  auto [rc, names] = Capture("scontrol show hostnames " + ShellQuote(list));
  if (rc != 0 || names.empty()) {
    return Status::Unavailable(fmt::format("scontrol show hostnames {} failed", list));
  }
  std::vector<SlurmNode> nodes;
  std::istringstream lines(names);
  for (std::string name; std::getline(lines, name);) {
    if (name.empty()) continue;
    SlurmNode n{name, name};
    // NodeAddr is what the node is reached at (several node names may share one host).
    auto [rc2, info] = Capture("scontrol show node " + ShellQuote(name));
    if (auto at = info.find("NodeAddr="); rc2 == 0 && at != std::string::npos) {
      const size_t start = at + 9;
      n.address = info.substr(start, info.find_first_of(" \n", start) - start);
    }
    nodes.push_back(std::move(n));
  }
  return nodes;
}

StatusOr<engine::ServerCommand> SrunStep(const engine::SessionProcess& process,
                                         const std::vector<SlurmNode>& nodes,
                                         const std::string& container_image, bool pyxis,
                                         const std::vector<std::string>& container_mounts) {
  const char* job = std::getenv("SLURM_JOB_ID");
  if (job == nullptr) return Status::FailedPrecondition("SLURM_JOB_ID is unset");
  std::string names;
  for (int n : process.nodes) {
    if (n < 0 || n >= static_cast<int>(nodes.size())) {
      return Status::InvalidArgument(
          fmt::format("{} is placed on node {} but the allocation has {} node(s)", process.Name(),
                      n, nodes.size()));
    }
    names += (names.empty() ? "" : ",") + nodes[static_cast<size_t>(n)].name;
  }
  engine::ServerCommand out = process.command;
  const int node_count = static_cast<int>(process.nodes.size());
  const int tasks = process.tasks > 1 ? process.tasks : node_count;
  std::vector<std::string> argv = {"srun",
                                   fmt::format("--jobid={}", job),
                                   "--overlap",
                                   fmt::format("--nodes={}", node_count),
                                   fmt::format("--ntasks={}", tasks),
                                   "--nodelist=" + names,
                                   "--kill-on-bad-exit=1",
                                   "--job-name=" + process.Name()};
  if (process.tasks > 1) argv.push_back("--mpi=pmix");  // TensorRT-LLM: one rank per GPU
  if (pyxis && !container_image.empty()) {
    argv.push_back("--container-image=" + container_image);
    argv.push_back("--no-container-mount-home");
    argv.push_back("--no-container-entrypoint");
    std::string mounts;
    for (const auto& m : container_mounts) mounts += (mounts.empty() ? "" : ",") + m;
    for (const auto& f : out.files) {
      const auto slash = f.path.rfind('/');
      const std::string dir = slash == std::string::npos ? "." : f.path.substr(0, slash);
      mounts += (mounts.empty() ? "" : ",") + dir + ":" + dir;
    }
    if (!mounts.empty()) argv.push_back("--container-mounts=" + mounts);
  }
  argv.insert(argv.end(), process.command.argv.begin(), process.command.argv.end());
  out.argv = std::move(argv);
  return out;
}

bool IsThisHost(const std::string& host) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(host.c_str(), "0", &hints, &res) != 0) return false;
  bool local = false;
  for (addrinfo* a = res; a != nullptr && !local; a = a->ai_next) {
    int fd = ::socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    local = ::bind(fd, a->ai_addr, a->ai_addrlen) == 0;
    ::close(fd);
  }
  freeaddrinfo(res);
  return local;
}

}  // namespace servebench::run
