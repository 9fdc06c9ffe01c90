// Text for XML and HTML documents written by hand (JUnit reports, the dashboard).
#pragma once

#include <string>
#include <string_view>

namespace servebench {

// `s` safe as element text or a quoted attribute value in XML 1.0 and HTML: & < > " '
// as entities, and the control characters XML forbids (all below 0x20 but tab,
// newline, carriage return) as spaces.
std::string EscapeMarkup(std::string_view s);

}  // namespace servebench
