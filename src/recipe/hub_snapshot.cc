// Snapshot words of verbatim commands (hub_snapshot.h).
#include "recipe/hub_snapshot.h"

namespace servebench::recipe {
namespace {

constexpr std::string_view kOpen = "{hf_snapshot:";

bool IsRepoPart(std::string_view part) {
  if (part.empty() || part.front() == '.' || part.front() == '-') return false;
  for (char c : part)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
          c == '_' || c == '.'))
      return false;
  return true;
}

}  // namespace

std::string HubSnapshotWord(std::string_view repo) {
  return std::string(kOpen) + std::string(repo) + "}";
}

bool IsHubRepoId(std::string_view repo) {
  size_t slash = repo.find('/');
  return slash != std::string_view::npos && IsRepoPart(repo.substr(0, slash)) &&
         IsRepoPart(repo.substr(slash + 1));
}

std::vector<TextPiece> SplitAtHubSnapshots(std::string_view text) {
  std::vector<TextPiece> pieces;
  std::string literal;
  size_t at = 0;
  while (at < text.size()) {
    size_t open = text.find(kOpen, at);
    if (open == std::string_view::npos) {
      literal += text.substr(at);
      break;
    }
    literal += text.substr(at, open - at);
    size_t close = text.find('}', open);
    std::string_view repo = close == std::string_view::npos
                                ? std::string_view()
                                : text.substr(open + kOpen.size(), close - open - kOpen.size());
    if (!IsHubRepoId(repo)) {  // unclosed or malformed: literal text
      literal += kOpen;
      at = open + kOpen.size();
      continue;
    }
    if (!literal.empty()) pieces.push_back({false, std::move(literal)});
    literal.clear();
    pieces.push_back({true, std::string(repo)});
    at = close + 1;
  }
  if (!literal.empty()) pieces.push_back({false, std::move(literal)});
  return pieces;
}

bool IsHubSnapshotWord(std::string_view text) {
  auto pieces = SplitAtHubSnapshots(text);
  return pieces.size() == 1 && pieces.front().is_snapshot;
}

std::vector<std::string> HubSnapshotsIn(std::string_view text) {
  std::vector<std::string> repos;
  for (const auto& piece : SplitAtHubSnapshots(text))
    if (piece.is_snapshot) repos.push_back(piece.text);
  return repos;
}

std::string ReplaceHubSnapshots(std::string_view text,
                                const std::function<std::string(const std::string&)>& folder) {
  std::string out;
  for (const auto& piece : SplitAtHubSnapshots(text))
    out += piece.is_snapshot ? folder(piece.text) : piece.text;
  return out;
}

std::string HubCacheFolderName(std::string_view repo) {
  std::string name = "models--";
  for (char c : repo) {
    if (c == '/')
      name += "--";
    else
      name += c;
  }
  return name;
}

}  // namespace servebench::recipe
