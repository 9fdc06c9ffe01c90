#include "recipe/formats.h"
namespace servebench::recipe {
std::vector<Recipe> LoadNative(const LoadContext& ctx, const YNode& root) {
  ctx.Error(root, "", "native recipes are not supported by this build yet");
  return {};
}
}  // namespace servebench::recipe
