// Builds the bytes of one streaming HTTP/1.1 request (headers + JSON body) for a
// prompt, before the run, so nothing but a write happens between a request's
// release and its t_sent. Token ids are written by hand: a 100,000-token prompt
// costs one pass, not a JSON tree. Thread-safe (pure).
#pragma once

#include <string>

#include "client/client_settings.h"
#include "client/dataset.h"
#include "common/status.h"
#include "net/url.h"

namespace servebench::client {

struct RequestTemplate {
  std::string head_prefix;  // request line + fixed headers, without Content-Length
  std::string body_prefix;  // `{"model":...,"stream":true,...` up to the prompt field
  std::string extra_body;   // `,"k":v...` from --extra-body, or empty
  bool chat = false;
};

// Fails when --extra-body is not a JSON object.
StatusOr<RequestTemplate> MakeRequestTemplate(const BenchSettings& settings, const net::Url& url,
                                              const std::string& api_key);

// The complete request for `prompt`.
std::string BuildRequest(const RequestTemplate& t, const Prompt& prompt, bool ignore_eos);

// True when the effective endpoint (client_settings.h) is the chat API.
bool IsChatEndpoint(const BenchSettings& settings);

}  // namespace servebench::client
