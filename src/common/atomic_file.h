// Whole-file reads and atomic writes. A result file is either complete or absent:
// WriteFileAtomically writes a temporary file beside the target, fsyncs it and
// renames it over the target, so a crash, Ctrl-C or full disk never leaves a
// half-written record. Thread-safe (no shared state).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "common/status.h"

namespace servebench {

// Reads the file at `path`. NotFound if it does not exist; InvalidArgument if it
// is larger than `max_bytes` (so a 100 GB mistake is refused, not loaded).
StatusOr<std::string> ReadFile(const std::string& path, size_t max_bytes = size_t{1} << 30);

// Replaces `path` with `contents` atomically; creates missing parent folders.
// DataLoss (with the OS error) when the disk is full or the folder is not writable;
// the target then keeps its old contents.
Status WriteFileAtomically(const std::string& path, std::string_view contents);

}  // namespace servebench
