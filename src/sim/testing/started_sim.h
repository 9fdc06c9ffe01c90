// The one way a test starts `servebench sim` and insists it is ready: a failed start is
// a test failure that shows what the sim printed, and the caller gets nullptr (so it
// can ASSERT_NE(sim, nullptr) and stop). Header-only: it needs GoogleTest, which the
// other users of sim_process.h (the benchmarks) do not link.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "sim/testing/sim_process.h"

namespace servebench::sim::testing {

inline std::unique_ptr<SimProcess> StartSim(const std::vector<std::string>& args = {}) {
  auto sim = std::make_unique<SimProcess>(args);
  EXPECT_TRUE(sim->ready()) << sim->output();
  return sim->ready() ? std::move(sim) : nullptr;
}

}  // namespace servebench::sim::testing
