#include "config/config_file.h"

#include <fmt/format.h>
#include <sys/stat.h>

namespace servebench::config {
namespace {

Status Run(std::optional<YNode> root, const std::string& file, Diagnostics& diagnostics,
           const ConfigReader& read) {
  if (root) read(LoadContext{file, &diagnostics}, *root);
  if (diagnostics.ok()) return Status::Ok();
  std::string list = diagnostics.ToString();
  if (!list.empty() && list.back() == '\n') list.pop_back();
  return Status::InvalidArgument(fmt::format("{} problem{} in {}:\n{}", diagnostics.error_count(),
                                             diagnostics.error_count() == 1 ? "" : "s", file,
                                             list));
}

}  // namespace

Status ReadConfigText(std::string_view text, const std::string& file, const ConfigReader& read) {
  Diagnostics diagnostics;
  std::optional<YNode> root = ParseYamlText(text, file, &diagnostics);
  return Run(std::move(root), file, diagnostics, read);
}

Status ReadConfigFile(const std::string& path, const ConfigReader& read) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    return Status::NotFound(fmt::format("{}: cannot read (no such file)", path));
  }
  Diagnostics diagnostics;
  std::optional<YNode> root = LoadYamlFile(path, &diagnostics);
  return Run(std::move(root), path, diagnostics, read);
}

}  // namespace servebench::config
