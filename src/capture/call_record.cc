#include "capture/call_record.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "common/atomic_file.h"

namespace servebench::capture {
namespace {

namespace fs = std::filesystem;

// NUL-terminated fields ("a\0b\0") as a list.
std::vector<std::string> SplitNul(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\0') continue;
    out.push_back(text.substr(start, i - start));
    start = i + 1;
  }
  return out;
}

std::string ReadOr(const fs::path& path, const std::string& fallback) {
  auto text = ReadFile(path.string());
  return text.ok() ? *text : fallback;
}

}  // namespace

StatusOr<std::vector<CallRecord>> ReadCallRecords(const std::string& calls_dir) {
  std::vector<CallRecord> calls;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(calls_dir, ec)) {
    const fs::path dir = entry.path();
    auto argv = ReadFile((dir / "argv").string());
    auto env = ReadFile((dir / "env").string());
    if (!argv.ok() || !env.ok()) continue;  // killed before it recorded itself
    CallRecord call;
    call.id = dir.filename().string();
    call.pid = call.id.substr(call.id.find('-') + 1);
    call.tool = ReadOr(dir / "tool", "");
    call.role = ReadOr(dir / "role", "other");
    call.argv = SplitNul(*argv);
    for (const auto& kv : SplitNul(*env)) {
      auto eq = kv.find('=');
      if (eq != std::string::npos && eq > 0) call.env[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    call.cwd = ReadOr(dir / "cwd", "");
    call.stdin_text = ReadOr(dir / "stdin", "");
    if (call.tool.empty())
      return Status::DataLoss(fmt::format("capture record {} has no tool name", dir.string()));
    calls.push_back(std::move(call));
  }
  if (ec) return Status::DataLoss(fmt::format("cannot list {}: {}", calls_dir, ec.message()));
  std::sort(calls.begin(), calls.end(),
            [](const CallRecord& a, const CallRecord& b) { return a.id < b.id; });
  return calls;
}

std::string CallName(const CallRecord& call) {
  std::string name = call.tool;
  int words = 0;
  for (size_t i = 0; i < call.argv.size() && words < 2; ++i) {
    const std::string& a = call.argv[i];
    if (a == "-m" && i + 1 < call.argv.size()) {
      name += " -m " + call.argv[i + 1];
      break;
    }
    if (a.empty() || a[0] == '-') break;
    name += " " + a;
    ++words;
  }
  return name;
}

}  // namespace servebench::capture
