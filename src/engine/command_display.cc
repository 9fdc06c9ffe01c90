#include "engine/command_display.h"

#include <map>

#include "engine/hub_snapshots.h"
#include "recipe/hub_snapshot.h"

namespace servebench::engine {
namespace {

bool IsSafe(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("_@%+=:,./-").find(c) != std::string_view::npos;
}

bool IsFlag(const std::string& word) {
  return word.size() > 1 && word[0] == '-' && !(word[1] >= '0' && word[1] <= '9');
}

// Shell variables holding the snapshot folders a command names (recipe/hub_snapshot.h),
// by repository: "hf_snapshot_1", ... in order of first appearance.
using SnapshotVariables = std::map<std::string, std::string>;

// `word` for the shell: ShellQuote'd, each snapshot word in it as "$hf_snapshot_N".
std::string ShellWord(const std::string& word, const SnapshotVariables& snapshots) {
  auto pieces = recipe::SplitAtHubSnapshots(word);
  if (pieces.size() == 1 && !pieces.front().is_snapshot) return ShellQuote(word);
  std::string out;
  for (const auto& piece : pieces)
    out += piece.is_snapshot ? "\"$" + snapshots.at(piece.text) + "\"" : ShellQuote(piece.text);
  return out;
}

// `NAME=value \` lines, then the program and its words up to the first flag on one
// line, then one flag and its value per line; `suffix` ends the last line (" &").
std::string FormatInvocation(const ServerCommand& command, const std::string& suffix,
                             const SnapshotVariables& snapshots) {
  std::string out;
  for (const auto& [name, value] : command.env) {
    auto from = command.env_from.find(name);
    out += name + "=" +
           (from != command.env_from.end() ? "\"$" + from->second + "\""
                                           : ShellWord(value, snapshots)) +
           " \\\n";
  }
  size_t i = 0;
  std::string line;
  while (i < command.argv.size() && !IsFlag(command.argv[i])) {
    line += (line.empty() ? "" : " ") + ShellWord(command.argv[i], snapshots);
    ++i;
  }
  out += line;
  while (i < command.argv.size()) {
    line = ShellWord(command.argv[i], snapshots);
    ++i;
    while (i < command.argv.size() && !IsFlag(command.argv[i])) {
      line += " " + ShellWord(command.argv[i], snapshots);
      ++i;
    }
    out += " \\\n    " + line;
  }
  return out + suffix + "\n";
}

}  // namespace

std::string ShellQuote(const std::string& word) {
  if (word.empty()) return "''";
  bool safe = true;
  for (char c : word) safe = safe && IsSafe(c);
  if (safe) return word;
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string JoinForShell(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& word : argv) {
    if (!out.empty()) out += ' ';
    out += ShellQuote(word);
  }
  return out;
}

std::string FormatCommandForDisplay(const ServerCommand& command) {
  std::string out;
  if (!command.working_dir.empty()) {
    const std::string& wd = command.working_dir;
    out += "mkdir -p " + ShellQuote(wd) + " && cd " + ShellQuote(wd) + "\n";
    for (const auto& file : command.files) {
      const std::string parent = file.path.substr(0, file.path.rfind('/'));
      if (parent != wd && file.path.rfind('/') != std::string::npos)
        out += "mkdir -p " + ShellQuote(parent) + "\n";
    }
  }
  if (!command.prepare.empty()) out += "# before the engine starts:\n";
  for (const auto& step : command.prepare) out += JoinForShell(step) + "\n";
  // env_from values are the launching machine's (a device list, a token): shown as
  // the variable they come from, never as the value.
  for (const auto& [name, source] : command.env_from) {
    bool set = command.env.count(name) != 0;
    out += "# " + name + " is $" + source + " when that is set at launch (" +
           (set ? source + " is set here" : source + " is unset here, so " + name + " is not set") +
           ")\n";
  }
  // Snapshot folders are resolved after the downloads, as servebench does at launch
  // (engine/hub_snapshots.h); in a container servebench names them by the mount that
  // holds them.
  SnapshotVariables snapshots;
  for (const auto& repo : HubSnapshotsOf(command)) {
    const std::string var = "hf_snapshot_" + std::to_string(snapshots.size() + 1);
    snapshots[repo] = var;
    out += "# " + var + ": " + repo + "'s snapshot folder in the HF cache, once downloaded\n";
    out += var + "=\"${HF_HUB_CACHE:-${HF_HOME:-$HOME/.cache/huggingface}/hub}\"/" +
           ShellQuote(recipe::HubCacheFolderName(repo)) + "\n";
    out += var + "=\"$" + var + "/snapshots/$(cat \"$" + var + "/refs/main\")\"\n";
  }
  for (const auto& file : command.files) {
    out += "cat > " + ShellQuote(file.path) + " <<'EOF'\n" + file.contents;
    if (!file.contents.empty() && file.contents.back() != '\n') out += '\n';
    out += "EOF\n";
  }
  // Auxiliary servers run in the background, in the folder and with the files
  // written above, before the engine; servebench stops them after it.
  for (const auto& aux : command.auxiliary) {
    out += "# auxiliary server " + aux.engine + ", started before the engine, stopped after it:\n";
    out += FormatInvocation(aux, " &", snapshots);
    if (!aux.cleanup_argv.empty()) out += "# after stop: " + JoinForShell(aux.cleanup_argv) + "\n";
  }
  if (command.router.empty()) {
    out += FormatInvocation(command, "", snapshots);
    if (!command.cleanup_argv.empty())
      out += "# after stop: " + JoinForShell(command.cleanup_argv) + "\n";
    return out;
  }
  // A router in front: the engine in the background, the router once the engine
  // answers GET /health (as InferenceX's wait_for_server_ready), in the foreground.
  out += FormatInvocation(command, " &", snapshots);
  if (!command.cleanup_argv.empty())
    out += "# after stop: " + JoinForShell(command.cleanup_argv) + "\n";
  for (const auto& router : command.router) {
    out += "until curl -sf " + ShellQuote(BaseUrl(command) + "/health") +
           " >/dev/null; do sleep 5; done\n";
    out += "# router " + router.engine + " in front of the engine, on port " +
           std::to_string(router.port) + ": the load goes to it; stopped before the engine\n";
    out += FormatInvocation(router, "", snapshots);
    if (!router.cleanup_argv.empty())
      out += "# after stop: " + JoinForShell(router.cleanup_argv) + "\n";
  }
  return out;
}

std::string FormatSessionForDisplay(const std::string& title, const ServerCommand& command) {
  std::string out = "# " + title + "\n";
  out += "# engine " + command.engine + " on " + command.host + ":" + std::to_string(command.port) +
         "; ready when GET /health then GET /v1/models answer 200 (deadline " +
         std::to_string(static_cast<long long>(command.readiness_timeout_s)) + " s)\n";
  for (const auto& router : command.router)
    out += "# router " + router.engine + " on " + router.host + ":" + std::to_string(router.port) +
           ", started once the engine is ready; the load goes to it\n";
  return out + FormatCommandForDisplay(command);
}

}  // namespace servebench::engine
