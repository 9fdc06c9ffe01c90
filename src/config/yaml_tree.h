// A bounded, located YAML tree. yaml-cpp (0.7 on Debian 12) parses; this file
// turns its nodes into plain YNode values that remember line and column, and
// guards what yaml-cpp does not: file size, binary input, nesting depth and the
// number of nodes after alias expansion (an "alias bomb" expands exponentially).
// Scalars keep their text; typing follows YAML 1.1 as PyYAML resolves it, because
// InferenceX and perf-eval files are written for PyYAML (`2_063_837` is an int,
// `yes` is a bool, `1.0` is a float). Not thread-safe per tree; trees are values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/diagnostics.h"

namespace servebench::config {

struct YEntry;

struct YNode {
  enum class Kind { kNull, kScalar, kSequence, kMap };
  Kind kind = Kind::kNull;
  std::string scalar;           // text of a scalar (also set for explicit nulls: "~", "null")
  bool quoted = false;          // quoted or block scalar: always a string, never typed
  int line = 0, column = 0;     // 1-based
  std::vector<YNode> items;     // kSequence
  std::vector<YEntry> entries;  // kMap, in file order

  bool IsMap() const { return kind == Kind::kMap; }
  bool IsSequence() const { return kind == Kind::kSequence; }
  bool IsScalar() const { return kind == Kind::kScalar; }
  // Null node, or a plain scalar PyYAML reads as None (`~`, `null`, empty).
  bool IsNull() const;
  // The value under `key` in a map (last one wins, as in PyYAML), or nullptr.
  const YNode* Find(std::string_view key) const;

  // Typed views of a scalar; nullopt when the scalar is not of that YAML 1.1 type.
  std::optional<int64_t> AsInt() const;
  std::optional<double> AsDouble() const;  // ints are accepted too
  std::optional<bool> AsBool() const;
  // A string: quoted, or plain text that is not an int/float/bool/null.
  std::optional<std::string> AsString() const;
  // Name of the YAML 1.1 type this node resolves to: "map", "list", "int", ...
  std::string TypeName() const;
};

// One key: value of a map (`first` is the key node).
struct YEntry {
  YNode first, second;
};

// Limits on what a YAML file may be. A real master config is ~330 KB with
// ~60k nodes; these leave two orders of magnitude of room and still bound memory.
struct YamlLimits {
  size_t max_file_bytes = 16u << 20;
  size_t max_nodes = 500'000;  // after alias expansion (largest real file: ~21k)
  int max_depth = 64;          // nesting of maps and lists
};

// Reads `path` and parses it. Adds located diagnostics and returns nullopt when
// the file is missing, too large, binary, not valid YAML or beyond the limits.
// An empty file (or one holding only comments) yields a kNull root.
std::optional<YNode> LoadYamlFile(const std::string& path, Diagnostics* diagnostics,
                                  const YamlLimits& limits = {});

// The same for text already in memory; `file` names it in diagnostics.
std::optional<YNode> ParseYamlText(std::string_view text, const std::string& file,
                                   Diagnostics* diagnostics, const YamlLimits& limits = {});

}  // namespace servebench::config
