// RunPrepareSteps: a ServerCommand's prepare steps (serve.prepare, recipe/point.h:
// a launch script's `hf download` of the model and its draft into the shared HF
// cache) run one after another, each to completion, before the engine starts.
// Each step is started by a Supervisor (its own process group, output to a log,
// stopped with the rest on Ctrl-C), with servebench's environment plus the
// command's env, in the command's folder. Call from the thread that will start the
// engine (supervisor.h's PDEATHSIG caveat).
#pragma once

#include <string>

#include "common/status.h"
#include "engine/failure_classifier.h"
#include "engine/server_command.h"

namespace servebench::engine {

// Runs every step of `command.prepare`; step i logs to `<log_prefix>-<i+1>.log`.
// A step may take at most `timeout_s` (0 = no bound). OK when all exited 0. Else
// FailedPrecondition naming the step, and `*failure` classified from its log with
// the engine signatures (e.g. model.access for a gated repository), class
// failure_class::kInfraPrepareFailed when nothing matches (kInfraStartFailed when a
// step cannot be started).
Status RunPrepareSteps(const ServerCommand& command, const std::string& log_prefix,
                       double timeout_s, EngineFailure* failure);

}  // namespace servebench::engine
