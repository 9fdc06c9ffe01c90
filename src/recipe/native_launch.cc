// The native `command`, `env_from` and `prepare` keys (native_launch.h).
#include "recipe/native_launch.h"

#include <fmt/format.h>

#include <filesystem>

#include "recipe/hub_snapshot.h"

namespace servebench::recipe {
namespace {

// A file path a command may name: relative, and inside its folder once `..` is
// resolved (a recipe must not write outside the session's work folder).
bool StaysInside(const std::string& path) {
  if (path.empty() || path.front() == '/') return false;
  std::filesystem::path normal = std::filesystem::path(path).lexically_normal();
  return !normal.empty() && *normal.begin() != ".." && normal != ".";
}

// A launch value written `{hf_snapshot: REPO}` (recipe/hub_snapshot.h): its word, or
// nullopt after reporting what is wrong at `path`.
std::optional<std::string> SnapshotValue(const LoadContext& ctx, const YNode& n,
                                         const std::string& path) {
  const YNode* repo = n.entries.size() == 1 ? n.Find("hf_snapshot") : nullptr;
  if (repo == nullptr) {
    ctx.Error(n, path,
              "is a map other than {hf_snapshot: ORG/NAME}, the one map a launch value may be "
              "(the hub repository whose snapshot folder in the HF cache it is)");
    return std::nullopt;
  }
  std::optional<std::string> id = repo->AsString();
  if (!id || !IsHubRepoId(*id)) {
    ctx.Error(*repo, JoinPath(path, "hf_snapshot"),
              fmt::format("is '{}'; expected a hub repository id ORG/NAME", repo->scalar));
    return std::nullopt;
  }
  return HubSnapshotWord(*id);
}

// A string that would read as a snapshot word: refused, so the one spelling of one in
// a recipe is the map form.
bool RefuseSpelledWord(const LoadContext& ctx, const YNode& n, const std::string& path,
                       const std::string& text) {
  if (HubSnapshotsIn(text).empty()) return true;
  ctx.Error(n, path,
            fmt::format("is '{}', which servebench reads as a snapshot word; write the value as "
                        "{{hf_snapshot: ORG/NAME}}",
                        text));
  return false;
}

}  // namespace

std::optional<std::vector<std::string>> ReadLaunchWords(const LoadContext& ctx, FieldReader& r,
                                                        const std::string& key) {
  const YNode* n = r.Get(key);
  if (n == nullptr) {
    r.StringList(key, true);  // reports the missing key
    return std::nullopt;
  }
  if (!n->IsSequence()) return r.StringList(key, true);  // reports the type
  std::vector<std::string> words;
  bool ok = true;
  for (size_t i = 0; i < n->items.size(); ++i) {
    const YNode& item = n->items[i];
    const std::string path = IndexPath(r.PathOf(key), i);
    if (item.IsMap()) {
      auto word = SnapshotValue(ctx, item, path);
      ok = word.has_value() && ok;
      if (word) words.push_back(*word);
      continue;
    }
    auto text = item.AsString();
    if (!text) {
      ctx.Error(
          item, path,
          fmt::format("is {}; expected a string or {{hf_snapshot: ORG/NAME}}", item.TypeName()));
      ok = false;
      continue;
    }
    ok = RefuseSpelledWord(ctx, item, path, *text) && ok;
    words.push_back(*text);
  }
  if (!ok) return std::nullopt;
  return words;
}

bool IsEnvName(const std::string& name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (char c : name)
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
      return false;
  return true;
}

namespace {

// Every name of `env` is a variable name; each one that is not is reported.
// Copies `env` into `*out`, every name a variable name; each one that is not is
// reported (and the result is false).
bool TakeEnv(FieldReader& r, const std::vector<std::pair<std::string, std::string>>& env,
             std::map<std::string, std::string>* out) {
  bool ok = true;
  for (const auto& [name, value] : env) {
    if (!IsEnvName(name)) {
      r.ErrorAt("env",
                fmt::format("{}: not an environment variable name (letters, digits, _)", name));
      ok = false;
    }
    (*out)[name] = value;
  }
  return ok;
}

// `router: {argv, env, env_from, port}` of a command (RouterCommand); absent leaves it
// empty.
bool ReadRouter(const LoadContext& ctx, FieldReader& parent, RouterCommand* out) {
  const YNode* n = parent.Get("router");
  if (n == nullptr) return true;
  FieldReader r(ctx, *n, parent.PathOf("router"), {"argv", "env", "env_from", "port"});
  if (!r.valid()) return false;
  bool ok = true;
  auto argv = ReadLaunchWords(ctx, r, "argv");
  auto env = r.StringMap("env");
  auto port = r.Int("port", true);
  if (!argv || !port || (!env && r.Has("env"))) return false;
  if (argv->empty()) {
    r.ErrorAt("argv", "is empty; give the router's program and its arguments");
    ok = false;
  }
  if (*port < 1 || *port > 65535) {
    r.ErrorAt("port", fmt::format("is {}; the port the router listens on (where the load goes), "
                                  "1..65535",
                                  *port));
    ok = false;
  }
  if (env) ok = TakeEnv(r, *env, &out->env) && ok;
  ok = ReadEnvFrom(ctx, r, &out->env_from, &out->env) && ok;
  out->argv = *argv;
  out->port = static_cast<int>(*port);
  return ok;
}

}  // namespace

bool ReadVerbatimCommand(const LoadContext& ctx, FieldReader& parent,
                         std::optional<VerbatimCommand>* out) {
  const YNode* n = parent.Get("command");
  if (n == nullptr) return true;
  FieldReader r(ctx, *n, parent.PathOf("command"),
                {"argv", "port", "files", "folder", "source", "auxiliary", "router"});
  if (!r.valid()) return false;
  bool ok = true;
  VerbatimCommand c;
  if (auto argv = ReadLaunchWords(ctx, r, "argv")) {
    if (argv->empty()) {
      r.ErrorAt("argv", "is empty; give the program and its arguments");
      ok = false;
    }
    c.argv = *argv;
  } else {
    ok = false;
  }
  if (auto port = r.Int("port", true)) {
    if (*port < 1 || *port > 65535) {
      r.ErrorAt("port", fmt::format("is {}; the port the command listens on, 1..65535", *port));
      ok = false;
    }
    c.port = static_cast<int>(*port);
  } else {
    ok = false;
  }
  c.source = r.String("source").value_or("");
  c.folder = r.String("folder", false, true).value_or("");
  if (!c.folder.empty() && c.folder.front() != '/') {
    r.ErrorAt("folder", fmt::format("is '{}'; the folder the command names as its own is an "
                                    "absolute path (InferenceX's: /workspace)",
                                    c.folder));
    ok = false;
  }
  if (const YNode* files = r.Get("files")) {
    if (!files->IsSequence()) {
      ctx.Error(*files, r.PathOf("files"), "expected a list of {path, contents}");
      ok = false;
    } else {
      for (size_t i = 0; i < files->items.size(); ++i) {
        FieldReader fr(ctx, files->items[i], IndexPath(r.PathOf("files"), i), {"path", "contents"});
        auto path = fr.String("path", true, true);
        auto contents = fr.String("contents", true);
        if (!fr.valid() || !path || !contents) {
          ok = false;
          continue;
        }
        if (!StaysInside(*path)) {
          fr.ErrorAt("path", fmt::format("is '{}'; a file path is relative to the command's "
                                         "folder and stays inside it",
                                         *path));
          ok = false;
        }
        c.files.push_back({*path, *contents});
      }
    }
  }
  if (const YNode* auxiliary = r.Get("auxiliary")) {
    if (!auxiliary->IsSequence()) {
      ctx.Error(*auxiliary, r.PathOf("auxiliary"), "expected a list of {argv, env, env_from}");
      ok = false;
    } else {
      for (size_t i = 0; i < auxiliary->items.size(); ++i) {
        FieldReader ar(ctx, auxiliary->items[i], IndexPath(r.PathOf("auxiliary"), i),
                       {"argv", "env", "env_from"});
        AuxiliaryCommand a;
        auto argv = ReadLaunchWords(ctx, ar, "argv");
        auto env = ar.StringMap("env");
        if (!ar.valid() || !argv || (!env && ar.Has("env"))) {
          ok = false;
          continue;
        }
        if (argv->empty()) {
          ar.ErrorAt("argv", "is empty; give the auxiliary server's program and its arguments");
          ok = false;
        }
        a.argv = *argv;
        if (env) ok = TakeEnv(ar, *env, &a.env) && ok;
        ok = ReadEnvFrom(ctx, ar, &a.env_from, &a.env) && ok;
        c.auxiliary.push_back(std::move(a));
      }
    }
  }
  ok = ReadRouter(ctx, r, &c.router) && ok;
  if (ok && !c.router.argv.empty() && c.router.port == c.port) {
    r.ErrorAt("router", fmt::format("port is {}, the command's own; the router listens on a "
                                    "port of its own in front of it",
                                    c.port));
    ok = false;
  }
  if (ok) *out = std::move(c);
  return ok;
}

bool ReadEnvFrom(const LoadContext& ctx, FieldReader& parent,
                 std::map<std::string, std::string>* out, std::map<std::string, std::string>* env) {
  const YNode* n = parent.Get("env_from");
  if (n == nullptr) return true;
  if (!n->IsMap()) {
    ctx.Error(*n, parent.PathOf("env_from"),
              fmt::format("is {}; expected a map of NAME: SOURCE (or NAME: {{hf_snapshot: "
                          "ORG/NAME}})",
                          n->TypeName()));
    return false;
  }
  bool ok = true;
  for (const auto& entry : n->entries) {
    const std::string name = entry.first.scalar;
    const std::string path = JoinPath(parent.PathOf("env_from"), name);
    if (entry.second.IsMap()) {
      auto word = SnapshotValue(ctx, entry.second, path);
      if (word && !IsEnvName(name)) {
        ctx.Error(entry.first, path, "not an environment variable name (letters, digits, _)");
        word.reset();
      }
      ok = word.has_value() && ok;
      if (word) (*env)[name] = *word;
      continue;
    }
    auto source = entry.second.AsString();
    if (!source || !IsEnvName(name) || !IsEnvName(*source)) {
      parent.ErrorAt("env_from", fmt::format("{}: {}: both sides are environment variable "
                                             "names (letters, digits, _)",
                                             name, source.value_or(entry.second.TypeName())));
      ok = false;
      continue;
    }
    (*out)[name] = *source;
  }
  return ok;
}

bool ReadPrepare(const LoadContext& ctx, FieldReader& parent,
                 std::optional<std::vector<std::vector<std::string>>>* out) {
  const YNode* n = parent.Get("prepare");
  if (n == nullptr) return true;
  if (!n->IsSequence()) {
    ctx.Error(*n, parent.PathOf("prepare"), "expected a list of commands, each a list of strings");
    return false;
  }
  bool ok = true;
  std::vector<std::vector<std::string>> steps;
  for (size_t i = 0; i < n->items.size(); ++i) {
    const YNode& step = n->items[i];
    std::string path = IndexPath(parent.PathOf("prepare"), i);
    if (!step.IsSequence() || step.items.empty()) {
      ctx.Error(step, path, "expected a non-empty list of strings: [program, arg, ...]");
      ok = false;
      continue;
    }
    std::vector<std::string> argv;
    for (size_t j = 0; j < step.items.size(); ++j) {
      auto s = step.items[j].AsString();
      if (!s) {
        ctx.Error(step.items[j], IndexPath(path, j), "expected a string");
        ok = false;
        continue;
      }
      argv.push_back(*s);
    }
    steps.push_back(std::move(argv));
  }
  if (ok) *out = std::move(steps);
  return ok;
}

}  // namespace servebench::recipe
