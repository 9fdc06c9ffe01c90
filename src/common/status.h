// Status and StatusOr<T>: how servebench code reports failure without exceptions.
//
// Code that can fail returns Status (or StatusOr<T> when it also yields a value).
// Library exceptions (JSON, YAML, libpq, Asio) are caught in the module that calls
// the library and turned into a Status there; they never cross a module boundary.
// A message is written for a human: what, the bad value, the rule, the fix.
// Thread-safety: values; copy freely.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace servebench {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,     // bad input from a user or a file: recipe, flag, request
  kNotFound,            // a file, key, model, record that does not exist
  kAlreadyExists,       // a unique thing that is already there
  kFailedPrecondition,  // the system is not in a state where this can run
  kUnavailable,         // a peer (server, database) cannot be reached; may retry
  kDeadlineExceeded,    // a timeout
  kCancelled,           // stopped by the user (Ctrl-C) or a caller
  kDataLoss,            // a write that could not complete (full disk, I/O error)
  kInternal,            // a bug in servebench
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string m) {
    return {StatusCode::kInvalidArgument, std::move(m)};
  }
  static Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status AlreadyExists(std::string m) { return {StatusCode::kAlreadyExists, std::move(m)}; }
  static Status FailedPrecondition(std::string m) {
    return {StatusCode::kFailedPrecondition, std::move(m)};
  }
  static Status Unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
  static Status DeadlineExceeded(std::string m) {
    return {StatusCode::kDeadlineExceeded, std::move(m)};
  }
  static Status Cancelled(std::string m) { return {StatusCode::kCancelled, std::move(m)}; }
  static Status DataLoss(std::string m) { return {StatusCode::kDataLoss, std::move(m)}; }
  static Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // "OK", or "<code name>: <message>".
  std::string ToString() const;

  // Returns a copy whose message is "<context>: <message>"; OK stays OK.
  Status WithContext(std::string_view context) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// Either a value or a non-OK Status. Accessing value() of an error is a bug
// (checked with an abort, so tests catch it rather than reading garbage).
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(Status status) : data_(std::move(status)) {
    CheckNotOk();
  }                                               // NOLINT: implicit by design
  StatusOr(T value) : data_(std::move(value)) {}  // NOLINT: implicit by design

  bool ok() const { return std::holds_alternative<T>(data_); }
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(data_); }

  const T& value() const& {
    CheckOk();
    return std::get<T>(data_);
  }
  T& value() & {
    CheckOk();
    return std::get<T>(data_);
  }
  T&& value() && {
    CheckOk();
    return std::get<T>(std::move(data_));
  }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

 private:
  void CheckOk() const;
  void CheckNotOk() const;
  std::variant<Status, T> data_;
};

namespace internal {
[[noreturn]] void DieOnBadStatusAccess(const Status& status);
}  // namespace internal

template <typename T>
void StatusOr<T>::CheckOk() const {
  if (!ok()) internal::DieOnBadStatusAccess(std::get<Status>(data_));
}
template <typename T>
void StatusOr<T>::CheckNotOk() const {
  if (std::get<Status>(data_).ok()) {
    internal::DieOnBadStatusAccess(Status::Internal("StatusOr built from an OK Status"));
  }
}

}  // namespace servebench

// Returns the Status of `expr` from the enclosing function when it is not OK.
#define SB_RETURN_IF_ERROR(expr)              \
  do {                                        \
    ::servebench::Status sb_status_ = (expr); \
    if (!sb_status_.ok()) return sb_status_;  \
  } while (0)

#define SB_CONCAT_INNER_(a, b) a##b
#define SB_CONCAT_(a, b) SB_CONCAT_INNER_(a, b)
// `SB_ASSIGN_OR_RETURN(auto x, MakeX());` declares x from the value, or returns the error.
#define SB_ASSIGN_OR_RETURN(lhs, expr) \
  SB_ASSIGN_OR_RETURN_IMPL_(SB_CONCAT_(sb_or_, __LINE__), lhs, expr)
#define SB_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.ok()) return tmp.status();             \
  lhs = std::move(tmp).value()
