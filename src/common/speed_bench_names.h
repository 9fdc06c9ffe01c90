// SPEED-Bench's subset and category names (huggingface.co/datasets/nvidia/SPEED-Bench),
// one list for the recipe formats that name them (nightly `speed_bench_dataset_subset`
// / `speed_bench_category`) and the client that reads the files
// (client/conversation_dataset.h). Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace servebench {

// The subsets vLLM's --speed-bench-dataset-subset accepts: qualitative (acceptance)
// and the throughput subsets of fixed input length.
const std::vector<std::string>& SpeedBenchSubsets();

// The categories of a subset: qualitative's 11 semantic categories, or the throughput
// subsets' 3 entropy buckets. Empty for a name that is not a subset.
const std::vector<std::string>& SpeedBenchCategories(std::string_view subset);

// The client flags that select SPEED-Bench and Spec-Bench rows (`servebench bench`'s,
// as `vllm bench serve` names them). A recipe carries them in its load's extra
// arguments (the nightly format writes the first two from `speed_bench_dataset_subset`
// and `speed_bench_category`); run/ and the plan-time binding read them back with
// ConversationSelectionOf.
inline constexpr std::string_view kSpeedBenchSubsetFlag = "--speed-bench-dataset-subset";
inline constexpr std::string_view kSpeedBenchCategoryFlag = "--speed-bench-category";
inline constexpr std::string_view kSpecBenchCategoryFlag = "--spec-bench-category";

struct ConversationSelection {
  std::string speed_bench_subset = "qualitative";  // perf-eval's and vLLM's default
  std::string speed_bench_category;                // "" = all
  std::string spec_bench_category;                 // "" = all
};

// The selection `--flag value` pairs in `args` make (the last of a flag wins, as a
// command line's); flags it does not know are skipped.
ConversationSelection ConversationSelectionOf(const std::vector<std::string>& args);

// "a, b, c": names for messages.
std::string JoinNames(const std::vector<std::string>& names);

}  // namespace servebench
