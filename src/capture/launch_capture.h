// LaunchCapture: what one benchmark script run launched, in InferenceX's own paths,
// and ExtractLaunch, which reads it off the stand-ins' records.
//
// Rules (docs/recipes.md, "Captured InferenceX launches"):
// - The server is the one engine call (vllm serve, python3 -m sglang.launch_server,
//   trtllm-serve, python3 -m atom.entrypoints.openai_server, ...); a launcher that
//   became it (mpirun, numactl, taskset: the same pid) is part of its command.
//   Auxiliary servers (mooncake_master, lmcache server: the agentic scripts' KV
//   offload tiers) are captured beside it, each its argv and its environment delta,
//   starting in the engine's folder (servebench starts them before it). A router in
//   front of it (vllm-router, python3 -m sglang_router.launch_router: InferenceX's
//   DP-attention scripts, the engine on PORT+1, the router on PORT) is the command's
//   router: its argv exactly, its environment delta, its --port (else the job's PORT),
//   in the engine's folder; servebench starts it once the engine is ready and sends
//   the load to it. Two routers, or two engines: not captured.
// - Files are those the server or an auxiliary server names in its argv or in a
//   variable the script gave it (MOONCAKE_CONFIG_PATH), one list for the session.
// - Its environment is what the script added or changed: the job's own variables
//   (MODEL, TP, CONC, ...) and the shell's (PWD, SHLVL, _) are left out, PATH too
//   (the image's applies; a change is noted). A variable holding a secret or a copy
//   of a *_VISIBLE_DEVICES variable becomes env_from (taken at launch, not stored),
//   the engine's, an auxiliary server's or the router's.
// - Files the command names that the script wrote or took from the checkout (a
//   TensorRT-LLM config, a chat template) are carried, under the path it names; one
//   named by its absolute /workspace path makes /workspace the command's folder
//   (then it runs only in a container, with its folder mounted there).
// - The model downloads before the server (hf / huggingface-cli download, datasets
//   excepted) become prepare steps; every other call before it (pip, patches,
//   GPU tools) is noted as not carried, since it changed InferenceX's container.
// - A snapshot folder a stand-in download left in the HF cache (the script serves
//   `"$MODEL_PATH"` resolved from refs/main), in an argv or an env value, becomes the
//   repository's snapshot word (recipe/hub_snapshot.h), resolved at launch; a path
//   inside a snapshot fails the capture.
// - The client is the first benchmark client call after the server.
// - Secrets: placeholders are never real tokens, and wherever one shows up in what is
//   kept it reads <redacted:NAME>; in the server's argv it fails the capture.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "capture/sandbox.h"
#include "capture/script_run.h"
#include "recipe/point.h"

namespace servebench::capture {

struct LaunchCapture {
  std::string script;             // relative to the checkout
  std::string failure;            // empty: captured; else why not, in one line
  std::vector<std::string> argv;  // the server command, launcher included
  std::string server;             // CallName of the engine call
  int port = 0;                   // its --port, else the job's PORT (behind a router: PORT+1)
  std::map<std::string, std::string> env;
  std::map<std::string, std::string> env_from;  // NAME -> SOURCE
  std::vector<std::vector<std::string>> prepare;
  std::vector<recipe::CommandFile> files;           // the server's and the auxiliary servers'
  std::vector<recipe::AuxiliaryCommand> auxiliary;  // started before it, in order
  recipe::RouterCommand router;                     // in front of it; argv empty = none
  // "/workspace" when the command names a file there by its absolute path (the
  // files are then relative to it); "" when its files are named relatively.
  std::string folder;
  std::vector<std::string> client_argv;  // [tool, args...]; empty when none ran
  std::string client;                    // CallName of the client call
  std::vector<std::string> notes;        // what ran and is not carried, in order
  int exit_code = -1;                    // the script's
  bool ok() const { return failure.empty(); }
};

// Reads the launch off `run`. `job` is the job the script ran for, `port` its PORT.
LaunchCapture ExtractLaunch(const ScriptRun& run, const JobEnvironment& job, const Sandbox& sandbox,
                            int port);

// The last line of script output that is not a `set -x` trace, or "".
std::string LastMessage(const std::string& output);

// `text` with every secret placeholder replaced by <redacted:NAME>.
std::string Redact(std::string text);

}  // namespace servebench::capture
