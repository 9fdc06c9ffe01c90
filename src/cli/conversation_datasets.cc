#include "cli/conversation_datasets.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <tuple>

#include "client/conversation_dataset.h"
#include "common/speed_bench_names.h"

namespace servebench::cli {

namespace fs = std::filesystem;

Status BindConversationDatasets(recipe::Plan* plan, const std::string& speed_bench_dir) {
  std::string dir = speed_bench_dir;
  const char* env = std::getenv("VLLM_SPEED_BENCH_DIR");
  if (dir.empty() && env != nullptr) dir = env;
  std::set<std::tuple<std::string, std::string, std::string>> loaded;
  bool any_speed_bench = false;
  for (recipe::Point& p : plan->points) {
    recipe::LoadSpec& load = p.load;
    const bool speed = load.dataset == "speed_bench";
    if (!speed && load.dataset != "spec_bench") continue;
    any_speed_bench = any_speed_bench || speed;
    const std::string where =
        fmt::format("{} ({}, concurrency {})", p.recipe, load.dataset, load.concurrency);
    std::string path = load.dataset_path;
    if (path.empty() && speed) path = dir;
    if (path.empty()) {
      return Status::InvalidArgument(
          speed ? fmt::format(
                      "{}: needs the SPEED-Bench files: --speed-bench-dir DIR (or "
                      "VLLM_SPEED_BENCH_DIR, as perf-eval reads it), a folder holding {}.jsonl as "
                      "NVIDIA's prepare.py writes it; servebench downloads nothing "
                      "(data/speed_bench/ holds a small generated sample, docs/bench.md)",
                      where, ConversationSelectionOf(load.extra_args).speed_bench_subset)
                : fmt::format("{}: needs dataset_path, Spec-Bench's question.jsonl", where));
    }
    path = fs::absolute(path).lexically_normal().string();
    const ConversationSelection selection = ConversationSelectionOf(load.extra_args);
    const std::string& category =
        speed ? selection.speed_bench_category : selection.spec_bench_category;
    if (loaded.insert({path, speed ? selection.speed_bench_subset : "", category}).second) {
      auto rows = speed ? client::LoadSpeedBench(path, selection.speed_bench_subset, category)
                        : client::LoadSpecBench(path, category);
      if (!rows.ok()) return Status::InvalidArgument(where + ": " + rows.status().message());
    }
    load.dataset_path = path;
    recipe::AssignIds(&p);
  }
  if (!any_speed_bench && !speed_bench_dir.empty()) {
    return Status::InvalidArgument(
        "--speed-bench-dir: the selected points have no speed_bench dataset to read from it");
  }
  return Status::Ok();
}

}  // namespace servebench::cli
