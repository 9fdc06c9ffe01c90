// Canonical JSON: keys sorted (byte order) at every level, no whitespace, numbers
// in their shortest round-trip form. Equal values give equal bytes, so the text
// can be hashed for identity (point_id) or used as a grouping key. Thread-safe.
#pragma once

#include <boost/json.hpp>
#include <string>

namespace servebench::recipe {

std::string CanonicalJson(const boost::json::value& value);

// Compact JSON keeping object key order as inserted (InferenceX rows), with
// Python's json.dumps separators (", " and ": ") when `python_style`.
std::string OrderedJson(const boost::json::value& value, bool python_style = false);

}  // namespace servebench::recipe
