// JSON Lines files (one JSON object per line): load-generator datasets, eval
// datasets and samples, the sim's answer files. The one reader: it splits the file
// into lines (LF or CRLF), skips blank ones, parses each as a JSON object and hands
// it over with its 1-based line number. Reentrant.
#pragma once

#include <boost/json.hpp>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace servebench {

// Called once per non-blank line; a failure stops the reading.
using JsonlLine = std::function<Status(size_t line_number, const boost::json::object& object)>;

// Reads `path` and calls `on_line` for each non-blank line. Fails with the read error
// (NotFound, ...) when the file cannot be read; with InvalidArgument
// "path:N: not a JSON object (<what>)" for a line that is not one; and with
// on_line's error, its message prefixed "path:N: ", when on_line fails. `what`
// describes a line for that message, e.g. "gsm8k lines hold {question, answer}".
Status ForEachJsonlObject(const std::string& path, std::string_view what, const JsonlLine& on_line);

}  // namespace servebench
