// ApplyCapture: a captured launch put into the point it was captured for, so that
// servebench runs what InferenceX's script runs.
//
// Server: serve.command (argv, port, files, auxiliary servers, the router in front,
// source "inferencex:<script>"),
// serve.env / env_from / prepare replaced by the capture's, the env names listed in
// env_not_secret (no secret is left in them). Read off the command
// for the point's description (records, tables): the served model name (the
// client's --model when it differs from the model) and speculative decoding
// (vLLM's --speculative-config, JSON or dotted; SGLang's --speculative-* flags
// and SGLANG_SIMULATE_ACC_LEN): method, draft, draft length, synthetic acceptance.
//
// Client (benchmark_serving.py, `vllm bench serve`): --random-input-len/-output-len,
// --random-range-ratio, --num-prompts, --num-warmups, --max-concurrency,
// --request-rate (inf = closed loop), --ignore-eos, --dataset-name/--dataset-path,
// --backend and --endpoint. --use-chat-template (and --dsv4, which implies it)
// becomes servebench's chat path: /v1/chat/completions, the server applying the
// model's own chat template to each prompt, so drafts see chat-formatted text as
// InferenceX's client-side template gives them (servebench has no tokenizer of its
// own). Flags without a servebench counterpart are returned as notes. An agentic
// client (`aiperf profile`, InferenceX's build_replay_cmd): --concurrency (the lanes)
// and --benchmark-duration become the load; --random-seed, the idle cap, the
// trajectory start ratios and --warmup-requests-per-lane are servebench's own
// (recipe::kInferenceXAgenticLanes), each value that differs noted, as are
// --scenario other than inferencex-agentx-mvp and --failed-request-threshold.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "capture/launch_capture.h"
#include "recipe/point.h"

namespace servebench::capture {

// Applies `capture` (which must be ok()) to `point`; returns notes on what of the
// client was not carried. Ids are not reassigned (recipe::AssignIds).
std::vector<std::string> ApplyCapture(const LaunchCapture& capture, recipe::Point* point);

// Speculative decoding as the command `argv` (with environment `env`) configures it;
// `spec` is left as it is when the command says nothing the rules above read.
void DescribeSpec(const std::vector<std::string>& argv,
                  const std::map<std::string, std::string>& env, recipe::SpecDecoding* spec);

// The load a benchmark_serving.py / `vllm bench serve` command line offers, over
// `load`; notes for flags servebench has no counterpart for.
std::vector<std::string> ApplyClient(const std::vector<std::string>& client_argv,
                                     recipe::LoadSpec* load);

}  // namespace servebench::capture
