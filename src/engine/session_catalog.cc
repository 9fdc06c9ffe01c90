#include "engine/session_catalog.h"

#include <fmt/format.h>

#include <algorithm>
#include <mutex>

#include "common/atomic_file.h"
#include "config/config_file.h"
#include "engine/engine_catalog.h"

namespace servebench::engine {
namespace {

using config::FieldReader;
using config::LoadContext;
using config::YNode;

const std::string kEmpty;

std::map<std::string, std::string> ToMap(
    const std::optional<std::vector<std::pair<std::string, std::string>>>& pairs) {
  std::map<std::string, std::string> out;
  if (pairs) out.insert(pairs->begin(), pairs->end());
  return out;
}

template <typename Fn>
void EachEntry(const LoadContext& ctx, FieldReader& top, const char* key, Fn fn) {
  const YNode* n = top.Get(key);
  if (n == nullptr) return top.Missing(key);
  if (!n->IsMap()) return top.ErrorAt(key, "must be a map of name: entry");
  for (const auto& [name, node] : n->entries) fn(name, node, std::string(key) + "." + name.scalar);
}

void Read(const LoadContext& ctx, const YNode& root, SessionCatalog& c) {
  FieldReader top(ctx, root, "", {"version", "engines", "routers", "services", "stacks"},
                  "top-level key");
  if (top.Int("version", true).value_or(1) != 1) top.ErrorAt("version", "must be 1");
  EachEntry(
      ctx, top, "engines", [&](const YNode& name, const YNode& node, const std::string& path) {
        FieldReader r(ctx, node, path,
                      {"roles", "connectors", "kv_roles", "kv_both", "flags", "env"});
        SessionEngine e;
        e.name = name.scalar;
        e.roles = r.StringList("roles", true).value_or(e.roles);
        e.connectors = ToMap(r.StringMap("connectors"));
        e.kv_roles = ToMap(r.StringMap("kv_roles"));
        e.kv_both = r.StringList("kv_both").value_or(e.kv_both);
        e.flags = ToMap(r.StringMap("flags"));
        e.env = ToMap(r.StringMap("env"));
        for (const auto& role : e.roles) {
          if (role != "prefill" && role != "decode" && role != "aggregated")
            r.ErrorAt("roles",
                      fmt::format("'{}' is not a worker role (prefill, decode, aggregated)", role));
        }
        for (const auto& [key, flag] : e.flags) {
          if (flag.size() < 2 || flag[0] != '-')
            r.ErrorAt("flags", fmt::format("{} = \"{}\": a flag starts with '-'", key, flag));
        }
        c.engines[e.name] = std::move(e);
      });
  EachEntry(
      ctx, top, "routers", [&](const YNode& name, const YNode& node, const std::string& path) {
        FieldReader r(ctx, node, path,
                      {"aliases", "command", "engines", "flags", "pd_flag",
                       "prefill_takes_bootstrap_port", "config_file", "discovers_workers"});
        SessionRouter rt;
        rt.name = name.scalar;
        rt.aliases = r.StringList("aliases").value_or(rt.aliases);
        rt.command = r.StringList("command", true).value_or(rt.command);
        rt.engines = r.StringList("engines", true).value_or(rt.engines);
        rt.flags = ToMap(r.StringMap("flags"));
        rt.pd_flag = r.String("pd_flag").value_or("");
        rt.prefill_takes_bootstrap_port = r.Bool("prefill_takes_bootstrap_port").value_or(false);
        rt.config_file = r.Bool("config_file").value_or(false);
        rt.discovers_workers = r.Bool("discovers_workers").value_or(false);
        if (r.Has("command") && rt.command.empty()) r.ErrorAt("command", "is empty; name the argv");
        for (const auto& e : rt.engines) {
          if (c.engines.count(e) == 0)
            r.ErrorAt("engines", fmt::format("'{}' is not under engines", e));
        }
        c.routers[rt.name] = std::move(rt);
      });
  EachEntry(ctx, top, "services",
            [&](const YNode& name, const YNode& node, const std::string& path) {
              FieldReader r(ctx, node, path, {"command", "port", "env_for_workers"});
              SessionService s;
              s.name = name.scalar;
              s.command = r.StringList("command", true).value_or(s.command);
              s.port = static_cast<int>(r.PositiveInt("port", true).value_or(0));
              s.env_for_workers = ToMap(r.StringMap("env_for_workers"));
              if (s.port > 65535) r.ErrorAt("port", "must be in 1..65535");
              c.services[s.name] = std::move(s);
            });
  EachEntry(ctx, top, "stacks", [&](const YNode& name, const YNode& node, const std::string& path) {
    FieldReader r(ctx, node, path,
                  {"engine", "router", "services", "router_args", "worker_args", "worker_command",
                   "worker_launcher", "worker_flags", "router_port", "worker_port"});
    SessionStack s;
    s.name = name.scalar;
    s.engine = r.String("engine", true, true).value_or("");
    s.router = r.String("router", true, true).value_or("");
    s.services = r.StringList("services").value_or(s.services);
    s.router_args = r.StringList("router_args").value_or(s.router_args);
    s.worker_args = r.StringList("worker_args").value_or(s.worker_args);
    s.worker_command = r.StringList("worker_command").value_or(s.worker_command);
    s.worker_launcher = r.StringList("worker_launcher").value_or(s.worker_launcher);
    s.worker_flags = ToMap(r.StringMap("worker_flags"));
    s.router_port = static_cast<int>(r.PositiveInt("router_port").value_or(8000));
    s.worker_port = static_cast<int>(r.PositiveInt("worker_port").value_or(0));
    if (s.router_port > 65535 || s.worker_port > 65535)
      r.ErrorAt("router_port", "ports are 1..65535");
    if (!s.engine.empty() && c.engines.count(s.engine) == 0)
      r.ErrorAt("engine", fmt::format("'{}' is not under engines", s.engine));
    const SessionRouter* router = s.router.empty() ? nullptr : c.FindRouter(s.router);
    if (!s.router.empty() && router == nullptr) {
      r.ErrorAt("router", fmt::format("'{}' is not under routers", s.router));
    } else if (router != nullptr && std::find(router->engines.begin(), router->engines.end(),
                                              s.engine) == router->engines.end()) {
      r.ErrorAt("router", fmt::format("{} cannot front {} workers", s.router, s.engine));
    }
    for (const auto& svc : s.services) {
      if (c.services.count(svc) == 0)
        r.ErrorAt("services", fmt::format("'{}' is not under services", svc));
    }
    if (!s.worker_command.empty()) {
      for (const char* key : {"mode", "request_plane"}) {
        if (s.worker_flags.count(key) == 0)
          r.ErrorAt("worker_flags",
                    fmt::format("`{}` is missing; a Dynamo worker renders it", key));
      }
    }
    c.stacks[s.name] = std::move(s);
  });
}

}  // namespace

bool SessionEngine::CanPlay(std::string_view role) const {
  return std::find(roles.begin(), roles.end(), role) != roles.end();
}

const std::string& SessionEngine::Flag(std::string_view key) const {
  auto it = flags.find(std::string(key));
  return it == flags.end() ? kEmpty : it->second;
}

const std::string& SessionRouter::Flag(std::string_view key) const {
  auto it = flags.find(std::string(key));
  return it == flags.end() ? kEmpty : it->second;
}

const SessionRouter* SessionCatalog::FindRouter(const std::string& name) const {
  if (auto it = routers.find(name); it != routers.end()) return &it->second;
  for (const auto& [key, r] : routers)
    if (std::find(r.aliases.begin(), r.aliases.end(), name) != r.aliases.end()) return &r;
  return nullptr;
}

StatusOr<SessionCatalog> ParseSessionCatalog(std::string_view yaml, const std::string& origin) {
  SessionCatalog catalog;
  catalog.origin = origin;
  SB_RETURN_IF_ERROR(config::ReadConfigText(
      yaml, origin + "/sessions.yaml",
      [&](const LoadContext& ctx, const YNode& root) { Read(ctx, root, catalog); }));
  return catalog;
}

StatusOr<const SessionCatalog*> DefaultSessionCatalog() {
  static std::mutex mu;
  static const SessionCatalog* cached = nullptr;
  std::lock_guard<std::mutex> lock(mu);
  if (cached != nullptr) return cached;
  SB_ASSIGN_OR_RETURN(const EngineCatalog* engines, DefaultEngineCatalog());
  SB_ASSIGN_OR_RETURN(std::string text, ReadFile(engines->origin + "/sessions.yaml", 1 << 20));
  SB_ASSIGN_OR_RETURN(SessionCatalog catalog, ParseSessionCatalog(text, engines->origin));
  cached = new SessionCatalog(std::move(catalog));
  return cached;
}

}  // namespace servebench::engine
