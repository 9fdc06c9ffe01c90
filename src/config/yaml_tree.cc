#include "config/yaml_tree.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

namespace servebench::config {
namespace {

bool OneOf(std::string_view s, std::initializer_list<std::string_view> options) {
  for (auto o : options)
    if (s == o) return true;
  return false;
}

// Removes the YAML 1.1 digit separators `_` (PyYAML accepts `2_063_837`).
std::string StripUnderscores(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != '_') out += c;
  return out;
}

bool AllOf(std::string_view s, bool (*pred)(char)) {
  if (s.empty()) return false;
  for (char c : s)
    if (!pred(c)) return false;
  return true;
}
bool IsDec(char c) { return c >= '0' && c <= '9'; }
bool IsDecU(char c) { return IsDec(c) || c == '_'; }
bool IsHexU(char c) { return IsDecU(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool IsOctU(char c) { return (c >= '0' && c <= '7') || c == '_'; }

// Offset of the first byte that is not part of well-formed UTF-8, if any.
// Strings end up in JSON (points, rows), which must be valid UTF-8.
std::optional<size_t> FirstInvalidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) return i;
    uint32_t cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
    for (size_t k = 1; k < n; ++k) {
      unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if ((cc >> 6) != 0x2) return i;
      cp = (cp << 6) | (cc & 0x3F);
    }
    // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
    if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
        (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
      return i;
    i += n;
  }
  return std::nullopt;
}

// Guards yaml-cpp's recursive parser before it runs: flow brackets and block
// sequence indicators each cost a recursion level, so both are bounded here.
std::optional<std::string> CheckNesting(std::string_view text, int max_depth) {
  int flow = 0, line = 1;
  bool in_single = false, in_double = false, in_comment = false, line_start = true;
  int dashes = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      in_comment = false;
      line_start = true;
      dashes = 0;
      if (flow == 0) in_single = in_double = false;
      continue;
    }
    if (in_comment) continue;
    if (in_double) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_double = false;
      continue;
    }
    if (in_single) {
      if (c == '\'') in_single = false;
      continue;
    }
    if (line_start) {
      if (c == ' ' || c == '\t') continue;
      if ((c == '-' || c == '?') && (i + 1 == text.size() || text[i + 1] == ' ')) {
        if (++dashes > max_depth)
          return fmt::format("line {}: more than {} nested block indicators on one line", line,
                             max_depth);
        continue;
      }
      line_start = false;
    }
    if (c == '#' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '\t')) {
      in_comment = true;
    } else if (c == '"') {
      in_double = true;
    } else if (c == '\'' && (i == 0 || !std::isalnum(static_cast<unsigned char>(text[i - 1])))) {
      in_single = true;
    } else if (c == '[' || c == '{') {
      if (++flow > max_depth)
        return fmt::format("line {}: flow collections nested deeper than {}", line, max_depth);
    } else if ((c == ']' || c == '}') && flow > 0) {
      --flow;
    }
  }
  return std::nullopt;
}

// Counts documents without building nodes. yaml-cpp 0.7's LoadAll never returns
// on a stray top-level ',' (each call "finds" another empty document without
// consuming it; found by fuzz/recipe_loader_fuzzer), so documents are counted
// here with a cap and the tree is then built with Load, which reads one.
class DocumentCounter : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

int CountDocuments(std::string_view text, int cap) {
  std::stringstream stream{std::string(text)};
  YAML::Parser parser(stream);
  DocumentCounter counter;
  int n = 0;
  while (n < cap && parser.HandleNextDocument(counter)) ++n;
  return n;
}

class Converter {
 public:
  Converter(const YamlLimits& limits) : limits_(limits) {}

  // Returns false (with `error_` set) when a limit is crossed.
  bool Convert(const YAML::Node& in, YNode* out, int depth) {
    if (++nodes_ > limits_.max_nodes) {
      error_ = fmt::format("more than {} nodes after expanding aliases (an alias bomb?)",
                           limits_.max_nodes);
      return false;
    }
    if (depth > limits_.max_depth) {
      error_ = fmt::format("nested deeper than {} levels", limits_.max_depth);
      return false;
    }
    const YAML::Mark mark = in.Mark();
    out->line = mark.line >= 0 ? mark.line + 1 : 0;
    out->column = mark.column >= 0 ? mark.column + 1 : 0;
    switch (in.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null:
        out->kind = YNode::Kind::kNull;
        return true;
      case YAML::NodeType::Scalar:
        out->kind = YNode::Kind::kScalar;
        out->scalar = in.Scalar();
        out->quoted = in.Tag() == "!";
        return true;
      case YAML::NodeType::Sequence:
        out->kind = YNode::Kind::kSequence;
        for (const auto& item : in) {
          out->items.emplace_back();
          if (!Convert(item, &out->items.back(), depth + 1)) return false;
        }
        return true;
      case YAML::NodeType::Map:
        out->kind = YNode::Kind::kMap;
        for (const auto& kv : in) {
          out->entries.emplace_back();
          if (!Convert(kv.first, &out->entries.back().first, depth + 1)) return false;
          if (!Convert(kv.second, &out->entries.back().second, depth + 1)) return false;
        }
        return true;
    }
    return true;
  }

  const std::string& error() const { return error_; }

 private:
  const YamlLimits& limits_;
  size_t nodes_ = 0;
  std::string error_;
};

}  // namespace

bool YNode::IsNull() const {
  if (kind == Kind::kNull) return true;
  return kind == Kind::kScalar && !quoted && OneOf(scalar, {"", "~", "null", "Null", "NULL"});
}

const YNode* YNode::Find(std::string_view key) const {
  const YNode* found = nullptr;
  if (kind != Kind::kMap) return nullptr;
  for (const auto& [k, v] : entries)
    if (k.kind == Kind::kScalar && k.scalar == key) found = &v;
  return found;
}

std::optional<int64_t> YNode::AsInt() const {
  if (kind != Kind::kScalar || quoted || scalar.empty()) return std::nullopt;
  std::string_view s = scalar;
  bool negative = false;
  if (s[0] == '-' || s[0] == '+') {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  int base = 10;
  std::string digits;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && AllOf(s.substr(2), IsHexU)) {
    base = 16;
    digits = StripUnderscores(s.substr(2));
  } else if (s.size() > 2 && s[0] == '0' && s[1] == 'b' &&
             AllOf(s.substr(2), [](char c) { return c == '0' || c == '1' || c == '_'; })) {
    base = 2;
    digits = StripUnderscores(s.substr(2));
  } else if (s.size() > 1 && s[0] == '0' && AllOf(s.substr(1), IsOctU)) {
    base = 8;
    digits = StripUnderscores(s.substr(1));
  } else if (s == "0" || (!s.empty() && s[0] >= '1' && s[0] <= '9' && AllOf(s, IsDecU))) {
    digits = StripUnderscores(s);
  } else {
    return std::nullopt;
  }
  if (digits.empty()) return std::nullopt;
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
  if (ec != std::errc() || ptr != digits.data() + digits.size()) return std::nullopt;
  return negative ? -value : value;
}

std::optional<double> YNode::AsDouble() const {
  if (auto i = AsInt()) return static_cast<double>(*i);
  if (kind != Kind::kScalar || quoted || scalar.empty()) return std::nullopt;
  std::string_view s = scalar;
  std::string_view body = s;
  if (body[0] == '-' || body[0] == '+') body.remove_prefix(1);
  if (OneOf(body, {".inf", ".Inf", ".INF"})) return s[0] == '-' ? -INFINITY : INFINITY;
  if (OneOf(s, {".nan", ".NaN", ".NAN"})) return NAN;
  // PyYAML's float needs a dot: [0-9][0-9_]*\.[0-9_]*([eE][-+][0-9]+)? or \.[0-9_]+...
  size_t dot = body.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  std::string_view mantissa = body, exponent;
  size_t e = body.find_first_of("eE");
  if (e != std::string_view::npos) {
    mantissa = body.substr(0, e);
    exponent = body.substr(e + 1);
    if (exponent.size() < 2 || (exponent[0] != '-' && exponent[0] != '+') ||
        !AllOf(exponent.substr(1), IsDec))
      return std::nullopt;
  }
  std::string_view int_part = mantissa.substr(0, dot), frac = mantissa.substr(dot + 1);
  if (int_part.empty() && frac.empty()) return std::nullopt;
  if (!int_part.empty() && (!IsDec(int_part[0]) || !AllOf(int_part, IsDecU))) return std::nullopt;
  if (!frac.empty() && !AllOf(frac, IsDecU)) return std::nullopt;
  std::string clean = StripUnderscores(s);
  double value = 0;
  auto [ptr, ec] = std::from_chars(clean.data(), clean.data() + clean.size(), value);
  if (clean[0] == '+') {
    auto r = std::from_chars(clean.data() + 1, clean.data() + clean.size(), value);
    ptr = r.ptr;
    ec = r.ec;
  }
  if (ec != std::errc() || ptr != clean.data() + clean.size()) return std::nullopt;
  return value;
}

std::optional<bool> YNode::AsBool() const {
  if (kind != Kind::kScalar || quoted) return std::nullopt;
  if (OneOf(scalar, {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"})) return true;
  if (OneOf(scalar, {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"}))
    return false;
  return std::nullopt;
}

std::optional<std::string> YNode::AsString() const {
  if (kind != Kind::kScalar) return std::nullopt;
  if (quoted) return scalar;
  if (IsNull() || AsBool() || AsDouble()) return std::nullopt;
  return scalar;
}

std::string YNode::TypeName() const {
  switch (kind) {
    case Kind::kNull:
      return "null";
    case Kind::kMap:
      return "map";
    case Kind::kSequence:
      return "list";
    case Kind::kScalar:
      break;
  }
  if (quoted) return "string";
  if (IsNull()) return "null";
  if (AsBool()) return "bool";
  if (AsInt()) return "int";
  if (AsDouble()) return "float";
  return "string";
}

std::optional<YNode> ParseYamlText(std::string_view text, const std::string& file,
                                   Diagnostics* diagnostics, const YamlLimits& limits) {
  Location whole{file, 0, 0};
  if (text.size() > limits.max_file_bytes) {
    diagnostics->Add(whole, "",
                     fmt::format("file is {} bytes; a YAML file may be at most {} bytes",
                                 text.size(), limits.max_file_bytes));
    return std::nullopt;
  }
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == 0 || (c < 0x20 && c != '\n' && c != '\r' && c != '\t')) {
      int line = 1;
      for (size_t j = 0; j < i; ++j) line += text[j] == '\n';
      diagnostics->Add({file, line, 0}, "",
                       fmt::format("binary data (byte 0x{:02x} at offset {}); servebench reads "
                                   "YAML text files",
                                   c, i));
      return std::nullopt;
    }
  }
  if (auto bad = FirstInvalidUtf8(text)) {
    int line = 1;
    for (size_t j = 0; j < *bad; ++j) line += text[j] == '\n';
    diagnostics->Add(
        {file, line, 0}, "",
        fmt::format("not valid UTF-8 (byte 0x{:02x} at offset {}); YAML files are UTF-8 "
                    "text",
                    static_cast<unsigned char>(text[*bad]), *bad));
    return std::nullopt;
  }
  if (auto nesting = CheckNesting(text, limits.max_depth)) {
    diagnostics->Add(whole, "", "YAML nested too deeply (" + *nesting + ")");
    return std::nullopt;
  }
  YAML::Node root;
  try {
    int docs = CountDocuments(text, 3);
    if (docs > 1) {
      diagnostics->Add(whole, "",
                       docs == 2 ? std::string("holds 2 YAML documents; a file holds one")
                                 : std::string("holds more than 2 YAML documents (or a stray "
                                               "top-level ','); a file holds one"));
      return std::nullopt;
    }
    if (docs == 1) root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    diagnostics->Add(
        {file, e.mark.line >= 0 ? e.mark.line + 1 : 0, e.mark.column >= 0 ? e.mark.column + 1 : 0},
        "", "invalid YAML: " + e.msg);
    return std::nullopt;
  } catch (const std::exception& e) {
    diagnostics->Add(whole, "", std::string("invalid YAML: ") + e.what());
    return std::nullopt;
  }
  YNode out;
  Converter converter(limits);
  try {
    if (!converter.Convert(root, &out, 0)) {
      diagnostics->Add(whole, "", converter.error());
      return std::nullopt;
    }
  } catch (const std::exception& e) {
    diagnostics->Add(whole, "", std::string("invalid YAML: ") + e.what());
    return std::nullopt;
  }
  return out;
}

std::optional<YNode> LoadYamlFile(const std::string& path, Diagnostics* diagnostics,
                                  const YamlLimits& limits) {
  Location whole{path, 0, 0};
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    diagnostics->Add(whole, "", fmt::format("cannot read: {}", std::strerror(errno)));
    return std::nullopt;
  }
  if (S_ISDIR(st.st_mode)) {
    diagnostics->Add(whole, "", "is a directory; give YAML files");
    return std::nullopt;
  }
  if (S_ISREG(st.st_mode) && static_cast<size_t>(st.st_size) > limits.max_file_bytes) {
    diagnostics->Add(whole, "",
                     fmt::format("file is {} bytes; a YAML file may be at most {} bytes",
                                 st.st_size, limits.max_file_bytes));
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    diagnostics->Add(whole, "", "cannot open for reading");
    return std::nullopt;
  }
  // Read at most one byte past the limit, so pipes and /dev/zero stay bounded too;
  // a regular file needs only its size (+1 to notice growth).
  size_t want = limits.max_file_bytes + 1;
  if (S_ISREG(st.st_mode)) want = std::min(want, static_cast<size_t>(st.st_size) + 1);
  std::string text(want, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  return ParseYamlText(text, path, diagnostics, limits);
}

}  // namespace servebench::config
