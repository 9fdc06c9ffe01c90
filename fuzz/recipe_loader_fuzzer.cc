// libFuzzer target: any bytes as a recipe file. Loading must never crash, hang or
// grow without bound; what loads is expanded and every point round-trips through
// its canonical JSON. Run by `make fuzz` (scripts/fuzz.sh).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "recipe/recipe.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace servebench::recipe;
  std::string text(reinterpret_cast<const char*>(data), size);
  Diagnostics diagnostics;
  RecipeSet set = LoadRecipeText(text, "fuzz.yaml", &diagnostics);
  (void)diagnostics.ToString();
  if (!diagnostics.ok()) return 0;
  auto plan = ExpandRecipes(set, MatrixFilters{});
  if (!plan.ok()) return 0;
  for (const auto& point : plan->points) {
    std::string json = PointToJson(point);
    auto back = PointFromJson(json);
    if (!back.ok() || PointToJson(*back) != json) std::abort();  // identity must round-trip
  }
  (void)GroupSessions(plan->points);
  return 0;
}
