#include "config/golden_al.h"

#include <fmt/format.h>

#include <map>

#include "config/config_file.h"
#include "config/diagnostics.h"
#include "config/field_reader.h"

namespace servebench::config {
namespace {

// Every embedded table, parsed once; a malformed one keeps its error.
const std::map<std::string, StatusOr<GoldenTable>>& Tables() {
  static const auto* tables = [] {
    auto* out = new std::map<std::string, StatusOr<GoldenTable>>();
    for (const auto& t : EmbeddedGoldenTables()) {
      out->emplace(t.name,
                   ParseGoldenTable(t.yaml, "data/golden_al/" + std::string(t.name) + ".yaml"));
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

// `num_speculative_tokens: AL` pairs of one thinking mode.
void ReadColumn(const LoadContext& ctx, const YNode& points, const std::string& path,
                std::map<int, double>& column) {
  if (!points.IsMap()) {
    return ctx.Error(points, path, "expected a map of num_speculative_tokens: acceptance length");
  }
  for (const auto& [tokens, al] : points.entries) {
    const std::string where = JoinPath(path, tokens.scalar);
    auto n = tokens.AsInt();
    auto v = al.AsDouble();
    if (!n || *n < 1) {
      ctx.Error(tokens, where, "is not a number of speculative tokens (an integer >= 1)");
    } else if (!v || *v < 1 || *v > static_cast<double>(*n) + 1) {
      ctx.Error(al, where,
                fmt::format("is '{}'; with {} speculative tokens an acceptance length is a number "
                            "in [1, {}]",
                            al.scalar, *n, *n + 1));
    } else if (!column.emplace(static_cast<int>(*n), *v).second) {
      ctx.Error(tokens, where, "duplicate num_speculative_tokens");
    }
  }
}

}  // namespace

StatusOr<GoldenTable> ParseGoldenTable(std::string_view yaml, const std::string& file) {
  GoldenTable table;
  SB_RETURN_IF_ERROR(ReadConfigText(yaml, file, [&](const LoadContext& ctx, const YNode& root) {
    if (!root.IsMap() || root.entries.empty()) {
      return ctx.Error(root, "", "expected a map of model: {thinking_on, thinking_off}");
    }
    for (const auto& [model, modes] : root.entries) {
      FieldReader r(ctx, modes, model.scalar, {"thinking_on", "thinking_off"}, "thinking mode");
      for (const char* mode : {"thinking_on", "thinking_off"}) {
        if (const YNode* points = r.Get(mode)) {
          ReadColumn(ctx, *points, r.PathOf(mode), table[model.scalar][mode]);
        }
      }
    }
  }));
  return table;
}

std::vector<std::string> GoldenTableNames() { return Keys(Tables()); }

StatusOr<double> LookupGoldenAl(const std::string& table, const std::string& model, bool thinking,
                                int num_speculative_tokens) {
  const auto& tables = Tables();
  auto found = tables.find(table);
  if (found == tables.end())
    return Status::NotFound(fmt::format("golden AL table '{}' does not exist; tables: {}{}", table,
                                        JoinAllowed(Keys(tables)),
                                        DidYouMean(table, Keys(tables))));
  if (!found->second.ok()) return found->second.status();
  const GoldenTable& t = *found->second;
  auto m = t.find(model);
  if (m == t.end())
    return Status::NotFound(fmt::format("golden AL table '{}' has no model '{}'; models: {}", table,
                                        model, JoinAllowed(Keys(t))));
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

}  // namespace servebench::config
