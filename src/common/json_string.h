// JSON string literals written by hand (canonical point JSON, the sim's SSE chunks,
// lm-eval-compatible sample files), where building a boost::json value first would
// cost an allocation per token or change the bytes that are hashed.
#pragma once

#include <string>
#include <string_view>

namespace servebench {

// Appends `s` as a JSON string with the escapes of Python's
// json.dumps(s, ensure_ascii=False): \" \\ \n \r \t \b \f, other control characters
// as \u00XX, everything else (UTF-8 included) as is. Point ids and lm-eval's
// doc_hash are hashes of such text, so the escapes must not change.
void AppendJsonString(std::string* out, std::string_view s);

}  // namespace servebench
