// PowerModel: the board power of each simulated GPU (docs/simulator.md, "Power").
// Idle when no step runs; while a step runs,
//
//   P = idle_w + (tdp_w − idle_w) × min(1, compute_weight × u_compute + hbm_weight × u_hbm)
//
// with u_compute = compute_s / total_s and u_hbm = memory_s / total_s of the
// perf model's step (each clamped to [0, 1]): a compute-bound prefill step draws
// about the board limit, a memory-bound decode step far less (the weights and
// their sources are in data/sim/hardware.yaml). Every GPU of the engine (TP × DP)
// runs every step, so all draw the same.
// Energy is integrated in simulated seconds (wall ÷ time scale), so joules per
// token do not depend on --time-scale. The readings are served at /metrics under
// dcgm-exporter's names (RenderDcgm), which servebench's DCGM sampler reads.
// Not thread-safe: the sim's loop thread only.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "sim/catalogue.h"
#include "sim/perf_model.h"

namespace servebench::sim {

class PowerModel {
 public:
  // `time_scale` is wall seconds per simulated second (0: no time base; power
  // then reads idle and energy does not grow). `start_ns` starts the idle clock.
  // `average_s`: the window of the averaged reading, in simulated seconds.
  PowerModel(const Hardware& hardware, const PowerModelSpec& spec, int gpus, double time_scale,
             int64_t start_ns, double average_s = 1.0);

  // Board power of each GPU while a step of this shape runs.
  double StepPowerW(const StepBreakdown& step) const;
  // A step runs from `start_ns` to `end_ns` (wall, monotonic). Steps arrive in
  // time order and do not overlap.
  void OnStep(int64_t start_ns, int64_t end_ns, const StepBreakdown& step);

  struct Reading {
    double energy_j = 0;   // per GPU since start, simulated joules
    double average_w = 0;  // per GPU over the averaging window (1 s: Hopper's power.draw)
    double instant_w = 0;  // per GPU now
    double util_pct = 0;   // share of the last simulated second spent in steps
  };
  Reading Read(int64_t now_ns);

  // dcgm-exporter lines for every GPU (DCGM_FI_DEV_POWER_USAGE, _POWER_USAGE_INSTANT,
  // _TOTAL_ENERGY_CONSUMPTION in mJ, _POWER_MGMT_LIMIT, _GPU_UTIL) plus
  // servebench_sim_time_scale and servebench_sim_power_average_s.
  std::string RenderDcgm(int64_t now_ns);

  // Which GPUs these are (SimSettings::gpu_indices, node_index): `indices` empty keeps
  // 0 .. gpus−1; otherwise exactly gpus() of them (the caller checks).
  void SetIdentity(std::vector<int> indices, int node);

  int gpus() const { return gpus_; }
  double idle_w() const { return idle_w_; }
  double tdp_w() const { return tdp_w_; }
  // "GPU-5e000000-0000-4000-8000-NNNNNNIIIIII" (node N, index I, decimal): stable per
  // node and index; node 0's are "...-00000000000I".
  static std::string GpuUuid(int index, int node = 0);

 private:
  struct Checkpoint {
    int64_t t_ns;
    double energy_j;  // per GPU
    double busy_s;    // simulated seconds in steps
  };
  void AdvanceTo(int64_t t_ns);
  Checkpoint At(int64_t t_ns) const;  // interpolated from history_ (t_ns ≤ the last)

  std::string description_;
  double idle_w_, tdp_w_, compute_weight_, hbm_weight_;
  int gpus_;
  std::vector<int> indices_;  // the GPUs' indices on their node, gpus_ of them
  int node_ = 0;
  double time_scale_;
  double average_s_;
  struct Step {
    int64_t start_ns, end_ns;
    double power_w;
  };
  std::deque<Step> pending_;        // scheduled steps not yet fully integrated
  std::deque<Checkpoint> history_;  // the last couple of simulated seconds
  double current_w_ = 0;            // the power in effect at history_.back()
};

}  // namespace servebench::sim
