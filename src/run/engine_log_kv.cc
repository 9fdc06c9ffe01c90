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
  size_t start = 0;
  while (start < log.size()) {
    size_t end = log.find('\n', start);
    if (end == std::string_view::npos) end = log.size();
    const std::string_view view = log.substr(start, end - start);
    start = end + 1;
    if (view.find("GPU KV cache size") == std::string_view::npos) continue;
    const std::string line(view);
    std::smatch size;
    if (!std::regex_search(line, size, kSize)) continue;
    std::string digits = size[1].str();
    digits.erase(std::remove(digits.begin(), digits.end(), ','), digits.end());
    if (digits.empty() || digits.size() > 18) continue;
    const int64_t tokens = std::stoll(digits);
    if (tokens <= 0) continue;
    if (std::smatch tag; std::regex_search(line, tag, kEngineTag)) {
      per_engine[tag[1].str()] = tokens;
    } else {
      bare += tokens;
      bare_found = true;
    }
  }
  if (!per_engine.empty()) {
    int64_t total = 0;
    for (const auto& [tag, tokens] : per_engine) total += tokens;
    return total;
  }
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
  std::optional<int64_t> dp_size;
  std::map<std::string, int64_t> per_rank;
  int64_t bare = 0;
  int bare_count = 0;
  bool dp_searched = false;
  size_t start = 0;
  while (start < log.size()) {
    size_t end = log.find('\n', start);
    if (end == std::string_view::npos) end = log.size();
    const std::string_view view = log.substr(start, end - start);
    start = end + 1;
    if (view.find("max_total_num_tokens") == std::string_view::npos) continue;
    const std::string line(view);
    std::smatch size;
    if (!std::regex_search(line, size, kSize) || size[1].length() > 18) continue;
    const int64_t tokens = std::stoll(size[1].str());
    if (tokens <= 0) continue;
    if (!dp_searched) {
      dp_searched = true;
      dp_size = DpSize(log);
    }
    if (std::smatch rank; std::regex_search(line, rank, kRank)) {
      per_rank[rank[1].str()] = tokens;
    } else {
      bare += tokens;
      ++bare_count;
    }
  }
  const int64_t dp = dp_size.value_or(1);
  if (!per_rank.empty()) {
    if (per_rank.size() == 1 && dp > 1) return per_rank.begin()->second * dp;
    int64_t total = 0;
    for (const auto& [rank, tokens] : per_rank) total += tokens;
    return total;
  }
  if (bare_count == 1 && dp > 1) return bare * dp;
  return bare_count > 0 ? std::optional<int64_t>(bare) : std::nullopt;
}

LogKvCapacity KvCapacityFromLogs(const std::vector<std::string>& files) {
  LogKvCapacity total;
  const auto add = [](std::optional<int64_t>* sum, std::optional<int64_t> v) {
    if (v) *sum = sum->value_or(0) + *v;
  };
  for (const std::string& file : files) {
    const std::string head = EngineLogHead(file);
    add(&total.vllm, VllmKvCapacityFromLog(head));
    add(&total.sglang, SglangKvCapacityFromLog(head));
  }
  return total;
}

}  // namespace servebench::run
