// Builds the bytes of one streaming HTTP/1.1 request (headers + JSON body) for a
// prompt, before the run, so nothing but a write happens between a request's
// release and its t_sent. Token ids are written by hand: a 100,000-token prompt
// costs one pass, not a JSON tree. Thread-safe (pure).
#pragma once

#include <string>
#include <vector>

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

// The one tool of --tool-call-workload (client_settings.h): a function taking one
// string, so any well-formed call's arguments are a small JSON object.
inline constexpr const char* kToolCallWorkloadTool =
    R"({"type":"function","function":{"name":"servebench_lookup",)"
    R"("description":"Look a query up and return what is found.",)"
    R"("parameters":{"type":"object","properties":{"query":{"type":"string"}},)"
    R"("required":["query"]}}})";

// Fails when --extra-body is not a JSON object.
StatusOr<RequestTemplate> MakeRequestTemplate(const BenchSettings& settings, const net::Url& url,
                                              const std::string& api_key);

// The complete request for `prompt`.
std::string BuildRequest(const RequestTemplate& t, const Prompt& prompt, bool ignore_eos);

// The requests of `prompts`, in order, each prompt's payload (token ids, text,
// messages) released once its request is built, so a run's prompts and requests are
// never both held whole (client/prompt_memory.h counts the peak); the prompts keep
// their counts and tags.
std::vector<std::string> BuildRequests(const RequestTemplate& t, std::vector<Prompt>* prompts,
                                       bool ignore_eos);

// True when the effective endpoint (client_settings.h) is the chat API.
bool IsChatEndpoint(const BenchSettings& settings);

}  // namespace servebench::client
