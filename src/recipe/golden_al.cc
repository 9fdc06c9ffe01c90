#include "recipe/golden_al.h"

#include <fmt/format.h>

#include <map>
#include <mutex>

#include "recipe/diagnostics.h"
#include "recipe/yaml_tree.h"

namespace servebench::recipe {
namespace {

// table → model → thinking mode ("thinking_on"/"thinking_off") → tokens → AL
using Table = std::map<std::string, std::map<std::string, std::map<int, double>>>;

const std::map<std::string, Table>& Tables() {
  static const std::map<std::string, Table>* tables = [] {
    auto* out = new std::map<std::string, Table>();
    for (const auto& t : EmbeddedGoldenTables()) {
      Diagnostics d;
      auto root = ParseYamlText(t.yaml, t.name, &d);
      Table table;
      if (root && root->IsMap()) {
        for (const auto& [model, modes] : root->entries)
          for (const auto& [mode, points] : modes.entries)
            for (const auto& [tokens, al] : points.entries) {
              auto n = tokens.AsInt();
              auto v = al.AsDouble();
              if (n && v) table[model.scalar][mode.scalar][static_cast<int>(*n)] = *v;
            }
      }
      (*out)[t.name] = std::move(table);
    }
    return out;
  }();
  return *tables;
}

template <typename M>
std::vector<std::string> Keys(const M& m) {
  std::vector<std::string> out;
  for (const auto& [k, v] : m) out.push_back(fmt::format("{}", k));
  return out;
}

}  // namespace

std::vector<std::string> GoldenTableNames() { return Keys(Tables()); }

StatusOr<double> LookupGoldenAl(const std::string& table, const std::string& model, bool thinking,
                                int num_speculative_tokens) {
  const auto& tables = Tables();
  auto t = tables.find(table);
  if (t == tables.end())
    return Status::NotFound(fmt::format("golden AL table '{}' does not exist; tables: {}{}", table,
                                        JoinAllowed(Keys(tables)),
                                        DidYouMean(table, Keys(tables))));
  auto m = t->second.find(model);
  if (m == t->second.end())
    return Status::NotFound(fmt::format("golden AL table '{}' has no model '{}'; models: {}", table,
                                        model, JoinAllowed(Keys(t->second))));
  std::string mode = thinking ? "thinking_on" : "thinking_off";
  auto md = m->second.find(mode);
  if (md == m->second.end())
    return Status::NotFound(fmt::format("golden AL table '{}' model '{}' has no {} column; has: {}",
                                        table, model, mode, JoinAllowed(Keys(m->second))));
  auto v = md->second.find(num_speculative_tokens);
  if (v == md->second.end())
    return Status::NotFound(fmt::format(
        "golden AL table '{}' model '{}' {} has no entry for num_speculative_tokens {}; has: {}",
        table, model, mode, num_speculative_tokens, JoinAllowed(Keys(md->second))));
  return v->second;
}

}  // namespace servebench::recipe
