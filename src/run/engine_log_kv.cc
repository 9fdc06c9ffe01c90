#include "run/engine_log_kv.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

namespace servebench::run {
namespace {

constexpr size_t kMaxLogBytes = 64u << 20;  // InferenceX's load_server_log_head

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The first `\bdp_size=(\d+)\b` of the log, as InferenceX's sglang.py reads it (found
// by hand: a regex over a 64 MiB log is slow); nullopt when absent or not positive.
std::optional<int64_t> DpSize(std::string_view log) {
  constexpr std::string_view kKey = "dp_size=";
  for (size_t at = log.find(kKey); at != std::string_view::npos; at = log.find(kKey, at + 1)) {
    if (at > 0 && IsWordChar(log[at - 1])) continue;
    size_t end = at + kKey.size();
    while (end < log.size() && std::isdigit(static_cast<unsigned char>(log[end]))) ++end;
    const size_t digits = end - at - kKey.size();
    if (digits == 0 || (end < log.size() && IsWordChar(log[end]))) continue;
    if (digits > 9) return std::nullopt;
    const int64_t n = std::stoll(std::string(log.substr(at + kKey.size(), digits)));
    return n > 0 ? std::optional<int64_t>(n) : std::nullopt;
  }
  return std::nullopt;
}

// Calls f(line) for each line of `log` that contains `marker` (each as its own string,
// for std::regex).
template <class F>
void ForEachLineWith(std::string_view log, std::string_view marker, F&& f) {
  size_t start = 0;
  while (start < log.size()) {
    size_t end = log.find('\n', start);
    if (end == std::string_view::npos) end = log.size();
    const std::string_view line = log.substr(start, end - start);
    start = end + 1;
    if (line.find(marker) != std::string_view::npos) f(std::string(line));
  }
}

int64_t Sum(const std::map<std::string, int64_t>& sizes) {
  int64_t total = 0;
  for (const auto& [tag, tokens] : sizes) total += tokens;
  return total;
}

}  // namespace

std::string EngineLogHead(const std::string& path) {
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) return "";
  std::ifstream in(path, std::ios::binary);
  std::string text(static_cast<size_t>(std::min<uintmax_t>(size, kMaxLogBytes)), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  return text;
}

std::optional<int64_t> VllmKvCapacityFromLog(std::string_view log) {
  static const std::regex kSize(R"(GPU KV cache size:\s*([\d,]+)\s*tokens)");
  static const std::regex kEngineTag(R"(\((EngineCore(?:_DP\d+)?)\s+pid=\d+\))");
  std::map<std::string, int64_t> per_engine;
  int64_t bare = 0;
  bool bare_found = false;
  ForEachLineWith(log, "GPU KV cache size", [&](const std::string& line) {
    std::smatch size;
    if (!std::regex_search(line, size, kSize)) return;
    std::string digits = size[1].str();
    digits.erase(std::remove(digits.begin(), digits.end(), ','), digits.end());
    if (digits.empty() || digits.size() > 18) return;
    const int64_t tokens = std::stoll(digits);
    if (tokens <= 0) return;
    if (std::smatch tag; std::regex_search(line, tag, kEngineTag)) {
      per_engine[tag[1].str()] = tokens;
    } else {
      bare += tokens;
      bare_found = true;
    }
  });
  if (!per_engine.empty()) return Sum(per_engine);
  return bare_found ? std::optional<int64_t>(bare) : std::nullopt;
}

std::vector<std::string> EngineLogFiles(const std::string& log_path) {
  std::error_code ec;
  if (log_path.empty()) return {};
  if (std::filesystem::is_regular_file(log_path, ec)) return {log_path};
  std::vector<std::string> files;
  if (!std::filesystem::is_directory(log_path, ec)) return files;
  for (const auto& entry : std::filesystem::directory_iterator(log_path, ec)) {
    if (entry.is_regular_file(ec)) files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::optional<int64_t> SglangKvCapacityFromLog(std::string_view log) {
  static const std::regex kSize(R"(\bmax_total_num_tokens=(\d+)\b)");
  static const std::regex kRank(R"(\b(DP\d+\s+TP\d+\s+EP\d+)\b)");
  std::map<std::string, int64_t> per_rank;
  int64_t bare = 0;
  int bare_count = 0;
  ForEachLineWith(log, "max_total_num_tokens", [&](const std::string& line) {
    std::smatch size;
    if (!std::regex_search(line, size, kSize) || size[1].length() > 18) return;
    const int64_t tokens = std::stoll(size[1].str());
    if (tokens <= 0) return;
    if (std::smatch rank; std::regex_search(line, rank, kRank)) {
      per_rank[rank[1].str()] = tokens;
    } else {
      bare += tokens;
      ++bare_count;
    }
  });
  // One size seen of a data-parallel server: the log's dp_size times it.
  const auto scaled = [&log](int64_t tokens) { return tokens * DpSize(log).value_or(1); };
  if (!per_rank.empty()) {
    return per_rank.size() == 1 ? scaled(per_rank.begin()->second) : Sum(per_rank);
  }
  if (bare_count == 1) return scaled(bare);
  return bare_count > 0 ? std::optional<int64_t>(bare) : std::nullopt;
}

LogKvCapacity KvCapacityOfLogs(const std::vector<std::string>& logs) {
  LogKvCapacity total;
  const auto add = [](std::optional<int64_t>* sum, std::optional<int64_t> v) {
    if (v) *sum = sum->value_or(0) + *v;
  };
  for (const std::string& log : logs) {
    add(&total.vllm, VllmKvCapacityFromLog(log));
    add(&total.sglang, SglangKvCapacityFromLog(log));
  }
  return total;
}

}  // namespace servebench::run
