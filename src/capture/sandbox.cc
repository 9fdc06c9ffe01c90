#include "capture/sandbox.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "common/atomic_file.h"

namespace servebench::capture {
namespace {

namespace fs = std::filesystem;

// The InferenceX paths a job sees, and the sandbox folder each becomes.
struct Mapped {
  const char* inferencex;
  const char* sandbox;  // under the sandbox's dir
};
constexpr Mapped kMapped[] = {{"/workspace", "ws"},
                              {"/mnt/hf_hub_cache", "hf_hub_cache"},
                              {"/tmp", "tmp"},
                              {"/root", "home"},
                              {"/sys/class/infiniband", "node/infiniband"}};

// The paths the copied scripts name literally that are the node's, not the job's: the
// container's workspace, and the node's RDMA devices (a Mooncake script picks its rail
// from them at run time).
constexpr const char* kRewrittenInScripts[] = {"/workspace", "/sys/class/infiniband"};

// Imported by the host's Python when the stand-in runs a script's inline helper with
// the stand-in image's site-packages on PYTHONPATH: site and sysconfig then name that
// folder as the install location, not the host's.
constexpr const char* kImageSiteCustomize =
    R"(# servebench capture: the stand-in image's site-packages.
import os
import site
import sysconfig

_here = os.path.dirname(os.path.abspath(__file__))
site.getsitepackages = lambda prefixes=None: [_here]
site.getusersitepackages = lambda: _here
_get_path = sysconfig.get_path
sysconfig.get_path = lambda name, *args, **kwargs: (
    _here if name in ("purelib", "platlib") else _get_path(name, *args, **kwargs))
)";

// The stand-in node's RDMA devices: one per GPU, port 1 of each up. A script that picks
// the first active rail of its list picks mlx5_0, as on a healthy node.
constexpr int kStandinRdmaDevices = 8;

// Engine packages an InferenceX image holds, as empty packages in the stand-in image's
// site-packages: a script's inline Python that locates them (importlib's find_spec of
// vllm, to patch the image's files) finds them, as in the container.
constexpr const char* kImagePackages[] = {"vllm", "aiter",   "sglang",    "tensorrt_llm",
                                          "atom", "lmcache", "flashinfer"};

void ReplaceAll(std::string* text, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (size_t at = text->find(from); at != std::string::npos; at = text->find(from, at + to.size()))
    text->replace(at, from.size(), to);
}

Status Fail(const std::string& what, const std::error_code& ec) {
  return Status::DataLoss(fmt::format("capture sandbox: {}: {}", what, ec.message()));
}

}  // namespace

const std::vector<std::string>& StandinNames() {
  // Engines and their auxiliary servers, launchers, clients, downloads, GPU tools,
  // and what scripts call to install, fetch or schedule things.
  static const std::vector<std::string> kNames = {
      "vllm",    "trtllm-serve", "sglang",  "lmcache",  "mooncake_master", "vllm-router", "mpirun",
      "mpiexec", "numactl",      "taskset", "hf",       "huggingface-cli", "aiperf",      "python",
      "python3", "nvidia-smi",   "amd-smi", "rocm-smi", "rocminfo",        "curl",        "wget",
      "pip",     "pip3",         "uv",      "git",      "apt-get",         "sudo",        "docker",
      "podman",  "enroot",       "srun",    "salloc",   "sbatch",          "squeue",      "scancel",
      "sleep",   "sed",          "df"};
  return kNames;
}

Sandbox::Sandbox(std::string root, std::string dir) : root_(std::move(root)), dir_(std::move(dir)) {
  for (const auto& m : kMapped) paths_.emplace_back(dir_ + "/" + m.sandbox, m.inferencex);
  std::sort(paths_.begin(), paths_.end(),
            [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
}

StatusOr<Sandbox> Sandbox::Create(const std::string& root, const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(fs::path(root) / "benchmarks", ec)) {
    return Status::NotFound(
        fmt::format("{}: no benchmarks/ folder; expected an InferenceX checkout", root));
  }
  fs::create_directories(dir, ec);
  if (ec) return Fail("cannot create " + dir, ec);
  Sandbox box(fs::canonical(root, ec).string(), fs::canonical(dir, ec).string());
  if (ec) return Fail("cannot resolve " + dir, ec);
  const std::string ws = box.workspace();
  fs::create_directories(ws, ec);
  if (ec) return Fail("cannot create " + ws, ec);
  for (const auto& entry : fs::directory_iterator(box.root_, ec)) {
    if (entry.path().filename() == ".git") continue;
    fs::copy(entry.path(), fs::path(ws) / entry.path().filename(),
             fs::copy_options::recursive | fs::copy_options::copy_symlinks, ec);
    if (ec) return Fail("cannot copy " + entry.path().string(), ec);
  }
  if (ec) return Fail("cannot list " + box.root_, ec);
  // The scripts name the container's workspace (here ws/) and the node's devices.
  for (const auto& entry : fs::recursive_directory_iterator(ws + "/benchmarks", ec)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".sh") continue;
    auto text = ReadFile(entry.path().string());
    if (!text.ok()) return text.status();
    std::string changed = *text;
    for (const char* path : kRewrittenInScripts) ReplaceAll(&changed, path, box.ToSandbox(path));
    if (changed == *text) continue;
    SB_RETURN_IF_ERROR(WriteFileAtomically(entry.path().string(), changed));
  }
  if (ec) return Fail("cannot list " + ws + "/benchmarks", ec);
  for (int d = 0; d < kStandinRdmaDevices; ++d) {
    const std::string port =
        fmt::format("{}/mlx5_{}/ports/1", box.ToSandbox("/sys/class/infiniband"), d);
    fs::create_directories(port, ec);
    if (ec) return Fail("cannot create " + port, ec);
    SB_RETURN_IF_ERROR(WriteFileAtomically(port + "/state", "4: ACTIVE\n"));
  }
  // The image's own site-packages is where a helper asking Python for it looks.
  SB_RETURN_IF_ERROR(
      WriteFileAtomically(box.image_site_packages() + "/sitecustomize.py", kImageSiteCustomize));
  for (const char* package : kImagePackages) {
    const std::string folder = box.image_site_packages() + "/" + package;
    fs::create_directories(folder, ec);
    if (ec) return Fail("cannot create " + folder, ec);
    SB_RETURN_IF_ERROR(WriteFileAtomically(folder + "/__init__.py", ""));
  }
  const std::string standin = box.bin_dir() + "/.standin";
  SB_RETURN_IF_ERROR(WriteFileAtomically(standin, StandinScript()));
  if (::chmod(standin.c_str(), 0755) != 0)
    return Status::DataLoss(fmt::format("capture sandbox: cannot make {} executable", standin));
  for (const auto& name : StandinNames()) {
    fs::create_symlink(".standin", box.bin_dir() + "/" + name, ec);
    if (ec) return Fail("cannot link " + name, ec);
  }
  // What the copy holds before any script ran: Reset keeps exactly this.
  SB_RETURN_IF_ERROR(box.Reset());
  return box;
}

Status Sandbox::Reset() {
  std::error_code ec;
  std::set<std::string> original;
  for (const auto& entry : fs::directory_iterator(root_, ec))
    original.insert(entry.path().filename().string());
  if (ec) return Fail("cannot list " + root_, ec);
  for (const auto& entry : fs::directory_iterator(workspace(), ec)) {
    if (original.count(entry.path().filename().string()) != 0) continue;
    fs::remove_all(entry.path(), ec);
    if (ec) return Fail("cannot clear " + entry.path().string(), ec);
  }
  for (const char* sub : {"cap", "home", "tmp", "hf_hub_cache"}) {
    fs::remove_all(dir_ + "/" + sub, ec);
    fs::create_directories(dir_ + "/" + sub, ec);
    if (ec) return Fail(std::string("cannot reset ") + sub, ec);
  }
  fs::create_directories(calls_dir(), ec);
  if (ec) return Fail("cannot create " + calls_dir(), ec);
  return Status::Ok();
}

std::string Sandbox::ToSandbox(const std::string& value) const {
  for (const auto& m : kMapped) {
    const std::string from = m.inferencex;
    if (value == from || value.rfind(from + "/", 0) == 0)
      return dir_ + "/" + m.sandbox + value.substr(from.size());
  }
  return value;
}

std::string Sandbox::FromSandbox(std::string text) const {
  for (const auto& [sandbox, inferencex] : paths_) ReplaceAll(&text, sandbox, inferencex);
  ReplaceAll(&text, dir_, "<capture sandbox>");
  return text;
}

bool Sandbox::InWorkspace(const std::string& path) const {
  const std::string ws = workspace();
  return path == ws || path.rfind(ws + "/", 0) == 0;
}

}  // namespace servebench::capture
