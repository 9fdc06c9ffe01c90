#include "trace/trace_loader.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <vector>

#include "trace/hash_mix.h"
#include "trace/loaders_internal.h"
#include "trace/prompt_synthesis.h"

namespace servebench::trace {
namespace internal {

Status BlockSizes::Check(const TraceTurn& turn, int64_t block_tokens, std::string_view field) {
  StatusOr<PromptLayout> layout =
      LayOutPrompt(turn.input_tokens, block_tokens, turn.hash_ids.size());
  if (!layout.ok())
    return Status::InvalidArgument(fmt::format("{}: {}", field, layout.status().message()));
  for (size_t i = 0; i < turn.hash_ids.size(); ++i) {
    const int64_t size = i + 1 == turn.hash_ids.size() ? layout->last_block_tokens : block_tokens;
    auto [it, fresh] = size_of_.emplace(turn.hash_ids[i], size);
    if (!fresh && it->second != size) {
      return Status::InvalidArgument(fmt::format(
          "{}[{}] = {}: this id is a block of {} tokens on an earlier row and {} tokens here; "
          "one id names one block (check input_length against the ids)",
          field, i, turn.hash_ids[i], it->second, size));
    }
  }
  return Status::Ok();
}

}  // namespace internal

namespace {

constexpr int64_t kMooncakeBlockTokens = 512;
constexpr int64_t kBailianBlockTokens = 16;

// The files a path names: itself, or a folder's *.json / *.jsonl in name order.
StatusOr<std::vector<std::string>> TraceFiles(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return Status::NotFound(fmt::format("{}: no such trace file or folder", path));
  }
  if (!std::filesystem::is_directory(path, ec)) return std::vector<std::string>{path};
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
    const std::string ext = entry.path().extension().string();
    if (entry.is_regular_file() && (ext == ".json" || ext == ".jsonl")) {
      files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    return Status::NotFound(fmt::format("{}: a trace folder with no *.json or *.jsonl file", path));
  }
  return files;
}

// The first non-blank line of a file (at most 64 MiB read: a Weka row can be long).
StatusOr<std::string> FirstLine(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::NotFound(fmt::format("{}: cannot be read", path));
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) return line;
  }
  return Status::InvalidArgument(fmt::format("{}: empty trace file", path));
}

}  // namespace

StatusOr<TraceFormat> ParseTraceFormat(std::string_view name) {
  if (name == "mooncake_trace") return TraceFormat::kMooncake;
  if (name == "weka_trace") return TraceFormat::kWeka;
  if (name == "bailian_trace") return TraceFormat::kBailian;
  if (name == "dag_jsonl") return TraceFormat::kDagJsonl;
  if (name == "multi_turn") return TraceFormat::kMultiTurn;
  return Status::InvalidArgument(fmt::format(
      "trace format '{}': must be mooncake_trace, weka_trace, bailian_trace, dag_jsonl or "
      "multi_turn",
      name));
}

bool IsTraceFormatName(std::string_view name) { return ParseTraceFormat(name).ok(); }

StatusOr<TraceFormat> DetectTraceFormat(const std::string& path) {
  SB_ASSIGN_OR_RETURN(std::vector<std::string> files, TraceFiles(path));
  SB_ASSIGN_OR_RETURN(std::string line, FirstLine(files[0]));
  boost::system::error_code ec;
  boost::json::value value = boost::json::parse(line, ec);
  // A pretty-printed Weka trace starts with "{" alone on its line; a vLLM multi_turn
  // file is one JSON list.
  if (ec && line.find_first_not_of(" \t\r{") == std::string::npos) return TraceFormat::kWeka;
  if (const size_t first = line.find_first_not_of(" \t\r"); line[first] == '[') {
    return TraceFormat::kMultiTurn;
  }
  if (!ec && value.is_object()) {
    const boost::json::object& row = value.get_object();
    if (row.contains("turns") && row.contains("session_id")) return TraceFormat::kDagJsonl;
    if (row.contains("requests") || row.contains("hash_id_scope")) return TraceFormat::kWeka;
    if (row.contains("chat_id")) return TraceFormat::kBailian;
    if (row.contains("input_length") || row.contains("output_length"))
      return TraceFormat::kMooncake;
  }
  return Status::InvalidArgument(fmt::format(
      "{}:1: not a trace this version reads: weka_trace rows hold {{id, block_size, requests}}, "
      "mooncake_trace rows {{timestamp, input_length, output_length, hash_ids}}, bailian_trace "
      "rows {{chat_id, parent_chat_id, timestamp, input_length, ...}}, dag_jsonl rows "
      "{{session_id, turns}}, a multi_turn file [{{id, messages}}, ...] (or give the format)",
      files[0]));
}

StatusOr<Trace> LoadTrace(const std::string& path, const TraceLoadOptions& options) {
  SB_ASSIGN_OR_RETURN(std::vector<std::string> files, TraceFiles(path));
  Trace trace;
  trace.path = path;
  if (options.format) {
    trace.format = *options.format;
  } else {
    SB_ASSIGN_OR_RETURN(trace.format, DetectTraceFormat(path));
  }
  uint64_t scope = 0;
  for (const std::string& file : files) {
    if (trace.format == TraceFormat::kMooncake) {
      trace.block_size_tokens =
          options.mooncake_block_tokens > 0 ? options.mooncake_block_tokens : kMooncakeBlockTokens;
      // One scope per file: ids are global to their file (§5).
      SB_RETURN_IF_ERROR(internal::LoadMooncakeFile(file, MixInto(scope++, 0x6d6f6f6eull),
                                                    trace.block_size_tokens, &trace));
    } else if (trace.format == TraceFormat::kBailian) {
      trace.block_size_tokens =
          options.mooncake_block_tokens > 0 ? options.mooncake_block_tokens : kBailianBlockTokens;
      SB_RETURN_IF_ERROR(internal::LoadBailianFile(file, MixInto(scope++, 0x6261696cull),
                                                   trace.block_size_tokens, &trace));
    } else if (trace.format == TraceFormat::kDagJsonl) {
      trace.text_messages = true;
      SB_RETURN_IF_ERROR(internal::LoadDagFile(file, MixInto(scope++, 0x6461676aull), &trace));
    } else if (trace.format == TraceFormat::kMultiTurn) {
      trace.text_messages = true;
      SB_RETURN_IF_ERROR(
          internal::LoadMultiTurnFile(file, MixInto(scope++, 0x6d756c74ull), &trace));
    } else {
      const size_t before = trace.trees.size();
      SB_RETURN_IF_ERROR(internal::LoadWekaFile(file, scope, &trace));
      scope += trace.trees.size() - before;
    }
  }
  trace.has_timestamps =
      std::all_of(trace.trees.begin(), trace.trees.end(), [](const TraceTree& t) {
        return !t.conversations[0].turns.empty() && t.conversations[0].turns[0].timestamp_ms >= 0;
      });
  return trace;
}

}  // namespace servebench::trace
