// Sandbox: a scratch copy of an InferenceX checkout in which its benchmark scripts
// run with stand-in executables (standin.sh) instead of engines, clients and GPU
// tools. Owned by one capture worker; not thread-safe.
//
// Layout under `dir`:
//   bin/        the stand-in, under every name in StandinNames(), first on PATH
//   ws/         the workspace: benchmarks/ copied, the checkout's other entries
//               linked; the scripts' working folder, as /workspace is InferenceX's
//   cap/calls/  one record per stand-in call (standin.sh's header)
//   home/ tmp/ hf_hub_cache/   HOME, TMPDIR and HF_HUB_CACHE of the job
//   node/infiniband/  the stand-in node's RDMA devices (mlx5_0..7, port 1 ACTIVE)
//   image/site-packages/  the stand-in image's Python packages (vllm, aiter, ...:
//               empty), on PYTHONPATH when the stand-in runs a script's inline Python
//
// Paths: InferenceX's container mounts the checkout at /workspace, and its scripts
// write there by name (/workspace/server.log); a Mooncake script reads the node's
// /sys/class/infiniband to pick its RDMA rail. In the copied scripts (*.sh) those two
// are replaced by ws/'s and node/infiniband/'s paths; that is the one change made to
// them. ToSandbox/FromSandbox translate the job's paths both ways, so what the capture
// reports names /workspace, /mnt/hf_hub_cache/, /tmp, /root and /sys/class/infiniband
// as a real job would.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace servebench::capture {

// The text of standin.sh (compiled in).
std::string_view StandinScript();

// Every program name the stand-in is installed as.
const std::vector<std::string>& StandinNames();

// The revision a stand-in `hf download REPO` (into the HF cache, not a --local-dir)
// gives the snapshot it makes: a script that serves the snapshot folder names it, and
// the capture carries that folder as a value taken at launch (recipe/hub_snapshot.h).
inline constexpr char kStandinHubRevision[] = "servebench-capture-revision";

class Sandbox {
 public:
  // Builds the sandbox in `dir` (created; must not exist yet) from the checkout at
  // `root`. NotFound when `root` has no benchmarks/ folder; DataLoss on write errors.
  static StatusOr<Sandbox> Create(const std::string& root, const std::string& dir);

  // Empties what one script run leaves behind (the workspace's new files, records,
  // home, tmp, cache), so each run starts from the same state.
  Status Reset();

  const std::string& dir() const { return dir_; }
  std::string workspace() const { return dir_ + "/ws"; }
  std::string calls_dir() const { return dir_ + "/cap/calls"; }
  std::string bin_dir() const { return dir_ + "/bin"; }
  std::string image_site_packages() const { return dir_ + "/image/site-packages"; }

  // A job value with InferenceX's paths (/workspace, /mnt/hf_hub_cache, /tmp, /root
  // at its start) moved into the sandbox.
  std::string ToSandbox(const std::string& value) const;
  // Every sandbox path in `text` written back as InferenceX's. Whatever else of the
  // sandbox remains (its bin/ on PATH) reads "<capture sandbox>".
  std::string FromSandbox(std::string text) const;
  // True when `path` (absolute) lies in the workspace.
  bool InWorkspace(const std::string& path) const;

 private:
  Sandbox(std::string root, std::string dir);

  std::string root_, dir_;
  // sandbox path -> InferenceX path, longest sandbox path first.
  std::vector<std::pair<std::string, std::string>> paths_;
};

}  // namespace servebench::capture
