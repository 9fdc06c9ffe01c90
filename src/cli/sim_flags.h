// The flags of `servebench sim`, defined once: `servebench sim` parses its own command
// line with them, and `run`'s preflight (cli/preflight.h) parses the sim command a
// recipe renders with the same definitions, so a bad sim option, catalogue name or
// fault is refused before any engine starts, with the sim's own message.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "common/status.h"
#include "sim/predict.h"
#include "sim/sim_settings.h"

namespace servebench::cli {

struct SimFlags {
  sim::SimSettings settings;
  std::string spec_json;               // --speculative-config, parsed by Finish
  std::string golden_thinking = "on";  // --golden-al-thinking
  std::string role = "aggregated";     // --role, parsed by Finish
  std::vector<int> predict_concurrency;
  sim::PredictLoad load;         // --predict's load
  bool fidelity = false;         // --fidelity: the error per published point, then exit
  std::string published_points;  // --published-points: another file of them
};

// Adds every `servebench sim` flag to `app`, writing into `flags`.
void AddSimFlags(CLI::App& app, SimFlags* flags);

// After parsing: turns the text flags (--speculative-config, --golden-al-thinking, --role)
// into settings. InvalidArgument naming the flag.
Status FinishSimFlags(SimFlags* flags);

// Everything `servebench sim ARGS...` checks before it serves: the flags parse, their
// values are valid (sim::Validate) and the catalogue has the model and GPU, the
// weights fit (sim::Resolve). Returns the resolved max_model_len (tokens a request may
// hold). `args` are the words after `servebench sim`.
StatusOr<int> CheckSimCommandLine(const std::vector<std::string>& args);

}  // namespace servebench::cli
