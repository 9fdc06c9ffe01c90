#include "config/diagnostics.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace servebench::config {

std::string Diagnostic::ToString() const {
  std::string out;
  if (!location.file.empty()) {
    out += location.file;
    if (location.line > 0) {
      out += fmt::format(":{}", location.line);
      if (location.column > 0) out += fmt::format(":{}", location.column);
    }
    out += ": ";
  }
  if (warning) out += "warning: ";
  if (!field_path.empty()) out += field_path + ": ";
  out += message;
  return out;
}

void Diagnostics::Add(Location location, std::string field_path, std::string message) {
  ++errors_;
  if (items_.size() >= kMaxDiagnostics) {
    ++dropped_;
    return;
  }
  items_.push_back({std::move(location), std::move(field_path), std::move(message)});
}

void Diagnostics::AddWarning(Location location, std::string field_path, std::string message) {
  if (items_.size() >= kMaxDiagnostics) {
    ++dropped_;
    return;
  }
  items_.push_back({std::move(location), std::move(field_path), std::move(message), true});
}

void Diagnostics::Append(const Diagnostics& other) {
  for (const auto& d : other.items_) {
    if (d.warning)
      AddWarning(d.location, d.field_path, d.message);
    else
      Add(d.location, d.field_path, d.message);
  }
  dropped_ += other.dropped_;
  errors_ += other.errors_ - std::count_if(other.items_.begin(), other.items_.end(),
                                           [](const Diagnostic& d) { return !d.warning; });
}

std::string Diagnostics::ToString() const {
  // Files in the order they were loaded; within a file, by position.
  std::map<std::string, size_t> file_order;
  for (const auto& d : items_) file_order.emplace(d.location.file, file_order.size());
  std::vector<const Diagnostic*> sorted;
  sorted.reserve(items_.size());
  for (const auto& d : items_) sorted.push_back(&d);
  std::stable_sort(sorted.begin(), sorted.end(), [&](const Diagnostic* a, const Diagnostic* b) {
    size_t fa = file_order[a->location.file], fb = file_order[b->location.file];
    if (fa != fb) return fa < fb;
    if (a->location.line != b->location.line) return a->location.line < b->location.line;
    return a->location.column < b->location.column;
  });
  std::string out;
  for (const auto* d : sorted) out += d->ToString() + "\n";
  if (dropped_ > 0) out += fmt::format("... and {} more problems not shown\n", dropped_);
  return out;
}

size_t EditDistance(std::string_view a, std::string_view b, size_t cap) {
  // Optimal string alignment: insert, delete, substitute and swap two neighbours
  // each cost 1 ("modle" is one edit from "model"). Names are short; inputs past
  // 256 characters are not words anyone misspelt.
  if (a.size() > b.size() + cap || b.size() > a.size() + cap) return cap + 1;
  if (a.size() > 256 || b.size() > 256) return cap + 1;
  const size_t w = b.size() + 1;
  std::vector<size_t> d((a.size() + 1) * w);
  for (size_t i = 0; i <= a.size(); ++i) d[i * w] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      size_t v =
          std::min({d[(i - 1) * w + j] + 1, d[i * w + j - 1] + 1, d[(i - 1) * w + j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        v = std::min(v, d[(i - 2) * w + j - 2] + 1);
      d[i * w + j] = v;
    }
  }
  return std::min(d[a.size() * w + b.size()], cap + 1);
}

std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates) {
  // Allow roughly one edit per three characters (at least 1, at most 4): close
  // enough to catch typos and `_` vs `-`, far enough to not suggest nonsense.
  size_t limit = std::clamp<size_t>(word.size() / 3, 1, 4);
  const std::string* best = nullptr;
  size_t best_distance = limit + 1;
  for (const auto& c : candidates) {
    size_t d = EditDistance(word, c, limit);
    if (d < best_distance) {
      best_distance = d;
      best = &c;
    }
  }
  if (best == nullptr) return "";
  return fmt::format("; did you mean '{}'?", *best);
}

std::string JoinAllowed(const std::vector<std::string>& allowed) {
  std::string out;
  for (size_t i = 0; i < allowed.size(); ++i) {
    if (i > 0) out += (i + 1 == allowed.size()) ? " or " : ", ";
    out += allowed[i];
  }
  return out;
}

}  // namespace servebench::config
