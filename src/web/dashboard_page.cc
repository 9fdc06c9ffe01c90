#include "web/dashboard_page.h"

#include <boost/json/serialize.hpp>

#include "common/markup.h"
#include "web/assets.h"

namespace servebench::web {
namespace {

// Replaces every `marker`, scanning on after each replacement (so `with` is never
// searched, whatever it holds).
void Replace(std::string* text, std::string_view marker, std::string_view with) {
  for (size_t at = text->find(marker); at != std::string::npos;
       at = text->find(marker, at + with.size())) {
    text->replace(at, marker.size(), with);
  }
}

}  // namespace

std::string EmbeddableJson(const std::string& json) {
  // "<" only occurs inside JSON strings, where \u003c means the same character.
  std::string out;
  out.reserve(json.size());
  for (char c : json) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string RenderDashboardHtml(const boost::json::object& data) {
  std::string page(Asset("dashboard.html"));
  std::string title = data.contains("title") && data.at("title").is_string()
                          ? std::string(data.at("title").get_string())
                          : "servebench";
  // The data goes in last: nothing in it is ever taken for a marker.
  Replace(&page, "{{TITLE}}", EscapeMarkup(title));
  Replace(&page, "{{STYLE}}", Asset("dashboard.css"));
  Replace(&page, "{{SCRIPT}}", Asset("dashboard.js"));
  Replace(&page, "{{DATA}}", EmbeddableJson(boost::json::serialize(data)));
  return page;
}

}  // namespace servebench::web
