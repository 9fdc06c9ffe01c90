#include "config/field_reader.h"

#include <fmt/format.h>

#include <cmath>
#include <set>

namespace servebench::config {

void LoadContext::Error(const YNode& at, const std::string& path, std::string message) const {
  diagnostics->Add(At(at), path, std::move(message));
}

std::string JoinPath(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string IndexPath(const std::string& parent, size_t index) {
  return fmt::format("{}[{}]", parent, index);
}

namespace {
// Shortens a scalar for messages so binary-ish or huge values stay readable.
std::string Shown(const YNode& node) {
  if (!node.IsScalar()) return node.TypeName();
  std::string s = node.scalar.size() > 60 ? node.scalar.substr(0, 57) + "..." : node.scalar;
  return fmt::format("'{}' ({})", s, node.TypeName());
}
}  // namespace

FieldReader::FieldReader(const LoadContext& ctx, const YNode& node, std::string path,
                         std::vector<std::string> allowed, std::string what)
    : ctx_(ctx), node_(&node), path_(std::move(path)) {
  if (!node.IsMap()) {
    valid_ = false;
    ctx_.Error(
        node, path_,
        fmt::format("is {}; expected a map with keys {}", Shown(node), JoinAllowed(allowed)));
    return;
  }
  std::set<std::string> seen;
  for (const auto& [key, value] : node.entries) {
    if (!key.IsScalar()) {
      ctx_.Error(key, path_, fmt::format("a key is a {}; keys are plain names", key.TypeName()));
      continue;
    }
    if (!seen.insert(key.scalar).second) {
      ctx_.Error(key, JoinPath(path_, key.scalar),
                 "duplicate key; each key may appear once in a map");
      continue;
    }
    bool known = false;
    for (const auto& a : allowed) known = known || a == key.scalar;
    if (known && ctx_.locations != nullptr) {
      std::string at = JoinPath(path_, key.scalar);
      (*ctx_.locations)[at] = ctx_.At(value);
      for (size_t i = 0; value.IsSequence() && i < value.items.size(); ++i) {
        (*ctx_.locations)[IndexPath(at, i)] = ctx_.At(value.items[i]);
      }
    }
    if (!known) {
      ctx_.Error(key, JoinPath(path_, key.scalar),
                 fmt::format("unknown {}; allowed: {}{}", what, JoinAllowed(allowed),
                             DidYouMean(key.scalar, allowed)));
    }
  }
}

const YNode* FieldReader::GetRaw(const std::string& key) const {
  return valid_ ? node_->Find(key) : nullptr;
}

const YNode* FieldReader::Get(const std::string& key) const {
  const YNode* n = GetRaw(key);
  return (n == nullptr || n->IsNull()) ? nullptr : n;
}

bool FieldReader::Has(const std::string& key) const { return Get(key) != nullptr; }

void FieldReader::Missing(const std::string& key) const {
  ctx_.Error(*node_, PathOf(key), "is required but missing");
}

void FieldReader::ErrorAt(const std::string& key, std::string message) const {
  const YNode* n = GetRaw(key);
  ctx_.Error(n ? *n : *node_, PathOf(key), std::move(message));
}

std::optional<std::string> FieldReader::String(const std::string& key, bool required,
                                               bool non_empty) {
  const YNode* n = Get(key);
  if (n == nullptr) {
    if (required && valid_) Missing(key);
    return std::nullopt;
  }
  auto s = n->AsString();
  if (!s) {
    ctx_.Error(*n, PathOf(key), fmt::format("is {}; expected a string", Shown(*n)));
    return std::nullopt;
  }
  if (non_empty && s->empty()) {
    ctx_.Error(*n, PathOf(key), "is empty; expected a non-empty string");
    return std::nullopt;
  }
  return s;
}

std::optional<int64_t> FieldReader::Int(const std::string& key, bool required) {
  const YNode* n = Get(key);
  if (n == nullptr) {
    if (required && valid_) Missing(key);
    return std::nullopt;
  }
  auto v = n->AsInt();
  if (!v) {
    ctx_.Error(*n, PathOf(key), fmt::format("is {}; expected an integer", Shown(*n)));
    return std::nullopt;
  }
  if (*v > INT32_MAX || *v < INT32_MIN) {
    ctx_.Error(*n, PathOf(key), fmt::format("is {}; expected an integer within ±2147483647", *v));
    return std::nullopt;
  }
  return v;
}

std::optional<int64_t> FieldReader::PositiveInt(const std::string& key, bool required,
                                                int64_t max) {
  auto v = Int(key, required);
  if (v && (*v <= 0 || *v > max)) {
    ErrorAt(key, *v <= 0 ? fmt::format("is {}; must be an integer > 0", *v)
                         : fmt::format("is {}; must be 1 .. {} (docs/limits.md)", *v, max));
    return std::nullopt;
  }
  return v;
}

std::optional<double> FieldReader::Double(const std::string& key, bool required) {
  const YNode* n = Get(key);
  if (n == nullptr) {
    if (required && valid_) Missing(key);
    return std::nullopt;
  }
  auto v = n->AsDouble();
  if (!v || !std::isfinite(*v)) {
    ctx_.Error(*n, PathOf(key), fmt::format("is {}; expected a finite number", Shown(*n)));
    return std::nullopt;
  }
  return v;
}

std::optional<bool> FieldReader::Bool(const std::string& key, bool required) {
  const YNode* n = Get(key);
  if (n == nullptr) {
    if (required && valid_) Missing(key);
    return std::nullopt;
  }
  auto v = n->AsBool();
  if (!v) {
    ctx_.Error(*n, PathOf(key), fmt::format("is {}; expected true or false", Shown(*n)));
    return std::nullopt;
  }
  return v;
}

std::optional<std::string> FieldReader::Enum(const std::string& key,
                                             const std::vector<std::string>& allowed,
                                             bool required) {
  auto s = String(key, required);
  if (!s) return std::nullopt;
  for (const auto& a : allowed)
    if (a == *s) return s;
  ErrorAt(key,
          fmt::format("is '{}'; allowed: {}{}", *s, JoinAllowed(allowed), DidYouMean(*s, allowed)));
  return std::nullopt;
}

std::optional<std::vector<std::string>> FieldReader::StringList(const std::string& key,
                                                                bool required) {
  const YNode* n = Get(key);
  if (n == nullptr) {
    if (required && valid_) Missing(key);
    return std::nullopt;
  }
  if (!n->IsSequence()) {
    ctx_.Error(*n, PathOf(key), fmt::format("is {}; expected a list of strings", Shown(*n)));
    return std::nullopt;
  }
  std::vector<std::string> out;
  bool ok = true;
  for (size_t i = 0; i < n->items.size(); ++i) {
    auto s = n->items[i].AsString();
    if (!s) {
      ctx_.Error(n->items[i], IndexPath(PathOf(key), i),
                 fmt::format("is {}; expected a string", Shown(n->items[i])));
      ok = false;
      continue;
    }
    out.push_back(*s);
  }
  if (!ok) return std::nullopt;
  return out;
}

std::optional<std::vector<int64_t>> FieldReader::IntList(const std::string& key, bool required) {
  const YNode* n = Get(key);
  if (n == nullptr) {
    if (required && valid_) Missing(key);
    return std::nullopt;
  }
  if (!n->IsSequence()) {
    ctx_.Error(*n, PathOf(key), fmt::format("is {}; expected a list of integers", Shown(*n)));
    return std::nullopt;
  }
  std::vector<int64_t> out;
  bool ok = true;
  for (size_t i = 0; i < n->items.size(); ++i) {
    auto v = n->items[i].AsInt();
    if (!v || *v > INT32_MAX || *v < INT32_MIN) {
      ctx_.Error(n->items[i], IndexPath(PathOf(key), i),
                 fmt::format("is {}; expected an integer", Shown(n->items[i])));
      ok = false;
      continue;
    }
    out.push_back(*v);
  }
  if (!ok) return std::nullopt;
  return out;
}

std::optional<std::vector<std::pair<std::string, std::string>>> FieldReader::StringMap(
    const std::string& key, bool required) {
  const YNode* n = Get(key);
  if (n == nullptr) {
    if (required && valid_) Missing(key);
    return std::nullopt;
  }
  if (!n->IsMap()) {
    ctx_.Error(*n, PathOf(key), fmt::format("is {}; expected a map of NAME: value", Shown(*n)));
    return std::nullopt;
  }
  std::vector<std::pair<std::string, std::string>> out;
  std::set<std::string> seen;
  for (const auto& [k, v] : n->entries) {
    if (!k.IsScalar() || !v.IsScalar()) {
      ctx_.Error(v, JoinPath(PathOf(key), k.scalar),
                 "expected NAME: value with a scalar name and value");
      continue;
    }
    if (!seen.insert(k.scalar).second) {
      ctx_.Error(k, JoinPath(PathOf(key), k.scalar), "duplicate key");
      continue;
    }
    out.emplace_back(k.scalar, v.scalar);
  }
  return out;
}

}  // namespace servebench::config
