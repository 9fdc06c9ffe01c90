#include "sim/step_profiler.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

namespace servebench::sim {

Status StepProfiler::Start() {
  if (active_) return Status::FailedPrecondition("a profile is already running (/start_profile)");
  steps_.clear();
  active_ = true;
  return Status::Ok();
}

void StepProfiler::OnStep(int64_t start_ns, int64_t end_ns, const StepShape& shape) {
  if (active_) steps_.push_back(Step{start_ns, end_ns, shape});
}

StatusOr<std::string> StepProfiler::Stop() {
  if (!active_) return Status::FailedPrecondition("no profile is running (/start_profile first)");
  active_ = false;
  const int pid = static_cast<int>(::getpid());
  std::string body = "{\"traceEvents\":[";
  for (size_t i = 0; i < steps_.size(); ++i) {
    const Step& st = steps_[i];
    const StepShape& s = st.shape;
    fmt::format_to(std::back_inserter(body),
                   "{}{{\"name\":\"{}\",\"cat\":\"step\",\"ph\":\"X\",\"ts\":{:.3f},\"dur\":{:.3f},"
                   "\"pid\":{},\"tid\":0,\"args\":{{\"batch_size\":{},\"prefill_seqs\":{},"
                   "\"prefill_tokens\":{},\"decode_seqs\":{},\"decode_context_tokens\":{}}}}}",
                   i ? "," : "", s.prefill_tokens > 0 ? "prefill" : "decode",
                   static_cast<double>(st.start_ns) / 1e3,
                   static_cast<double>(st.end_ns - st.start_ns) / 1e3, pid,
                   s.prefill_seqs + s.decode_seqs, s.prefill_seqs, s.prefill_tokens, s.decode_seqs,
                   s.decode_context_tokens);
  }
  body +=
      "],\"displayTimeUnit\":\"ms\",\"otherData\":{\"source\":\"servebench sim\",\"clock\":"
      "\"simulated\"}}\n";
  steps_.clear();
  const std::string path =
      (std::filesystem::path(dir_) / fmt::format("sim-{}-{}.trace.json", pid, ++profiles_))
          .string();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << body;
  out.close();
  if (!out) return Status::Internal(fmt::format("cannot write the profile trace {}", path));
  return path;
}

}  // namespace servebench::sim
