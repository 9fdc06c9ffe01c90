// Snapshot words resolved at launch (hub_snapshots.h).
#include "engine/hub_snapshots.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

#include "recipe/hub_snapshot.h"

namespace servebench::engine {
namespace {

// `folder` as the container sees it: under the first mount (host:container[:options])
// whose host side holds it; "" when none does.
std::string InContainer(const std::string& folder, const ContainerProfile& container) {
  for (const auto& mount : container.mounts) {
    size_t colon = mount.find(':');
    if (colon == std::string::npos) continue;
    std::string host = mount.substr(0, colon);
    std::string inside = mount.substr(colon + 1);
    inside = inside.substr(0, inside.find(':'));
    while (host.size() > 1 && host.back() == '/') host.pop_back();
    if (folder == host) return inside;
    if (folder.size() > host.size() && folder.compare(0, host.size(), host) == 0 &&
        folder[host.size()] == '/')
      return inside + folder.substr(host.size());
  }
  return "";
}

// Every text of `command` (argv and env values), and of its auxiliary servers and
// router, with each snapshot word replaced by `folder(repo)`.
void ReplaceIn(ServerCommand* command,
               const std::function<std::string(const std::string&)>& folder) {
  for (auto& word : command->argv) word = recipe::ReplaceHubSnapshots(word, folder);
  for (auto& [name, value] : command->env) value = recipe::ReplaceHubSnapshots(value, folder);
  for (auto& aux : command->auxiliary) ReplaceIn(&aux, folder);
  for (auto& router : command->router) ReplaceIn(&router, folder);
}

}  // namespace

std::string HubCacheRoot(const RenderOptions& options) {
  if (auto cache = options.LaunchEnv("HF_HUB_CACHE"); cache && !cache->empty()) return *cache;
  if (auto home = options.LaunchEnv("HF_HOME"); home && !home->empty()) return *home + "/hub";
  return options.LaunchEnv("HOME").value_or("") + "/.cache/huggingface/hub";
}

StatusOr<std::string> HubSnapshotFolder(const std::string& repo, const RenderOptions& options) {
  const std::string model = HubCacheRoot(options) + "/" + recipe::HubCacheFolderName(repo);
  const std::string ref = model + "/refs/main";
  std::ifstream in(ref);
  std::string revision;
  std::getline(in, revision);
  while (!revision.empty() && (revision.back() == '\r' || revision.back() == ' '))
    revision.pop_back();
  if (!in && revision.empty()) {
    return Status::FailedPrecondition(fmt::format(
        "the command names {}'s snapshot in the HF cache, but {} cannot be read: the prepare "
        "steps did not download it into this cache (HF_HUB_CACHE, else HF_HOME/hub, else "
        "~/.cache/huggingface/hub)",
        repo, ref));
  }
  if (revision.empty() || revision.find('/') != std::string::npos || revision == "." ||
      revision == "..") {
    return Status::FailedPrecondition(
        fmt::format("{} holds '{}', not a revision of {}", ref, revision, repo));
  }
  const std::string folder = model + "/snapshots/" + revision;
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec)) {
    return Status::FailedPrecondition(
        fmt::format("{} names revision {} of {}, but its snapshot folder {} is missing", ref,
                    revision, repo, folder));
  }
  return folder;
}

std::vector<std::string> HubSnapshotsOf(const ServerCommand& command) {
  std::vector<std::string> repos;
  std::function<void(const ServerCommand&)> collect = [&](const ServerCommand& c) {
    std::vector<std::string> texts = c.argv;
    for (const auto& [name, value] : c.env) texts.push_back(value);
    for (const auto& text : texts)
      for (const auto& repo : recipe::HubSnapshotsIn(text))
        if (std::find(repos.begin(), repos.end(), repo) == repos.end()) repos.push_back(repo);
    for (const auto& aux : c.auxiliary) collect(aux);
    for (const auto& router : c.router) collect(router);
  };
  collect(command);
  return repos;
}

Status ResolveHubSnapshots(const RenderOptions& options, ServerCommand* command) {
  std::map<std::string, std::string> folders;  // repo -> folder the engine is given
  for (const std::string& repo : HubSnapshotsOf(*command)) {
    SB_ASSIGN_OR_RETURN(std::string folder, HubSnapshotFolder(repo, options));
    if (options.container.kind != ContainerProfile::Kind::kNone) {
      std::string inside = InContainer(folder, options.container);
      if (inside.empty()) {
        return Status::FailedPrecondition(fmt::format(
            "the command names {}'s snapshot {}, and it runs in a container where no mount "
            "holds that folder; mount the HF cache (the runner's container mounts)",
            repo, folder));
      }
      folder = inside;
    }
    folders[repo] = folder;
  }
  if (folders.empty()) return Status::Ok();
  ReplaceIn(command, [&](const std::string& repo) { return folders.at(repo); });
  return Status::Ok();
}

}  // namespace servebench::engine
