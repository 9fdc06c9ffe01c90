// Conversation datasets for speculative-decoding benchmarks, read from local files in
// their published formats (vLLM's --dataset-name speed_bench and spec_bench):
//
//   SPEED-Bench (huggingface.co/datasets/nvidia/SPEED-Bench) as NVIDIA's prepare.py
//   writes it: <dir>/<subset>.jsonl, one row per line with "category", "question_id"
//   and "messages" [{"role": "user", "content": ...}, ...] (prepare.py's form) or the
//   Hub's raw "turns" [string, ...]. Subsets: qualitative (11 semantic categories,
//   for acceptance) and throughput_1k ... throughput_32k (low_entropy, mixed,
//   high_entropy, for throughput at a fixed input length).
//
//   Spec-Bench (github.com/hemingkx/Spec-Bench, data/spec_bench/question.jsonl): one
//   row per line with "question_id", "category" and "turns" [string, ...].
//
// Each row is a conversation of user turns. servebench sends its first turn (as
// vLLM's loaders do); the follow-up turns would need the model's own replies between
// them and are counted, not sent (docs/bench.md "SPEED-Bench and Spec-Bench").
// Pure functions of the file; reentrant.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/speed_bench_names.h"  // SpeedBenchSubsets, SpeedBenchCategories
#include "common/status.h"

namespace servebench::client {

struct ConversationRow {
  std::string question_id;         // as written ("" when the row has none)
  std::string category;            // the row's category
  std::vector<std::string> turns;  // user turns in order; never empty
  size_t line = 0;                 // 1-based line in the file
};

// The categories of Spec-Bench's question.jsonl (vLLM's documented list).
const std::vector<std::string>& SpecBenchCategories();

// Fails, naming the flag and the allowed values, when `subset` is not a SPEED-Bench
// subset or `category` (empty = all) is not one of its categories. Reads nothing.
Status ValidateSpeedBenchSelection(const std::string& subset, const std::string& category);

// The file --dataset-path names for a subset: a folder means <folder>/<subset>.jsonl
// (where prepare.py --output_dir writes it, and what vLLM and perf-eval pass); any
// other path is the file itself.
std::string SpeedBenchFile(const std::string& dataset_path, const std::string& subset);

// The rows of a SPEED-Bench file whose category is `category` (empty = all), in file
// order. Fails with "file:line: ..." for a line that is not a row (no category, no
// turns, a turn that is not text, or a turn still holding the Hub's placeholder for
// data prepare.py fetches from the source datasets), for a category that does not
// belong to `subset` (the wrong subset's file), and when no row matches.
StatusOr<std::vector<ConversationRow>> LoadSpeedBench(const std::string& dataset_path,
                                                      const std::string& subset,
                                                      const std::string& category);

// The rows of a Spec-Bench question.jsonl whose category is `category` (empty = all).
// Fails with "file:line: ..." for a malformed row, and when no row matches (naming
// the categories the file has).
StatusOr<std::vector<ConversationRow>> LoadSpecBench(const std::string& path,
                                                     const std::string& category);

}  // namespace servebench::client
