// Pieces shared by the format loaders: format detection, YAML → JSON as PyYAML
// types it, and the InferenceX name mappings.
#include <fmt/format.h>

#include "recipe/formats.h"

namespace servebench::recipe {

FileFormat DetectFormat(const YNode& root) {
  if (root.IsNull()) return FileFormat::kEmpty;
  if (!root.IsMap()) return FileFormat::kUnknown;
  if (root.Find("servebench") != nullptr) return FileFormat::kNative;
  if (root.Find("labels") != nullptr) return FileFormat::kRunners;
  for (const char* k : {"gpu", "vllm", "vllm_bench", "lm_eval", "bfcl", "num_gpus"})
    if (root.Find(k) != nullptr) return FileFormat::kNightly;
  for (const auto& [k, v] : root.entries)
    if (v.IsMap() && (v.Find("scenarios") != nullptr || v.Find("model-prefix") != nullptr))
      return FileFormat::kInferenceX;
  return FileFormat::kUnknown;
}

boost::json::value YamlToJson(const YNode& node) {
  switch (node.kind) {
    case YNode::Kind::kNull:
      return nullptr;
    case YNode::Kind::kSequence: {
      boost::json::array a;
      for (const auto& item : node.items) a.push_back(YamlToJson(item));
      return a;
    }
    case YNode::Kind::kMap: {
      boost::json::object o;
      for (const auto& [k, v] : node.entries) o[k.scalar] = YamlToJson(v);
      return o;
    }
    case YNode::Kind::kScalar:
      break;
  }
  if (node.quoted) return boost::json::string(node.scalar);
  if (node.IsNull()) return nullptr;
  if (auto b = node.AsBool()) return *b;
  if (auto i = node.AsInt()) return *i;
  if (auto d = node.AsDouble()) return *d;
  return boost::json::string(node.scalar);
}

std::string EngineForFramework(const std::string& framework) {
  std::string f = framework;
  if (f.rfind("dynamo-", 0) == 0) f = f.substr(7);
  if (f.rfind("llmd-", 0) == 0) f = f.substr(5);
  if (auto dash = f.find("-disagg"); dash != std::string::npos) f = f.substr(0, dash);
  if (f == "trt") return "trtllm";
  return f;
}

std::string HardwareForRunner(const std::string& runner) {
  std::string r = runner;
  if (r.rfind("cluster:", 0) == 0) r = r.substr(8);
  if (auto dash = r.find_first_of("-_"); dash != std::string::npos) r = r.substr(0, dash);
  return r;
}

std::vector<int> ConcurrencySpec::Values() const {
  if (!is_range) return list;
  std::vector<int> out;
  // InferenceX: emit c; stop at end; c ← c × step, clamped to end. Bounded: step >= 2.
  int64_t c = start;
  int64_t step_size = step < 2 ? 2 : step;
  while (c <= end) {
    out.push_back(static_cast<int>(c));
    if (c == end) break;
    c *= step_size;
    if (c > end) c = end;
  }
  return out;
}

}  // namespace servebench::recipe
