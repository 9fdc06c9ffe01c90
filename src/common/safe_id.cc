#include "common/safe_id.h"

#include <fmt/format.h>

namespace servebench {

bool IsSafeId(std::string_view id) {
  if (id.empty() || id.size() > kMaxIdLength || id[0] == '.' || id[0] == '-') return false;
  for (char c : id) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

Status CheckSafeId(std::string_view flag, std::string_view id) {
  if (IsSafeId(id)) return Status::Ok();
  std::string shown(id.substr(0, 2 * kMaxIdLength));
  for (char& c : shown) {
    if (static_cast<unsigned char>(c) < 0x20) c = '?';
  }
  return Status::InvalidArgument(fmt::format(
      "{} '{}': must be 1-{} characters of letters, digits and . _ - (not starting with . "
      "or -), because it names files and database rows",
      flag, shown, kMaxIdLength));
}

}  // namespace servebench
