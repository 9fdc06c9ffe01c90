// ServerTokenizer: counts the tokens of a text with the server's own tokenizer, by
// POST /tokenize. Engines disagree on the request's shape, so each known shape is
// one row of kTokenizeShapes; the first that counts a probe text is used for the
// whole run and named in the result. A count of 0 for a non-empty text is never
// taken as a count: it is how llama-server answers a shape it ignores ({"prompt"}
// gets 200 {"tokens": []}), so it means "this server cannot count this way".
// Thread-safe after construction (each call is one blocking HttpFetch).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "client/dataset.h"
#include "net/tls_options.h"
#include "net/url.h"

namespace servebench::client {

// One engine family's /tokenize request: the JSON field that carries the text, and
// whether the body names the model.
struct TokenizeShape {
  std::string_view name;        // recorded: "vllm" or "llamacpp"
  std::string_view engines;     // for people: who speaks it
  std::string_view text_field;  // "prompt" or "content"
  bool send_model = false;
};

// vLLM, SGLang and the sim: {"model", "prompt"} → {"count", "tokens"}.
// llama.cpp's llama-server: {"content"} → {"tokens"}.
inline constexpr TokenizeShape kTokenizeShapes[] = {
    {"vllm", "vLLM, SGLang, servebench sim", "prompt", true},
    {"llamacpp", "llama.cpp llama-server", "content", false},
};

// The counter and what it is, or an empty counter when no shape counts.
struct ServerTokenizer {
  TokenCounter count;                    // empty: the server cannot count
  const TokenizeShape* shape = nullptr;  // the shape that worked
  std::string note;                      // for the result: which shape, or why none
};

// Probes the server with each shape in turn ("hello world" must count > 0).
ServerTokenizer ProbeServerTokenizer(const net::Url& url, const std::string& model,
                                     const net::TlsOptions& tls);

// A chat prompt as the server's tokenizer sees it: POST /tokenize {"model", "messages"}
// (vLLM, SGLang, the sim) applies the chat template with the assistant header, so
// `count` is the prompt_tokens a chat request with these messages gets. `tokens` may
// be empty when the answer lists none.
struct ChatTokenization {
  int64_t count = 0;
  std::vector<int64_t> tokens;
};
// Tokenizes one message array (a JSON array); nullopt when the server cannot.
using ChatTokenizer =
    std::function<std::optional<ChatTokenization>(const std::string& messages_json)>;

// The server's chat tokenizer, or an empty function when it has none that counts a
// probe message (llama-server's /tokenize takes no messages); `note` says which.
ChatTokenizer ProbeChatTokenizer(const net::Url& url, const std::string& model,
                                 const net::TlsOptions& tls, std::string* note);

// The count and token ids of a /tokenize answer body (ParseTokenizeCount's rule).
std::optional<ChatTokenization> ParseTokenization(std::string_view body, bool nonempty);

// The token count in a /tokenize answer body: "count" when present, else the length
// of "tokens"; nullopt for anything else, and for 0 when `text` is not empty.
std::optional<int64_t> ParseTokenizeCount(std::string_view body, std::string_view text);

}  // namespace servebench::client
