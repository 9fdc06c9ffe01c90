// make bench: what a prepared prompt token costs in memory, the figure behind
// limits::kPromptBytesPerToken and the prompt-memory rule (client/prompt_memory.h).
// For random prompts of 8k tokens, on /v1/completions (token ids) and on chat (text),
// a child process builds N prompts and their requests as a run does before it
// starts (MakePrompts, then BuildRequests), and reports its peak resident-memory
// growth per prompt token. Two sizes, so the per-token figure is the
// slope, not a fixed cost. Exits 1 when a measured slope exceeds the constant.
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <vector>

#include "client/dataset.h"
#include "client/request_builder.h"
#include "common/limits.h"
#include "net/url.h"

namespace {

using namespace servebench;

// Resident bytes of this process (/proc/self/statm).
int64_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * ::sysconf(_SC_PAGESIZE);
}

// Peak resident bytes of this process (getrusage's maxrss).
int64_t PeakResidentBytes() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;
}

// In a child: bytes of resident growth for `n` prompts of `isl` tokens and their
// requests; -1 on failure.
int64_t GrowthInChild(int64_t n, int64_t isl, bool chat) {
  int pipe_fd[2];
  if (::pipe(pipe_fd) != 0) return -1;
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(pipe_fd[0]);
    client::BenchSettings s;
    s.model = "m";
    s.dataset_name = "random";
    s.random_input_len = isl;
    s.random_output_len = 1;
    s.num_prompts = n;
    s.num_warmups = 0;
    s.endpoint = chat ? "/v1/chat/completions" : "/v1/completions";
    auto url = net::ParseUrl("http://127.0.0.1:8000");
    int64_t before = ResidentBytes();
    auto prompts = client::MakePrompts(s, chat, {});
    auto tmpl = client::MakeRequestTemplate(s, *url, "");
    int64_t growth = -1;
    if (prompts.ok() && tmpl.ok()) {
      std::vector<std::string> requests = client::BuildRequests(*tmpl, &prompts->measured, true);
      growth = PeakResidentBytes() - before;
    }
    ssize_t w = ::write(pipe_fd[1], &growth, sizeof growth);
    ::_exit(w == sizeof growth ? 0 : 1);
  }
  ::close(pipe_fd[1]);
  int64_t growth = -1;
  if (::read(pipe_fd[0], &growth, sizeof growth) != sizeof growth) growth = -1;
  ::close(pipe_fd[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return growth;
}

}  // namespace

int main() {
  constexpr int64_t kIsl = 8192, kSmall = 500, kLarge = 2500;
  bool within = true;
  fmt::print(
      "prompt memory: random prompts of {} tokens and their requests, built as before a "
      "run\n",
      kIsl);
  for (bool chat : {false, true}) {
    int64_t small = GrowthInChild(kSmall, kIsl, chat);
    int64_t large = GrowthInChild(kLarge, kIsl, chat);
    if (small < 0 || large < 0) {
      fmt::print("  {}: could not build the prompts\n", chat ? "chat" : "completions");
      return 1;
    }
    double per_token =
        static_cast<double>(large - small) / static_cast<double>((kLarge - kSmall) * kIsl);
    within = within && per_token <= static_cast<double>(servebench::limits::kPromptBytesPerToken);
    fmt::print(
        "  {:<12} {} prompts: {:.0f} MB, {} prompts: {:.0f} MB -> {:.2f} B per prompt token "
        "(limits::kPromptBytesPerToken = {})\n",
        chat ? "chat" : "completions", kSmall, small / 1e6, kLarge, large / 1e6, per_token,
        servebench::limits::kPromptBytesPerToken);
  }
  if (!within) fmt::print("  a measured cost exceeds kPromptBytesPerToken: raise it\n");
  return within ? 0 : 1;
}
