// Diagnostics: every problem found while loading a recipe or a data file, each with
// where it is (file:line:column), which field (a dotted path such as
// `minimaxm3-fp8.scenarios.fixed-seq-len[0].search-space[2].conc-end`), what is
// wrong and what is allowed. Loaders never stop at the first problem: they add
// one Diagnostic per problem and carry on, so `servebench validate` (and every
// catalogue load) reports all of them in one pass. Not thread-safe: one Diagnostics per load.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace servebench::config {

// A position in a source file; line and column are 1-based, 0 when unknown.
struct Location {
  std::string file;
  int line = 0;
  int column = 0;
};

// Field path ("recipe.sim.hardware", "recipe.extra_args[1]") → where its value is.
using FieldLocations = std::map<std::string, Location>;

struct Diagnostic {
  Location location;
  std::string field_path;  // dotted path; empty for whole-file problems
  std::string message;     // "what is wrong; what is allowed"
  // Warnings are shown but do not make the input invalid (e.g. an InferenceX
  // runner label missing from runners.yaml, which InferenceX itself accepts).
  bool warning = false;

  // "file:line:column: field.path: message" (parts that are unknown are left out).
  std::string ToString() const;
};

class Diagnostics {
 public:
  void Add(Location location, std::string field_path, std::string message);
  void AddWarning(Location location, std::string field_path, std::string message);
  bool empty() const { return items_.empty(); }
  // True when nothing but warnings was reported.
  bool ok() const { return errors_ == 0; }
  size_t error_count() const { return errors_; }
  size_t size() const { return items_.size(); }
  const std::vector<Diagnostic>& items() const { return items_; }
  // All diagnostics, one per line, in file order then line order.
  std::string ToString() const;
  void Append(const Diagnostics& other);

 private:
  // A pathological file could produce millions of problems; past this many the
  // rest are summarised in one line so memory stays bounded.
  static constexpr size_t kMaxDiagnostics = 1000;
  std::vector<Diagnostic> items_;
  size_t dropped_ = 0;
  size_t errors_ = 0;
};

// Levenshtein distance, capped: returns `cap + 1` as soon as the distance exceeds cap.
size_t EditDistance(std::string_view a, std::string_view b, size_t cap = 8);

// `; did you mean 'x'?` for the closest candidate within a distance that scales
// with the word length, or "" when nothing is close.
std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates);

// "a, b or c" for messages listing what is allowed.
std::string JoinAllowed(const std::vector<std::string>& allowed);

}  // namespace servebench::config
