#include "recipe/formats.h"
namespace servebench::recipe {
std::vector<Recipe> LoadNightly(const LoadContext& ctx, const YNode& root) {
  ctx.Error(root, "", "nightly workload recipes are not supported by this build yet");
  return {};
}
}  // namespace servebench::recipe
