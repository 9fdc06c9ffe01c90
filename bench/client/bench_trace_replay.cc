// bench_trace_replay: a fixed-schedule trace replay against `servebench sim` on
// loopback (issue 14, "Done when"): each request should leave within 1 ms (p99) of its
// scheduled time at --trace-speedup 10. Prints the issue delay (send time − scheduled
// time) percentiles, and the two prefix-hit rates of the run beside each other.
// The trace is generated here: multi-turn conversations of 30 turns, each starting in
// the first 20 recorded seconds, a turn every 1.5–2.5 s (Mooncake rows, 512-token
// blocks): 8 conversations by default (about 30 requests/s at 10x, a load the simulated
// H200 serves), `--conversations N` for more, `--quick` for 4.
//
// The sim runs at time scale 1: the issue delay is a wall-clock figure of the client.
// (At a compressed clock the records are rewritten into simulated time, which
// multiplies the client's lateness by 1 / time scale, and a server past its capacity
// keeps hundreds of streams open, which measures the overload, not the schedule.)
#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "client/client.h"
#include "sim/testing/sim_process.h"

namespace servebench::client {
namespace {

std::string WriteTrace(int conversations, int turns) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "sb_bench_trace_replay.jsonl").string();
  std::ofstream out(path);
  std::mt19937_64 rng(7);
  uint64_t fresh = 1'000'000;
  for (int c = 0; c < conversations; ++c) {
    // Each conversation starts somewhere in the first 20 s, then a turn every 1.5–2.5 s.
    double t_ms = static_cast<double>(rng() % 20'000);
    for (int k = 0; k < turns; ++k) {
      boost::json::array ids;
      for (int b = 0; b <= k; ++b) ids.push_back(c * 10'000 + b);
      ids.push_back(fresh++);
      out << boost::json::serialize(boost::json::object{{"timestamp", static_cast<int64_t>(t_ms)},
                                                        {"input_length", 512 * (k + 1) + 200},
                                                        {"output_length", 64},
                                                        {"hash_ids", std::move(ids)}})
          << "\n";
      t_ms += 1500 + static_cast<double>(rng() % 1000);
    }
  }
  return path;
}

int Main(int argc, char** argv) {
  int conversations = 8;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) conversations = 4;
    if (std::strcmp(argv[i], "--conversations") == 0 && i + 1 < argc)
      conversations = std::max(1, std::atoi(argv[++i]));
  }
  const std::string trace = WriteTrace(conversations, 30);
  sim::testing::SimProcess sim({"--enable-prefix-caching", "--time-scale", "1"}, true, 60,
                               SERVEBENCH_BIN);
  if (!sim.ready()) {
    std::printf("could not start servebench sim: %s\n", sim.output().c_str());
    return 1;
  }
  BenchSettings s;
  s.base_url = sim.base_url();
  s.model = "meta-llama/Llama-3.1-8B-Instruct";
  s.dataset_name = "mooncake_trace";
  s.dataset_path = trace;
  s.trace_speedup = 10;
  s.ignore_eos = true;
  s.percentiles = {50, 99, 99.9};
  auto r = RunBench(s);
  if (!r.ok()) {
    std::printf("replay failed: %s\n", r.status().ToString().c_str());
    return 1;
  }
  const metrics::Stats& d = r->summary.issue_delay;
  std::printf("fixed-schedule replay at --trace-speedup 10: %zu requests, %lld ok\n", d.count,
              static_cast<long long>(r->summary.completed));
  std::printf(
      "  issue delay (sent - scheduled) ms: p50 %.3f  p99 %.3f  p99.9 %.3f  max %.3f"
      "  (target p99 <= 1 ms)\n",
      d.At(50).value_or(-1), d.At(99).value_or(-1), d.At(99.9).value_or(-1), d.max);
  const boost::json::object& pc = r->result.at("servebench").at("prefix_cache").as_object();
  std::printf("  prefix cache: expected %s, server %s\n",
              boost::json::serialize(pc.at("expected")).c_str(),
              boost::json::serialize(pc.at("server")).c_str());
  const boost::json::object& client = r->result.at("servebench").at("client").as_object();
  std::printf("  client: %s\n", boost::json::serialize(client).c_str());
  std::printf("  valid: %s\n",
              boost::json::serialize(r->result.at("servebench").at("validity")).c_str());
  return 0;
}

}  // namespace
}  // namespace servebench::client

int main(int argc, char** argv) { return servebench::client::Main(argc, argv); }
