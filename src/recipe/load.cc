// LoadRecipes: reads each file, detects its format and hands it to that format's
// loader; checks what spans files (duplicate recipe names, runners.yaml).
#include <fmt/format.h>

#include <filesystem>
#include <map>

#include "recipe/formats.h"
#include "recipe/recipe.h"

namespace servebench::recipe {
namespace {

struct Parsed {
  std::string path;
  YNode root;
  FileFormat format;
};

void ReportUnknown(const LoadContext& ctx, const YNode& root) {
  ctx.Error(root, "",
            "not a recipe: expected a native recipe (top-level `servebench: 1`), an InferenceX "
            "master config (config key → {image, model, ..., scenarios}), runners.yaml "
            "(`labels:`) or a nightly workload (`gpu:`, `vllm:`, `vllm_bench:`)");
}

void AddRecipes(const LoadContext& ctx, const Parsed& p, const RunnerConfig& runners,
                RecipeSet* set, std::map<std::string, Location>* names) {
  std::vector<Recipe> recipes;
  switch (p.format) {
    case FileFormat::kInferenceX:
      recipes = LoadInferenceX(ctx, p.root, runners);
      break;
    case FileFormat::kNightly:
      recipes = LoadNightly(ctx, p.root);
      break;
    case FileFormat::kNative:
      recipes = LoadNative(ctx, p.root);
      break;
    case FileFormat::kEmpty:
      ctx.diagnostics->Add({p.path, 0, 0}, "", "file is empty; a recipe file holds one YAML map");
      return;
    case FileFormat::kUnknown:
      ReportUnknown(ctx, p.root);
      return;
    case FileFormat::kRunners:
      return;
  }
  for (auto& r : recipes) {
    auto [it, inserted] = names->emplace(r.name, r.location);
    if (!inserted) {
      ctx.diagnostics->Add(r.location, r.name,
                           fmt::format("duplicate recipe name; already defined at {}:{}; names "
                                       "must be unique across all files",
                                       it->second.file, it->second.line));
      continue;
    }
    set->recipes.push_back(std::move(r));
  }
}

}  // namespace

RecipeSet LoadRecipes(const std::vector<std::string>& paths, Diagnostics* diagnostics,
                      const std::string& runners_file) {
  RecipeSet set;
  std::vector<Parsed> parsed;
  std::vector<std::string> all = paths;
  if (!runners_file.empty()) all.insert(all.begin(), runners_file);
  bool saw_runners = false;
  for (size_t i = 0; i < all.size(); ++i) {
    auto root = LoadYamlFile(all[i], diagnostics);
    if (!root) continue;
    FileFormat format = DetectFormat(*root);
    if (i == 0 && !runners_file.empty() && format != FileFormat::kRunners) {
      LoadContext ctx{all[i], diagnostics};
      ctx.Error(*root, "", "--runners file is not a runners.yaml (no top-level `labels:`)");
      continue;
    }
    parsed.push_back({all[i], std::move(*root), format});
  }
  // runners.yaml first, whatever the argument order; one only.
  for (const auto& p : parsed) {
    if (p.format != FileFormat::kRunners) continue;
    LoadContext ctx{p.path, diagnostics};
    if (saw_runners) {
      ctx.Error(p.root, "",
                fmt::format("a second runners.yaml; {} is already loaded", set.runners.file));
      continue;
    }
    saw_runners = true;
    set.runners = LoadRunners(ctx, p.root);
  }
  // InferenceX's default: configs/runners.yaml beside the master configs.
  if (!saw_runners) {
    for (const auto& p : parsed) {
      if (p.format != FileFormat::kInferenceX) continue;
      auto beside = std::filesystem::path(p.path).parent_path() / "runners.yaml";
      std::error_code ec;
      if (!std::filesystem::is_regular_file(beside, ec)) continue;
      auto root = LoadYamlFile(beside.string(), diagnostics);
      if (root && DetectFormat(*root) == FileFormat::kRunners) {
        LoadContext ctx{beside.string(), diagnostics};
        set.runners = LoadRunners(ctx, *root);
      }
      break;
    }
  }
  std::map<std::string, Location> names;
  for (const auto& p : parsed) {
    LoadContext ctx{p.path, diagnostics, &set.field_locations};
    AddRecipes(ctx, p, set.runners, &set, &names);
  }
  return set;
}

RecipeSet LoadRecipeText(std::string_view text, const std::string& name, Diagnostics* diagnostics) {
  RecipeSet set;
  auto root = ParseYamlText(text, name, diagnostics);
  if (!root) return set;
  Parsed p{name, std::move(*root), FileFormat::kUnknown};
  p.format = DetectFormat(p.root);
  LoadContext ctx{name, diagnostics};
  if (p.format == FileFormat::kRunners) {
    set.runners = LoadRunners(ctx, p.root);
    return set;
  }
  ctx.locations = &set.field_locations;
  std::map<std::string, Location> names;
  AddRecipes(ctx, p, set.runners, &set, &names);
  return set;
}

}  // namespace servebench::recipe
