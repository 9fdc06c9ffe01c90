// Engine adapters: ServeSpec + RenderOptions -> ServerCommand, for vllm, sglang,
// trtllm, llamacpp and sim (docs/engines.md has each engine's rendering).
//
// Every adapter renders the parallelism (TP/PP/EP/DP, DP-attention), max model
// length, KV-cache dtype, speculative decoding (method, draft model, number of
// speculative tokens) and synthetic acceptance with the engine's own knob:
//   vllm      --speculative-config.rejection_sample_method synthetic
//             --speculative-config.synthetic_acceptance_length AL
//   sglang    env SGLANG_SIMULATE_ACC_LEN=AL (+ METHOD, TOKEN_MODE)
//   trtllm    env TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS=AL-1 (off by one: it
//             counts accepted draft tokens only, not the target's token)
//   llamacpp  --spec-synth-len AL
//   sim       vLLM's names; --speculative-config as one JSON value
// then the recipe's extra arguments and environment. Flags the adapter owns
// (data/engine/flags.yaml) may not appear in extra_args, nor owned variables in env:
// that is an InvalidArgument naming the flag and the ServeSpec field to set instead.
// Thread-safe: pure functions of their inputs.
#pragma once

#include <string>

#include "common/status.h"
#include "engine/engine_catalog.h"
#include "engine/server_command.h"
#include "recipe/point.h"

namespace servebench::engine {

// Renders the server command for `spec.engine`. InvalidArgument for an unknown
// engine, an owned flag or variable in the recipe's extras, or a setting the engine
// cannot express (e.g. pipeline parallelism on llama.cpp), each naming the field.
// With a container profile and a non-empty spec.image the command is wrapped.
StatusOr<ServerCommand> RenderServerCommand(const recipe::ServeSpec& spec,
                                            const RenderOptions& options,
                                            const EngineCatalog& catalog);

// Same, with DefaultEngineCatalog().
StatusOr<ServerCommand> RenderServerCommand(const recipe::ServeSpec& spec,
                                            const RenderOptions& options);

// Wraps `command` to run `image` under `profile` (docker/podman/enroot/srun):
// the environment moves into the container command, config folders are mounted.
// kNone returns the command unchanged.
StatusOr<ServerCommand> WrapInContainer(const ServerCommand& command, const std::string& image,
                                        const ContainerProfile& profile);

// "vllm", "sglang", ... -> true when an adapter exists.
bool IsKnownEngine(const std::string& engine);

// The environment variable naming the folder an engine's torch profiler writes to
// (/start_profile, /stop_profile): vllm and sim VLLM_TORCH_PROFILER_DIR, sglang
// SGLANG_TORCH_PROFILER_DIR; nullptr for engines without those endpoints (trtllm,
// llamacpp: `--profile` is then a warning at the client). Every rendering with
// RenderOptions::profile_dir sets it, over any serve.env value.
const char* ProfilerEnvVar(const std::string& engine);

// A decimal with at most 4 places and no trailing zeros: 2.78, 1.78, 3 (so
// AL - 1 = 1.7799999999999998 in binary prints as 1.78).
std::string FormatDecimal(double value);

}  // namespace servebench::engine
