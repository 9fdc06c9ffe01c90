// HubSnapshot: a value of a verbatim command known only at launch — the folder of a
// Hugging Face hub repository's snapshot in the launching machine's HF cache, once
// serve.prepare has downloaded it. InferenceX's MiniMax-M3 H200 agentic script serves
// `vllm serve "$MODEL_PATH"` with MODEL_PATH resolved from the cache after its
// `hf download "$MODEL"`; the revision, and so the path, is whatever the hub's main
// was on the day, so a recipe cannot hold it.
//
// In a ServeSpec the value is a word, HubSnapshotWord(repo), inside an argv element
// or an env value (an element may hold it among other text: a container's
// `-e MODEL_PATH=<word>`). The engine replaces every such word at launch
// (engine/hub_snapshots.h); the dry run shows the shell that resolves it. In a native
// recipe it is written `{hf_snapshot: REPO}` as an argv item or an env_from value.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace servebench::recipe {

// "{hf_snapshot:REPO}": the word standing for REPO's snapshot folder.
std::string HubSnapshotWord(std::string_view repo);

// True for a hub repository id as `hf download` takes it: ORG/NAME, each part of
// letters, digits, '-', '_', '.', not starting with '.' or '-'.
bool IsHubRepoId(std::string_view repo);

// True when `text` is one snapshot word and nothing else (it holds no secret).
bool IsHubSnapshotWord(std::string_view text);

// The repositories whose words `text` holds, in order of appearance (repeats kept).
std::vector<std::string> HubSnapshotsIn(std::string_view text);

// One piece of a text split at its snapshot words: literal text, or a repository.
struct TextPiece {
  bool is_snapshot = false;
  std::string text;  // the literal, or the repository id
};
std::vector<TextPiece> SplitAtHubSnapshots(std::string_view text);

// `text` with each snapshot word replaced by `folder(repo)`.
std::string ReplaceHubSnapshots(std::string_view text,
                                const std::function<std::string(const std::string&)>& folder);

// The cache folder huggingface_hub keeps REPO's model files in, relative to the hub
// cache: "models--ORG--NAME".
std::string HubCacheFolderName(std::string_view repo);

}  // namespace servebench::recipe
