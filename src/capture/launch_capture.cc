// ExtractLaunch: the rules in launch_capture.h, applied to a script run's records.
#include "capture/launch_capture.h"

#include <fmt/format.h>

#include <cctype>
#include <filesystem>
#include <set>

#include "common/atomic_file.h"
#include "recipe/hub_snapshot.h"

namespace servebench::capture {
namespace {

namespace fs = std::filesystem;

constexpr char kSandboxMarker[] = "<capture sandbox>";

bool IsShellVariable(const std::string& name) {
  return name == "_" || name == "SHLVL" || name == "PWD" || name == "OLDPWD" ||
         name.rfind("SERVEBENCH_CAPTURE_", 0) == 0;
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The secret whose placeholder `text` holds, or "".
std::string SecretIn(const std::string& text) {
  for (const auto& [name, placeholder] : SecretPlaceholders())
    if (text.find(placeholder) != std::string::npos) return name;
  return "";
}

// The value of `flag` in argv (`flag V` or `flag=V`), or "".
std::string FlagValue(const std::vector<std::string>& argv, const std::string& flag) {
  for (size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] == flag && i + 1 < argv.size()) return argv[i + 1];
    if (argv[i].rfind(flag + "=", 0) == 0) return argv[i].substr(flag.size() + 1);
  }
  return "";
}

// `path` when it is the snapshot folder a stand-in download made (…/models--ORG--NAME/
// snapshots/<kStandinHubRevision>): the snapshot word of ORG/NAME, since the folder's
// real name is known only at launch (recipe/hub_snapshot.h). Other text holding the
// stand-in revision (a file inside the snapshot) cannot be carried: an error.
StatusOr<std::string> BindHubSnapshot(const std::string& path, const std::string& what) {
  if (path.find(kStandinHubRevision) == std::string::npos) return path;
  const std::string tail = std::string("/snapshots/") + kStandinHubRevision;
  const size_t models = path.rfind("/models--");
  if (EndsWith(path, tail) && models != std::string::npos && path.front() == '/') {
    const size_t start = models + 9;  // past "/models--"
    std::string folder = path.substr(start, path.size() - tail.size() - start);
    const size_t dashes = folder.find("--");
    std::string repo = dashes == std::string::npos
                           ? ""
                           : folder.substr(0, dashes) + "/" + folder.substr(dashes + 2);
    if (recipe::IsHubRepoId(repo)) return recipe::HubSnapshotWord(repo);
  }
  return Status::InvalidArgument(fmt::format(
      "{} names {}, inside a model's snapshot in the HF cache; servebench takes only the snapshot "
      "folder itself at launch",
      what, path));
}

// One word of a captured command (argv, or an env value) as carried: the job's
// paths, a stand-in snapshot folder as its snapshot word; an error when it holds a
// secret or names the sandbox. `what` names the process ("the server command").
StatusOr<std::string> CarriedWord(const std::string& raw, const Sandbox& sandbox,
                                  const std::string& what) {
  std::string mapped = sandbox.FromSandbox(raw);
  if (!SecretIn(mapped).empty()) {
    return Status::InvalidArgument(
        fmt::format("{} carries the secret {} as an argument; servebench records no secrets", what,
                    SecretIn(mapped)));
  }
  if (mapped.find(kSandboxMarker) != std::string::npos)
    return Status::InvalidArgument(what + " names the capture's own folder: " + mapped);
  return BindHubSnapshot(mapped, what);
}

bool IsDatasetDownload(const CallRecord& call) {
  return FlagValue(call.argv, "--repo-type") == "dataset";
}

// Files the server command names: each argument, and the value of each --flag=value,
// that is a regular file in the workspace. A file named by its absolute path there
// makes /workspace the command's folder (`*folder`), the file kept relative to it.
Status CollectFiles(const CallRecord& call, const std::vector<std::string>& argv,
                    const Sandbox& sandbox, std::vector<recipe::CommandFile>* files,
                    std::string* folder) {
  std::set<std::string> seen;
  for (const auto& file : *files) seen.insert(file.path);
  for (const auto& arg : argv) {
    std::vector<std::string> names = {arg};
    if (arg.size() > 2 && arg[0] == '-' && arg.find('=') != std::string::npos)
      names.push_back(arg.substr(arg.find('=') + 1));
    for (const auto& name : names) {
      if (name.empty() || name.size() > 4096 || seen.count(name) != 0) continue;
      if (name.front() == '/' && name.rfind(sandbox.workspace() + "/", 0) == 0 &&
          seen.count(name.substr(sandbox.workspace().size() + 1)) != 0)
        continue;
      std::error_code ec;
      fs::path path = name.front() == '/' ? fs::path(name) : fs::path(call.cwd) / name;
      if (!fs::is_regular_file(path, ec)) continue;
      std::string resolved = fs::weakly_canonical(path, ec).string();
      if (ec || !sandbox.InWorkspace(resolved)) continue;
      std::string kept = name;
      if (name.front() == '/') {
        if (name.rfind(sandbox.workspace() + "/", 0) != 0) {
          return Status::InvalidArgument(
              fmt::format("the server command names the file {} by a path servebench cannot place",
                          sandbox.FromSandbox(name)));
        }
        kept = name.substr(sandbox.workspace().size() + 1);
        *folder = sandbox.FromSandbox(sandbox.workspace());
      } else if (call.cwd != sandbox.workspace()) {
        return Status::InvalidArgument(fmt::format(
            "the server starts in {} and names the file {}; servebench runs a command in the "
            "folder that holds its files, the workspace",
            sandbox.FromSandbox(call.cwd), name));
      }
      auto contents = ReadFile(path.string());
      if (!contents.ok()) return contents.status();
      seen.insert(name);
      files->push_back({kept, Redact(sandbox.FromSandbox(*contents))});
    }
  }
  return Status::Ok();
}

// "pip install ×2"-style notes for the calls of `calls`, in first-seen order.
void NoteCalls(const std::vector<const CallRecord*>& calls, const std::string& prefix,
               std::vector<std::string>* notes) {
  std::vector<std::pair<std::string, int>> counted;
  for (const CallRecord* call : calls) {
    std::string name = Redact(CallName(*call));
    bool found = false;
    for (auto& [n, count] : counted)
      if (n == name) ++count, found = true;
    if (!found) counted.emplace_back(name, 1);
  }
  if (counted.empty()) return;
  std::string list;
  for (const auto& [name, count] : counted)
    list += (list.empty() ? "" : ", ") + name + (count > 1 ? fmt::format(" ×{}", count) : "");
  notes->push_back(prefix + list);
}

// The environment `call` was given beyond the job's, by the rules in
// launch_capture.h: `*env` as recorded (sandbox paths mapped back), `*env_from` for
// secrets and copied device lists (null: the caller keeps no env_from, and either is
// a failure). `what` names the process in messages ("the server").
Status EnvironmentDelta(const CallRecord& call, const ScriptRun& run, const Sandbox& sandbox,
                        const std::string& what, std::map<std::string, std::string>* env,
                        std::map<std::string, std::string>* env_from,
                        std::vector<std::string>* notes) {
  for (const auto& [name, raw_value] : call.env) {
    if (IsShellVariable(name)) continue;
    auto given = run.env.find(name);
    if (given != run.env.end() && given->second == raw_value) continue;
    if (name == "PATH") {
      notes->push_back(
          fmt::format("PATH changed by the script{} is not carried (the image's PATH applies): {}",
                      what == "the server" ? "" : " for " + what, sandbox.FromSandbox(raw_value)));
      continue;
    }
    std::string value = sandbox.FromSandbox(raw_value);
    std::string secret = SecretIn(value);
    if (!secret.empty()) {
      if (value != SecretPlaceholders().at(secret) || env_from == nullptr) {
        return Status::InvalidArgument(fmt::format(
            "{}'s environment variable {} holds the secret {}{}; servebench records no secrets",
            what, name, secret, env_from == nullptr ? "" : " inside other text"));
      }
      (*env_from)[name] = secret;
      continue;
    }
    std::string copied_from;
    if (EndsWith(name, "_VISIBLE_DEVICES"))
      for (const auto& [job_name, job_value] : run.env)
        if (job_name != name && EndsWith(job_name, "_VISIBLE_DEVICES") && job_value == raw_value)
          copied_from = job_name;
    if (!copied_from.empty()) {
      if (env_from == nullptr) {
        return Status::InvalidArgument(fmt::format(
            "{}'s environment variable {} copies {}, which servebench takes at launch only for "
            "the engine",
            what, name, copied_from));
      }
      (*env_from)[name] = copied_from;
      continue;
    }
    if (value.find(kSandboxMarker) != std::string::npos) {
      return Status::InvalidArgument(fmt::format(
          "{}'s environment variable {} names the capture's own folder: {}", what, name, value));
    }
    SB_ASSIGN_OR_RETURN((*env)[name],
                        BindHubSnapshot(value, fmt::format("{}'s variable {}", what, name)));
  }
  return Status::Ok();
}

// The words of `call` whose files are carried: its argv, and the values of the
// variables it was given (MOONCAKE_CONFIG_PATH names the config the script wrote).
std::vector<std::string> FileCandidates(const std::vector<std::string>& argv,
                                        const CallRecord& call, const ScriptRun& run) {
  std::vector<std::string> words = argv;
  for (const auto& [name, value] : call.env) {
    auto given = run.env.find(name);
    if (!IsShellVariable(name) && name != "PATH" &&
        (given == run.env.end() || given->second != value))
      words.push_back(value);
  }
  return words;
}

// The stand-in node's RDMA device a command names ("mlx5_0" in a Mooncake config's
// device_name): the script picked it from /sys/class/infiniband at run time (the
// stand-in node's devices, sandbox.h), so the capture carries the first active rail of
// a healthy node, and the node that runs the recipe may need another.
void NoteRdmaDevices(const LaunchCapture& launch, std::vector<std::string>* notes) {
  auto device_in = [](const std::string& text) -> std::string {
    const size_t at = text.find("mlx5_");
    if (at == std::string::npos) return "";
    size_t end = at + 5;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
    return text.substr(at, end - at);
  };
  std::vector<std::pair<std::string, std::string>> named;  // where, device
  for (const auto& f : launch.files)
    if (auto d = device_in(f.contents); !d.empty()) named.emplace_back(f.path, d);
  for (const auto& a : launch.argv)
    if (auto d = device_in(a); !d.empty()) named.emplace_back("the command", d);
  for (const auto& [where, device] : named) {
    notes->push_back(fmt::format(
        "{} names the RDMA device {}, which the script picked from the node's "
        "/sys/class/infiniband at run time: the capture's stand-in node has mlx5_0..7 up, so "
        "this is a healthy node's first rail; on a node where it is down, name another",
        where, device));
  }
}

// A router in front of the engine: vllm-router, or python3 -m sglang_router.*.
bool IsRouter(const CallRecord& call) {
  return call.tool == "vllm-router" || CallName(call).find("router") != std::string::npos;
}

// The port `argv` listens on: its --port when a number, else `job_port`.
int ListenPort(const std::vector<std::string>& argv, int job_port) {
  std::string listen = FlagValue(argv, "--port");
  if (!listen.empty() && listen.find_first_not_of("0123456789") == std::string::npos &&
      listen.size() < 6)
    return std::stoi(listen);
  return job_port;
}

// `router` (a call IsRouter) as out->router, by the rules in launch_capture.h: its argv
// exactly, its environment beyond the job's (a secret or a copied device list as its
// env_from), its files joining out->files, its --port (else the job's
// PORT), which must not be the engine's. `engine` is the engine's outermost call.
Status CaptureRouter(const CallRecord& router, const CallRecord& engine, const ScriptRun& run,
                     const Sandbox& sandbox, int job_port, LaunchCapture* out) {
  const std::string what = "the router " + Redact(CallName(router));
  std::vector<std::string> words = {router.tool};
  words.insert(words.end(), router.argv.begin(), router.argv.end());
  for (const auto& arg : words) {
    SB_ASSIGN_OR_RETURN(std::string word, CarriedWord(arg, sandbox, what));
    out->router.argv.push_back(std::move(word));
  }
  if (router.cwd != engine.cwd) {
    return Status::InvalidArgument(fmt::format(
        "{} starts in {} and the engine in {}; servebench starts both in the session's folder",
        what, sandbox.FromSandbox(router.cwd), sandbox.FromSandbox(engine.cwd)));
  }
  SB_RETURN_IF_ERROR(EnvironmentDelta(router, run, sandbox, what, &out->router.env,
                                      &out->router.env_from, &out->notes));
  SB_RETURN_IF_ERROR(
      CollectFiles(router, FileCandidates(words, router, run), sandbox, &out->files, &out->folder));
  out->router.port = ListenPort(out->router.argv, job_port);
  if (out->router.port == out->port) {
    return Status::InvalidArgument(fmt::format(
        "{} and the engine both listen on port {}; servebench runs the router on a port of its "
        "own in front of the engine",
        what, out->port));
  }
  return Status::Ok();
}

}  // namespace

std::string Redact(std::string text) {
  for (const auto& [name, placeholder] : SecretPlaceholders()) {
    const std::string shown = "<redacted:" + name + ">";
    for (size_t at = text.find(placeholder); at != std::string::npos;
         at = text.find(placeholder, at + shown.size()))
      text.replace(at, placeholder.size(), shown);
  }
  return text;
}

std::string LastMessage(const std::string& output) {
  std::string last;
  size_t start = 0;
  while (start < output.size()) {
    size_t end = output.find('\n', start);
    if (end == std::string::npos) end = output.size();
    std::string line = output.substr(start, end - start);
    start = end + 1;
    size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '+') continue;
    last = line.substr(first);
  }
  if (last.size() > 300) last = last.substr(0, 300) + "...";
  return Redact(last);
}

LaunchCapture ExtractLaunch(const ScriptRun& run, const JobEnvironment& job, const Sandbox& sandbox,
                            int port) {
  LaunchCapture out;
  out.script = job.script;
  out.exit_code = run.exit_code;
  std::vector<const CallRecord*> servers, aux;
  for (const auto& call : run.calls) {
    if (call.role == "server") servers.push_back(&call);
    if (call.role == "aux") aux.push_back(&call);
  }
  const std::string last = LastMessage(sandbox.FromSandbox(run.output));
  const std::string ended = run.timed_out ? "was still running at the capture's timeout"
                                          : fmt::format("exited with code {}", run.exit_code);
  if (servers.empty()) {
    out.failure = fmt::format("{} before starting a server{}", ended,
                              last.empty() ? "" : "; last output: " + last);
    return out;
  }
  if (servers.size() > 1) {
    out.failure =
        fmt::format("starts {} engine servers; servebench runs one per session", servers.size());
    return out;
  }
  const CallRecord* server = servers.front();
  const CallRecord* outer = server;  // the launcher that became the server, if any
  for (const auto& call : run.calls) {
    if (call.role == "launcher" && call.pid == server->pid && call.id < outer->id) outer = &call;
  }
  // Auxiliary servers run beside the engine (InferenceX's KV offload tiers: started in
  // the background, so their records may come before or after the engine's); a router
  // (vllm-router, sglang_router) fronts it and is captured as the command's router.
  std::vector<const CallRecord*> routers;
  for (auto it = aux.begin(); it != aux.end();) {
    if (IsRouter(**it)) {
      routers.push_back(*it);
      it = aux.erase(it);
    } else {
      ++it;
    }
  }
  if (routers.size() > 1) {
    out.failure = fmt::format(
        "starts {} routers ({}, ...); servebench runs one in front of the "
        "engine",
        routers.size(), Redact(CallName(*routers.front())));
    return out;
  }
  out.server = CallName(*server);
  std::vector<std::string> raw = {outer->tool};
  raw.insert(raw.end(), outer->argv.begin(), outer->argv.end());
  for (const auto& arg : raw) {
    auto word = CarriedWord(arg, sandbox, "the server command");
    if (!word.ok()) {
      out.failure = word.status().message();
      return out;
    }
    out.argv.push_back(std::move(*word));
  }
  Status files =
      CollectFiles(*outer, FileCandidates(raw, *outer, run), sandbox, &out.files, &out.folder);
  if (!files.ok()) {
    out.failure = files.message();
    return out;
  }
  for (const CallRecord* call : aux) {
    recipe::AuxiliaryCommand command;
    const std::string what = "the auxiliary server " + Redact(CallName(*call));
    std::vector<std::string> words = {call->tool};
    words.insert(words.end(), call->argv.begin(), call->argv.end());
    for (const auto& arg : words) {
      auto word = CarriedWord(arg, sandbox, what);
      if (!word.ok()) {
        out.failure = word.status().message();
        return out;
      }
      command.argv.push_back(std::move(*word));
    }
    Status env =
        EnvironmentDelta(*call, run, sandbox, what, &command.env, &command.env_from, &out.notes);
    if (env.ok() && call->cwd != outer->cwd) {
      env = Status::InvalidArgument(fmt::format(
          "{} starts in {} and the engine in {}; servebench starts both in the session's folder",
          what, sandbox.FromSandbox(call->cwd), sandbox.FromSandbox(outer->cwd)));
    }
    if (env.ok())
      env =
          CollectFiles(*call, FileCandidates(words, *call, run), sandbox, &out.files, &out.folder);
    if (!env.ok()) {
      out.failure = env.message();
      return out;
    }
    out.auxiliary.push_back(std::move(command));
  }
  out.port = ListenPort(out.argv, port);
  if (!routers.empty()) {
    Status router = CaptureRouter(*routers.front(), *outer, run, sandbox, port, &out);
    if (!router.ok()) {
      out.failure = router.message();
      return out;
    }
  }

  // The environment the script gave the command, beyond the job's.
  Status env =
      EnvironmentDelta(*outer, run, sandbox, "the server", &out.env, &out.env_from, &out.notes);
  if (!env.ok()) {
    out.failure = env.message();
    return out;
  }

  // Before the server: downloads become prepare steps, the rest is noted.
  std::vector<const CallRecord*> not_carried, gpu_tools, patches;
  for (const auto& call : run.calls) {
    if (call.id >= outer->id) break;
    if (call.role == "download" && !IsDatasetDownload(call)) {
      std::vector<std::string> step = {call.tool};
      for (const auto& a : call.argv) step.push_back(Redact(sandbox.FromSandbox(a)));
      out.prepare.push_back(std::move(step));
    } else if (call.role == "gpu") {
      gpu_tools.push_back(&call);
    } else if (call.role == "patch") {
      patches.push_back(&call);
    } else if (call.tool != "sleep" && call.tool != "curl" && call.role != "launcher" &&
               call.role != "aux") {
      not_carried.push_back(&call);
    }
  }
  NoteCalls(not_carried,
            "ran before the server inside InferenceX's container, not carried: ", &out.notes);
  NoteCalls(gpu_tools, "GPU tools the stand-ins answered: ", &out.notes);
  NoteRdmaDevices(out, &out.notes);
  for (const CallRecord* p : patches)
    out.notes.push_back(
        "the script patched the container image, not carried (servebench runs "
        "the image as it is): sed -i ... " +
        (p->argv.empty() ? std::string() : p->argv.back()));
  for (const auto& call : run.calls) {
    if (call.id <= server->id || call.role != "client") continue;
    out.client_argv = {call.tool};
    for (const auto& a : call.argv) out.client_argv.push_back(Redact(sandbox.FromSandbox(a)));
    out.client = CallName(call);
    // AIPerf's AIPERF_HTTP_X_* switches add headers a router reads (the session id
    // its consistent hash pins a conversation to a DP rank by).
    for (const auto& [name, value] : call.env) {
      auto given = run.env.find(name);
      if (name.rfind("AIPERF_HTTP_X_", 0) != 0 ||
          (given != run.env.end() && given->second == value))
        continue;
      out.notes.push_back(fmt::format(
          "client {}={} (a request header from each conversation's correlation id, which the "
          "router routes by) is not carried: servebench's agentic client sends no such header",
          name, Redact(value)));
    }
    break;
  }
  if (out.client_argv.empty()) out.notes.push_back("no benchmark client ran after the server");
  if (run.timed_out || run.exit_code != 0) {
    out.notes.push_back(fmt::format("the script {} after starting the server{}", ended,
                                    last.empty() ? "" : ": " + last));
  }
  return out;
}

}  // namespace servebench::capture
