// ResolveHubSnapshots: the launch-time half of recipe/hub_snapshot.h. A rendered
// command may hold snapshot words (a captured `vllm serve "$MODEL_PATH"` whose
// MODEL_PATH the script resolved from the HF cache after `hf download`); once the
// prepare steps have downloaded the repositories, each word is replaced with the
// folder it stands for on this machine, just before the engine starts.
//
// The cache is huggingface_hub's: $HF_HUB_CACHE, else $HF_HOME/hub, else
// $HOME/.cache/huggingface/hub (servebench's environment at launch, which the
// prepare steps' `hf download` wrote into); a repository's snapshot is
// <cache>/models--ORG--NAME/snapshots/<the revision in refs/main>. In a container the
// folder is named as the container sees it, through the runner's mount that holds it.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "engine/server_command.h"

namespace servebench::engine {

// The repositories whose snapshot words `command` holds (its argv and env values, its
// auxiliary servers' and router's), each once, in order of first appearance.
std::vector<std::string> HubSnapshotsOf(const ServerCommand& command);

// The hub cache folder at launch, by the rule above.
std::string HubCacheRoot(const RenderOptions& options);

// The snapshot folder of `repo` on this host. FailedPrecondition, naming the file it
// read, when the cache has no refs/main for it or the snapshot folder is missing
// (the prepare steps did not download it).
StatusOr<std::string> HubSnapshotFolder(const std::string& repo, const RenderOptions& options);

// Replaces every snapshot word in `command`'s argv and env (its auxiliary servers'
// and router's too) with the folder, as the container sees it when
// options.container wraps the command: FailedPrecondition when no mount holds it.
// A command without snapshot words is left as it is.
Status ResolveHubSnapshots(const RenderOptions& options, ServerCommand* command);

}  // namespace servebench::engine
