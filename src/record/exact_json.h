// JSON text to a value with every number read exactly: a double reads back as the
// double the serializer wrote. Boost.JSON 1.81's own parser may be one ulp off for
// long fractions (1000 / 9.6 written as 1.0416666666666667E2 reads as
// 104.16666666666669), which would make a record read back from its file or the
// store differ from the one written. Thread-safe (no shared state).
#pragma once

#include <boost/json/value.hpp>
#include <string_view>

#include "common/status.h"

namespace servebench::record {

// The one JSON value in `text`; InvalidArgument with the parser's message when the
// text is not JSON (or has more after the value).
StatusOr<boost::json::value> ParseJsonExactly(std::string_view text);

}  // namespace servebench::record
