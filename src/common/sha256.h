// SHA-256 as lower-case hex: point and record ids (recipe/, run/), lm-eval's
// doc_hash / prompt_hash / target_hash and the eval protocol hash (eval/).
// OpenSSL underneath. Thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace servebench {

std::string Sha256Hex(std::string_view data);

}  // namespace servebench
