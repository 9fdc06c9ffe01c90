// FieldReader: strict, located reading of one YAML map against a schema. It
// reports unknown keys (with "did you mean"), duplicate keys, missing required
// keys and wrong types, each as a Diagnostic with file:line:column and the field
// path, and keeps going so one pass finds every problem. Used by every recipe format
// and every data-file loader (config_file.h). Not thread-safe; lives for one map.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/diagnostics.h"
#include "config/yaml_tree.h"

namespace servebench::config {

// Where problems go, and the file they are in.
struct LoadContext {
  std::string file;
  Diagnostics* diagnostics = nullptr;
  // When set, every key a FieldReader reads (and every item of a list under it) is
  // recorded here by field path, so checks after loading can point at the line.
  FieldLocations* locations = nullptr;
  void Error(const YNode& at, const std::string& path, std::string message) const;
  Location At(const YNode& node) const { return {file, node.line, node.column}; }
};

// "a.b" + "c" → "a.b.c"; "" + "c" → "c".
std::string JoinPath(const std::string& parent, const std::string& key);
// "a.b" + 3 → "a.b[3]".
std::string IndexPath(const std::string& parent, size_t index);

class FieldReader {
 public:
  static constexpr int64_t kMaxInt = 2147483647;
  // `node` must be a map (otherwise one type error is reported and every getter
  // returns nullopt). `allowed` lists the keys this map may hold.
  FieldReader(const LoadContext& ctx, const YNode& node, std::string path,
              std::vector<std::string> allowed, std::string what = "field");

  bool valid() const { return valid_; }
  const YNode& node() const { return *node_; }
  const std::string& path() const { return path_; }
  std::string PathOf(const std::string& key) const { return JoinPath(path_, key); }
  bool Has(const std::string& key) const;
  const YNode* Get(const std::string& key) const;     // nullptr when absent (null counts as absent)
  const YNode* GetRaw(const std::string& key) const;  // as Get, but null counts as present

  std::optional<std::string> String(const std::string& key, bool required = false,
                                    bool non_empty = false);
  std::optional<int64_t> Int(const std::string& key, bool required = false);
  // Positive int at most `max` (default: what an int holds; pass a hard limit from
  // common/limits.h where one applies). Out of range is reported with the range.
  std::optional<int64_t> PositiveInt(const std::string& key, bool required = false,
                                     int64_t max = kMaxInt);
  std::optional<double> Double(const std::string& key, bool required = false);
  std::optional<bool> Bool(const std::string& key, bool required = false);
  std::optional<std::string> Enum(const std::string& key, const std::vector<std::string>& allowed,
                                  bool required = false);
  std::optional<std::vector<std::string>> StringList(const std::string& key, bool required = false);
  std::optional<std::vector<int64_t>> IntList(const std::string& key, bool required = false);
  // A map of string → scalar (env blocks); values rendered as their text.
  std::optional<std::vector<std::pair<std::string, std::string>>> StringMap(const std::string& key,
                                                                            bool required = false);

  // Reports a missing required key.
  void Missing(const std::string& key) const;
  void ErrorAt(const std::string& key, std::string message) const;

 private:
  const LoadContext& ctx_;
  const YNode* node_;
  std::string path_;
  bool valid_ = true;
};

}  // namespace servebench::config
