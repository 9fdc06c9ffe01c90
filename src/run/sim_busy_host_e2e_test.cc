// The busy-machine test: spinning threads saturate every core beside the real
// `servebench run` and its `servebench sim`, which then cannot keep its compressed
// schedule. The point must come out invalid with server_lagged (its numbers are not
// a measurement of the simulated GPU), never ok with a wrong number. Its own binary,
// run with nothing beside it (servebench_test SERIAL): it starves the machine on
// purpose, and would starve other tests' timing.
#include <gtest/gtest.h>

#include <atomic>
#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "common/testing/files.h"
#include "common/testing/shell.h"

namespace {

namespace fs = std::filesystem;

TEST(SimBusyHostE2eTest, BusyHostMakesThePointInvalidNotSlower) {
  const fs::path dir = servebench::testing::FreshTestDir("busy_host");
  const std::string recipe = (dir / "recipe.yaml").string();
  std::ofstream(recipe) << "servebench: 1\nrecipes:\n  busy:\n    engine: sim\n"
                           "    model: llama-3.1-8b\n    hardware: h200\n    precision: bf16\n"
                           "    sim:\n      time_scale: 0.02\n"
                           "    load:\n      dataset: random\n      num_prompts: 24\n"
                           "    scenarios:\n      - isl: 256\n        osl: 128\n"
                           "        search_space:\n          - tp: 1\n"
                           "            concurrency: [8]\n";
  std::atomic<bool> stop{false};
  std::vector<std::thread> spinners;
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned i = 0; i < 4 * cores; ++i) {
    spinners.emplace_back([&stop] {
      volatile uint64_t x = 0;
      while (!stop.load(std::memory_order_relaxed)) x = x + 1;
    });
  }
  // Only the server's lateness is judged here (the client is held to no limit).
  servebench::testing::ShellResult r =
      servebench::testing::RunShell(std::string(SERVEBENCH_BIN) + " run " + recipe + " --out " +
                                    (dir / "out").string() + " --db '' --issue-delay-limit-ms 1e9");
  stop.store(true);
  for (auto& t : spinners) t.join();
  EXPECT_EQ(r.exit_code, 2) << r.output;
  // The terminal says so, in words: the simulator fell behind its schedule.
  EXPECT_NE(r.output.find("server_lagged"), std::string::npos) << r.output;

  std::vector<boost::json::object> records;
  if (fs::exists(dir / "out" / "records")) {
    for (const auto& e : fs::directory_iterator(dir / "out" / "records")) {
      records.push_back(
          boost::json::parse(servebench::testing::ReadFileOrEmpty(e.path().string())).as_object());
    }
  }
  ASSERT_EQ(records.size(), 1u) << r.output;
  EXPECT_EQ(records[0].at("status").as_string(), "invalid") << r.output;
  bool lagged = false;
  for (const auto& reason : records[0].at("invalid_reasons").as_array())
    lagged |= reason.as_string() == "server_lagged";
  EXPECT_TRUE(lagged) << boost::json::serialize(records[0].at("invalid_reasons"));
  // The lateness is in the record, in simulated ms, beside the limit it broke.
  const auto& lag = records[0].at("summary").at("servebench").at("server_lag").as_object();
  EXPECT_GT(lag.at("p99_ms").to_number<double>(), 1.0);
  fs::remove_all(dir);
}

}  // namespace
