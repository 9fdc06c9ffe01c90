// Identifiers that people choose and servebench uses in file names, URLs and SQL
// (--run-id, --label, a recipe's name in paths): 1-128 characters of letters, digits
// and `.` `_` `-`, not starting with `.` or `-` (no hidden files, no flags). So an
// id can never climb out of a folder (`a/b`, `..`), split a shell word or a SQL string.
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <string_view>

#include "common/status.h"

namespace servebench {

inline constexpr size_t kMaxIdLength = 128;

bool IsSafeId(std::string_view id);

// OK, or InvalidArgument naming `flag`, the value and the allowed characters.
Status CheckSafeId(std::string_view flag, std::string_view id);

}  // namespace servebench
