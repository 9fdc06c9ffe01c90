// The roles of a disaggregated sim session (prefill, decode, router) that the kill
// tests end mid-point, and what the failed point's record must then say. One table for
// both executors: the local one (run/disagg_e2e_test.cc) and Slurm's, where each role
// is an srun step (run/slurm_disagg_e2e_test.cc); a role must fail the same way on both.
// Header-only; included by those tests as "testing/disagg_kill_cases.h".
#pragma once

#include <gtest/gtest.h>

#include <ostream>
#include <string>

namespace servebench::run::testing {

struct KillCase {
  const char* role;           // the --role of the sim process killed
  const char* process;        // the process the failure reason starts with
  const char* failure_class;  // the class its signature (or the situation) gives
  // Also right: a killed decode is seen either first through the router's broken
  // stream (router.decode_stream) or first as its own exit (server.died_during_run,
  // naming it), whichever the supervisor notices first; both name the role.
  const char* also_class = nullptr;
};

inline std::ostream& operator<<(std::ostream& os, const KillCase& k) { return os << k.role; }

inline auto DisaggKillCases() {
  return ::testing::Values(
      // The router sees the decode stream break (SGLang router's words).
      KillCase{"decode", "decode[", "router.decode_stream", "server.died_during_run"},
      // The router has no prefill worker left to route to.
      KillCase{"prefill", "prefill[0]", "router.no_workers"},
      // Nobody logs a cause: the router process (or its step) ended while serving.
      KillCase{"router", "router", "server.died_during_run"});
}

inline std::string KillCaseName(const ::testing::TestParamInfo<KillCase>& info) {
  return info.param.role;
}

}  // namespace servebench::run::testing
