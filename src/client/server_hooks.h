// Server hooks around the measured window (docs/bench.md "Hooks"): the engines'
// admin endpoints `servebench bench --reset-prefix-cache` and `--profile` call, as
// `vllm bench serve --profile` and SGLang's `bench_serving --flush-cache --profile` do:
//   POST <base>/reset_prefix_cache  after the warm-ups, before the measured phase
//                                   (vLLM, the sim; answered 404, SGLang's
//                                   POST <base>/flush_cache is tried next)
//   POST <base>/start_profile       right before the measured phase
//   POST <base>/stop_profile        right after it (vLLM and SGLang write the trace
//                                   into the directory their profiler env names)
// A hook never fails a run: an HTTP error (404 where the server has no such endpoint,
// vLLM's answer without VLLM_TORCH_PROFILER_DIR; 405), a refused connection or a
// timeout is logged as a warning naming the endpoint, and the outcome of every hook
// asked for is recorded in the result (servebench.hooks). Each call is one net::
// HttpFetch (its own connection). A serve session of several processes has its
// hooks sent to every engine process's own URL at once (CallHookOnEach), not
// to the router the load goes to, and so has its prefix cache reset
// (ResetPrefixCacheOnEach). Blocks the caller; thread-safe.
#pragma once

#include <boost/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "client/client_settings.h"
#include "net/tls_options.h"
#include "net/url.h"

namespace servebench::client {

struct HookOutcome {
  std::string process;             // the session process it went to; "" = the base URL
  std::string endpoint;            // "/reset_prefix_cache", ...
  std::optional<int> http_status;  // nullopt: no HTTP reply (refused, timed out)
  bool ok = false;                 // a 2xx reply
  std::string error;               // why not ok (the warning's words); empty when ok
  std::string body;                // the reply's body, at most 4 KiB (the sim names its trace)
};

// POSTs `{}` to base_url's path + `endpoint`; waits at most `timeout_s`. Logs a
// warning ("<flag>: POST <url> ...") unless the reply is 2xx.
HookOutcome CallHook(const net::Url& base_url, const std::string& endpoint, const std::string& flag,
                     double timeout_s, const net::TlsOptions& tls);

// POSTs `{}` to `endpoint` of every process at once (one thread each) and waits for
// all, each at most `timeout_s`. One outcome per process, in order. Logs one warning
// naming every process whose reply was not 2xx ("<flag>: POST <endpoint> failed on
// decode[1] (http://...: HTTP 404 ...)").
std::vector<HookOutcome> CallHookOnEach(const std::vector<EngineProcess>& processes,
                                        const std::string& endpoint, const std::string& flag,
                                        double timeout_s, const net::TlsOptions& tls);

// --reset-prefix-cache: POST /reset_prefix_cache; when that is 404 (no such route),
// SGLang's POST /flush_cache. The outcome is the call that worked, else the first
// one's, with one warning.
HookOutcome ResetPrefixCache(const net::Url& base_url, const net::TlsOptions& tls);

// --reset-prefix-cache on a serve session of several processes: ResetPrefixCache on
// every engine process's own URL at once (the router in front of them has no cache).
// One outcome per process, in order, and one warning naming every process that has
// neither endpoint ("--reset-prefix-cache: POST /reset_prefix_cache failed on decode[1]
// (http://...: HTTP 404 ...)").
std::vector<HookOutcome> ResetPrefixCacheOnEach(const std::vector<EngineProcess>& processes,
                                                const net::TlsOptions& tls);

// {"endpoint", "http_status" (null without a reply), "ok", "error" (null when ok)},
// plus "trace" when the reply is a JSON object naming one (the sim's /stop_profile)
// and "process" when it went to one process of a session.
boost::json::value HookJson(const HookOutcome& outcome);

}  // namespace servebench::client
