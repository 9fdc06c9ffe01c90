// SHA-256 hex digests (lm-eval's doc_hash / prompt_hash / target_hash and the
// protocol hash). OpenSSL underneath. Thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace servebench::eval {

std::string Sha256Hex(std::string_view data);

}  // namespace servebench::eval
