#include "client/server_hooks.h"

#include <fmt/format.h>

#include <functional>
#include <future>

#include "common/log.h"
#include "net/http_fetch.h"

namespace servebench::client {
namespace json = boost::json;

namespace {

std::string Shown(const net::Url& base_url, const std::string& endpoint) {
  return fmt::format("{}://{}{}{}", base_url.tls ? "https" : "http", base_url.HostHeader(),
                     base_url.path, endpoint);
}

// The call itself, without a warning.
HookOutcome Post(const net::Url& base_url, const std::string& endpoint, double timeout_s,
                 const net::TlsOptions& tls) {
  HookOutcome out;
  out.endpoint = endpoint;
  net::Url base = base_url;
  const std::string path = base.path + endpoint;
  base.path.clear();
  StatusOr<net::HttpReply> reply = net::HttpFetch(base, path, "{}", timeout_s, {}, tls);
  if (!reply.ok()) {
    out.error = fmt::format("no reply: {}", reply.status().ToString());
    return out;
  }
  out.http_status = reply->status;
  out.body = reply->body.substr(0, 4096);
  out.ok = reply->status >= 200 && reply->status < 300;
  if (!out.ok) {
    out.error = fmt::format("HTTP {}{}", reply->status,
                            reply->status == 404 || reply->status == 405
                                ? " (the server has no such endpoint, or it is disabled)"
                                : "");
  }
  return out;
}

void Warn(const net::Url& base_url, const HookOutcome& o, const std::string& flag,
          const std::string& also = "") {
  Log(LogLevel::kWarning, "{}: POST {} failed: {}{}; the run goes on without it", flag,
      Shown(base_url, o.endpoint), o.error, also);
}

}  // namespace

HookOutcome CallHook(const net::Url& base_url, const std::string& endpoint, const std::string& flag,
                     double timeout_s, const net::TlsOptions& tls) {
  HookOutcome out = Post(base_url, endpoint, timeout_s, tls);
  if (!out.ok) Warn(base_url, out, flag);
  return out;
}

namespace {

// `call` on every process's own URL at once (one thread each), its outcome named after
// the process; then one warning naming each process whose call failed. At once, so
// every process's profile covers the same window, and a slow /stop_profile (a real
// engine writes its trace before answering) is waited for once.
std::vector<HookOutcome> OnEach(const std::vector<EngineProcess>& processes,
                                const std::string& endpoint, const std::string& flag,
                                const std::string& without,
                                const std::function<HookOutcome(const net::Url&)>& call) {
  std::vector<std::future<HookOutcome>> calls;
  for (const EngineProcess& p : processes) {
    calls.push_back(std::async(std::launch::async, [&p, &endpoint, &call] {
      StatusOr<net::Url> url = net::ParseUrl(p.base_url);
      HookOutcome out;
      if (url.ok()) {
        out = call(*url);
      } else {
        out.endpoint = endpoint;
        out.error = fmt::format("bad URL {}: {}", p.base_url, url.status().message());
      }
      out.process = p.name;
      return out;
    }));
  }
  std::vector<HookOutcome> outcomes;
  std::string failed;
  for (size_t i = 0; i < calls.size(); ++i) {
    outcomes.push_back(calls[i].get());
    const HookOutcome& o = outcomes.back();
    if (o.ok) continue;
    failed += fmt::format("{}{} ({}{}: {})", failed.empty() ? "" : ", ", o.process,
                          processes[i].base_url, o.endpoint, o.error);
  }
  if (!failed.empty()) {
    Log(LogLevel::kWarning, "{}: POST {} failed on {}; the run goes on without {}", flag, endpoint,
        failed, without);
  }
  return outcomes;
}

// POST /reset_prefix_cache, then SGLang's /flush_cache when that route is 404; no
// warning. The outcome is the call that worked, else the first one's;
// `flush_cache_error` says why SGLang's failed when it was tried.
HookOutcome TryResetPrefixCache(const net::Url& base_url, const net::TlsOptions& tls,
                                std::string* flush_cache_error) {
  HookOutcome vllm = Post(base_url, "/reset_prefix_cache", 60.0, tls);
  if (vllm.ok || vllm.http_status != 404) return vllm;
  HookOutcome sglang = Post(base_url, "/flush_cache", 60.0, tls);
  if (sglang.ok) return sglang;
  *flush_cache_error = sglang.error;
  return vllm;
}

}  // namespace

std::vector<HookOutcome> CallHookOnEach(const std::vector<EngineProcess>& processes,
                                        const std::string& endpoint, const std::string& flag,
                                        double timeout_s, const net::TlsOptions& tls) {
  return OnEach(processes, endpoint, flag, "their profiles",
                [&](const net::Url& url) { return Post(url, endpoint, timeout_s, tls); });
}

HookOutcome ResetPrefixCache(const net::Url& base_url, const net::TlsOptions& tls) {
  std::string flush_cache_error;
  HookOutcome o = TryResetPrefixCache(base_url, tls, &flush_cache_error);
  if (o.ok) return o;
  Warn(base_url, o, "--reset-prefix-cache",
       flush_cache_error.empty() ? ""
                                 : fmt::format(", and POST {} (SGLang's) {}",
                                               Shown(base_url, "/flush_cache"), flush_cache_error));
  return o;
}

std::vector<HookOutcome> ResetPrefixCacheOnEach(const std::vector<EngineProcess>& processes,
                                                const net::TlsOptions& tls) {
  return OnEach(processes, "/reset_prefix_cache", "--reset-prefix-cache",
                "an empty prefix cache there", [&](const net::Url& url) {
                  std::string flush_cache_error;
                  HookOutcome o = TryResetPrefixCache(url, tls, &flush_cache_error);
                  if (!flush_cache_error.empty())
                    o.error += ", and /flush_cache (SGLang's) " + flush_cache_error;
                  return o;
                });
}

json::value HookJson(const HookOutcome& o) {
  json::object j;
  if (!o.process.empty()) j["process"] = o.process;
  j["endpoint"] = o.endpoint;
  j["http_status"] = o.http_status ? json::value(*o.http_status) : json::value();
  j["ok"] = o.ok;
  j["error"] = o.ok ? json::value() : json::value(o.error);
  if (o.ok && !o.body.empty()) {
    boost::system::error_code ec;
    json::value body = json::parse(o.body, ec);
    if (!ec && body.is_object()) {
      if (const json::value* trace = body.as_object().if_contains("trace");
          trace != nullptr && trace->is_string()) {
        j["trace"] = *trace;
      }
    }
  }
  return j;
}

}  // namespace servebench::client
