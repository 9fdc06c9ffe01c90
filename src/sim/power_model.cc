#include "sim/power_model.h"

#include <fmt/format.h>

#include <algorithm>

namespace servebench::sim {
namespace {
// History kept for the trailing mean: this many averaging windows.
constexpr double kHistoryWindows = 3.0;
}  // namespace

PowerModel::PowerModel(const Hardware& hw, const PowerModelSpec& spec, int gpus, double time_scale,
                       int64_t start_ns, double average_s)
    : description_(hw.description),
      idle_w_(hw.idle_power_w),
      tdp_w_(hw.tdp_w),
      compute_weight_(spec.compute_weight),
      hbm_weight_(spec.hbm_weight),
      gpus_(std::max(1, gpus)),
      time_scale_(time_scale),
      average_s_(average_s) {
  for (int g = 0; g < gpus_; ++g) indices_.push_back(g);
  history_.push_back({start_ns, 0, 0});
  current_w_ = idle_w_;
}

std::string PowerModel::GpuUuid(int index, int node) {
  return fmt::format("GPU-5e000000-0000-4000-8000-{:06d}{:06d}", node, index);
}

void PowerModel::SetIdentity(std::vector<int> indices, int node) {
  if (!indices.empty()) indices_ = std::move(indices);
  node_ = node;
}

double PowerModel::StepPowerW(const StepBreakdown& s) const {
  if (s.total_s <= 0) return idle_w_;
  double u_compute = std::clamp(s.compute_s / s.total_s, 0.0, 1.0);
  double u_hbm = std::clamp(s.memory_s / s.total_s, 0.0, 1.0);
  double load = std::min(1.0, compute_weight_ * u_compute + hbm_weight_ * u_hbm);
  return idle_w_ + (tdp_w_ - idle_w_) * load;
}

void PowerModel::OnStep(int64_t start_ns, int64_t end_ns, const StepBreakdown& step) {
  if (end_ns <= start_ns) return;
  pending_.push_back({start_ns, end_ns, StepPowerW(step)});
}

void PowerModel::AdvanceTo(int64_t t_ns) {
  auto integrate = [&](int64_t to, double watts, bool busy) {
    Checkpoint last = history_.back();
    if (to <= last.t_ns) return;
    double sim_s = time_scale_ > 0 ? static_cast<double>(to - last.t_ns) / 1e9 / time_scale_ : 0;
    history_.push_back({to, last.energy_j + watts * sim_s, last.busy_s + (busy ? sim_s : 0)});
  };
  while (!pending_.empty() && pending_.front().start_ns < t_ns) {
    Step s = pending_.front();
    integrate(std::min(s.start_ns, t_ns), idle_w_, false);  // idle before the step
    integrate(std::min(s.end_ns, t_ns), s.power_w, true);
    current_w_ = s.power_w;
    if (s.end_ns > t_ns) break;  // still running
    pending_.pop_front();
    current_w_ = idle_w_;
  }
  if (pending_.empty() || pending_.front().start_ns >= t_ns) integrate(t_ns, idle_w_, false);
  if (time_scale_ > 0) {
    int64_t keep_ns = static_cast<int64_t>(kHistoryWindows * average_s_ * time_scale_ * 1e9);
    while (history_.size() > 2 && history_[1].t_ns < t_ns - keep_ns) history_.pop_front();
  }
}

PowerModel::Checkpoint PowerModel::At(int64_t t_ns) const {
  if (t_ns <= history_.front().t_ns) return history_.front();
  auto it = std::lower_bound(history_.begin(), history_.end(), t_ns,
                             [](const Checkpoint& c, int64_t t) { return c.t_ns < t; });
  if (it == history_.end()) return history_.back();
  if (it->t_ns == t_ns || it == history_.begin()) return *it;
  const Checkpoint& b = *it;
  const Checkpoint& a = *(it - 1);
  double f = static_cast<double>(t_ns - a.t_ns) / static_cast<double>(b.t_ns - a.t_ns);
  return {t_ns, a.energy_j + f * (b.energy_j - a.energy_j), a.busy_s + f * (b.busy_s - a.busy_s)};
}

PowerModel::Reading PowerModel::Read(int64_t now_ns) {
  AdvanceTo(now_ns);
  Reading r;
  const Checkpoint& now = history_.back();
  r.energy_j = now.energy_j;
  bool running =
      !pending_.empty() && pending_.front().start_ns <= now_ns && pending_.front().end_ns > now_ns;
  r.instant_w = running ? pending_.front().power_w : idle_w_;
  if (time_scale_ <= 0) {
    r.average_w = r.instant_w;
    return r;
  }
  int64_t window_ns = static_cast<int64_t>(average_s_ * time_scale_ * 1e9);
  Checkpoint then = At(now_ns - window_ns);
  double span_s = static_cast<double>(now_ns - then.t_ns) / 1e9 / time_scale_;
  if (span_s <= 0) {
    r.average_w = r.instant_w;
    return r;
  }
  // Before the engine's first window there is nothing to average but idle.
  double missing_s = std::max(0.0, average_s_ - span_s);
  r.average_w = (now.energy_j - then.energy_j + idle_w_ * missing_s) / (span_s + missing_s);
  r.util_pct = 100.0 * (now.busy_s - then.busy_s) / (span_s + missing_s);
  return r;
}

std::string PowerModel::RenderDcgm(int64_t now_ns) {
  Reading r = Read(now_ns);
  std::string out;
  auto metric = [&](const char* name, const char* help, const char* type, double value) {
    fmt::format_to(std::back_inserter(out), "# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
    for (int g : indices_) {
      fmt::format_to(
          std::back_inserter(out),
          "{}{{gpu=\"{}\",UUID=\"{}\",device=\"nvidia{}\",modelName=\"{} (simulated)\"}} "
          "{:.3f}\n",
          name, g, GpuUuid(g, node_), g, description_, value);
    }
  };
  metric("DCGM_FI_DEV_POWER_USAGE", "Power draw (in W), simulated, 1 s mean.", "gauge",
         r.average_w);
  metric("DCGM_FI_DEV_POWER_USAGE_INSTANT", "Current power draw (in W), simulated.", "gauge",
         r.instant_w);
  metric("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
         "Total energy consumption since the sim started (in mJ), simulated.", "counter",
         r.energy_j * 1000);
  metric("DCGM_FI_DEV_POWER_MGMT_LIMIT", "Power management limit (in W), simulated.", "gauge",
         tdp_w_);
  metric("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %), simulated.", "gauge", r.util_pct);
  fmt::format_to(std::back_inserter(out),
                 "# HELP servebench_sim_time_scale Wall seconds per simulated second.\n"
                 "# TYPE servebench_sim_time_scale gauge\nservebench_sim_time_scale {}\n"
                 "# HELP servebench_sim_power_average_s Simulated seconds DCGM_FI_DEV_POWER_USAGE "
                 "averages over.\n"
                 "# TYPE servebench_sim_power_average_s gauge\nservebench_sim_power_average_s {}\n",
                 time_scale_, average_s_);
  return out;
}

}  // namespace servebench::sim
