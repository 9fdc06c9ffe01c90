#include "common/failure_class.h"

#include <fmt/format.h>

#include <array>
#include <ostream>

namespace servebench {
namespace {

// disagg, router and dynamo: the serve-session classes of disagg.md §4 (KV transfer,
// bootstrap and lease timeouts, NIXL/UCX errors; routers and frontends).
constexpr std::array<std::string_view, 10> kDomains = {
    "server", "infra", "image", "model", "client", "eval", "run", "disagg", "router", "dynamo"};

bool IsPart(std::string_view part) {
  if (part.empty() || part[0] < 'a' || part[0] > 'z') return false;
  for (char c : part) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

bool Follows(std::string_view text) {
  if (text == "unknown") return true;
  size_t dot = text.find('.');
  if (dot == std::string_view::npos) return false;
  std::string_view domain = text.substr(0, dot);
  bool known = false;
  for (std::string_view d : kDomains) known = known || d == domain;
  if (!known) return false;
  std::string_view rest = text.substr(dot + 1);
  while (true) {
    size_t next = rest.find('.');
    if (!IsPart(rest.substr(0, next))) return false;
    if (next == std::string_view::npos) return true;
    rest.remove_prefix(next + 1);
  }
}

}  // namespace

std::string_view FailureClassGrammar() {
  return "<domain>.<name>[.<detail>...] with domain one of server, infra, image, model, "
         "client, eval, run, disagg, router, dynamo and each part [a-z][a-z0-9_]*, or "
         "\"unknown\"";
}

StatusOr<FailureClass> FailureClass::Parse(std::string_view text) {
  if (text.empty()) return FailureClass();
  if (!Follows(text)) {
    return Status::InvalidArgument(
        fmt::format("failure class \"{}\" is not {}", text, FailureClassGrammar()));
  }
  return FailureClass(std::string(text));
}

std::ostream& operator<<(std::ostream& out, const FailureClass& c) { return out << c.name(); }

std::string_view FailureClass::domain() const {
  if (name_ == "unknown") return "";
  return std::string_view(name_).substr(0, name_.find('.'));
}

}  // namespace servebench
