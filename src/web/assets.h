// The dashboard's page, style and script (src/web/assets/), compiled into the
// binary by embed_assets.cmake. Empty for an unknown name.
#pragma once

#include <string_view>

namespace servebench::web {

std::string_view Asset(std::string_view name);  // "dashboard.html", "dashboard.css", "dashboard.js"

}  // namespace servebench::web
