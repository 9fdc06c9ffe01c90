// The dashboard as one self-contained HTML file: the page, its style and script
// (src/web/assets/, compiled into the binary) and the data (dashboard_data.h)
// embedded as JSON, so it opens from disk, a CI artifact or any static file server
// with no network access. Thread-safe.
#pragma once

#include <boost/json/object.hpp>
#include <string>

namespace servebench::web {

std::string RenderDashboardHtml(const boost::json::object& data);

// `json` made safe inside <script type="application/json">: every "<" becomes
// "\u003c" (the same string to a JSON parser), so no value can close the element
// or open a comment.
std::string EmbeddableJson(const std::string& json);

}  // namespace servebench::web
