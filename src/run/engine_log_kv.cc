#include "run/engine_log_kv.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

namespace servebench::run {
namespace {

constexpr size_t kMaxLogBytes = 64u << 20;  // InferenceX's load_server_log_head

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

std::optional<int64_t> VllmKvCapacityFromLogs(const std::vector<std::string>& files) {
  std::optional<int64_t> total;
  for (const std::string& file : files) {
    if (auto v = VllmKvCapacityFromLog(EngineLogHead(file))) total = total.value_or(0) + *v;
  }
  return total;
}

}  // namespace servebench::run
