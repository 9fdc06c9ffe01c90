#include "common/speed_bench_names.h"

#include <algorithm>

namespace servebench {

const std::vector<std::string>& SpeedBenchSubsets() {
  static const std::vector<std::string> kSubsets = {"qualitative",    "throughput_1k",
                                                    "throughput_2k",  "throughput_8k",
                                                    "throughput_16k", "throughput_32k"};
  return kSubsets;
}

const std::vector<std::string>& SpeedBenchCategories(std::string_view subset) {
  static const std::vector<std::string> kQualitative = {
      "coding",    "humanities", "math", "multilingual",  "qa",     "rag",
      "reasoning", "roleplay",   "stem", "summarization", "writing"};
  static const std::vector<std::string> kThroughput = {"high_entropy", "low_entropy", "mixed"};
  static const std::vector<std::string> kNone;
  const std::vector<std::string>& all = SpeedBenchSubsets();
  if (std::find(all.begin(), all.end(), subset) == all.end()) return kNone;
  return subset == "qualitative" ? kQualitative : kThroughput;
}

ConversationSelection ConversationSelectionOf(const std::vector<std::string>& args) {
  ConversationSelection s;
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == kSpeedBenchSubsetFlag) s.speed_bench_subset = args[i + 1];
    if (args[i] == kSpeedBenchCategoryFlag) s.speed_bench_category = args[i + 1];
    if (args[i] == kSpecBenchCategoryFlag) s.spec_bench_category = args[i + 1];
  }
  return s;
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace servebench
