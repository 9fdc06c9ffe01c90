#include "trace/json_fields.h"

#include <fmt/format.h>

#include <cmath>

namespace servebench::trace {
namespace {

// A value as the message shows it, cut short so a huge array stays readable.
std::string Show(const boost::json::value& value) {
  std::string text = boost::json::serialize(value);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

// An integral JSON number, or nullopt (a string, 1.5, 1e300...).
std::optional<int64_t> AsInt(const boost::json::value& value) {
  if (value.is_int64()) return value.as_int64();
  if (value.is_uint64()) {
    if (value.as_uint64() > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
    return static_cast<int64_t>(value.as_uint64());
  }
  if (value.is_double()) {
    const double d = value.as_double();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e15) {
      return static_cast<int64_t>(d);
    }
  }
  return std::nullopt;
}

}  // namespace

JsonFields::JsonFields(const boost::json::object& object, std::string path)
    : object_(object), path_(std::move(path)) {}

std::string JsonFields::FieldPath(std::string_view key) const {
  return path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
}

const boost::json::value* JsonFields::Get(std::string_view key) const {
  auto it = object_.find(key);
  if (it == object_.end() || it->value().is_null()) return nullptr;
  return &it->value();
}

bool JsonFields::Has(std::string_view key) const { return Get(key) != nullptr; }

Status JsonFields::Error(std::string_view key, std::string_view rule) const {
  const boost::json::value* value = Get(key);
  return Status::InvalidArgument(
      fmt::format("{} = {}: {}", FieldPath(key), value ? Show(*value) : "null", rule));
}

Status JsonFields::MissingError(std::string_view key) const {
  return Status::InvalidArgument(fmt::format("{} is missing (required)", FieldPath(key)));
}

Status JsonFields::OnlyKeys(const std::vector<std::string_view>& allowed) const {
  for (const auto& item : object_) {
    bool known = false;
    for (std::string_view name : allowed) known = known || item.key() == name;
    if (!known) {
      std::string list;
      for (std::string_view name : allowed)
        list += fmt::format("{}{}", list.empty() ? "" : ", ", name);
      return Status::InvalidArgument(
          fmt::format("unknown field '{}' (allowed: {})", FieldPath(item.key()), list));
    }
  }
  return Status::Ok();
}

StatusOr<std::optional<int64_t>> JsonFields::Int(std::string_view key, bool required,
                                                 int64_t min) const {
  const boost::json::value* value = Get(key);
  if (value == nullptr) {
    if (required) return MissingError(key);
    return std::optional<int64_t>();
  }
  std::optional<int64_t> n = AsInt(*value);
  if (!n || *n < min) return Error(key, fmt::format("must be an integer >= {}", min));
  return n;
}

StatusOr<std::optional<double>> JsonFields::Number(std::string_view key, bool required,
                                                   double min) const {
  const boost::json::value* value = Get(key);
  if (value == nullptr) {
    if (required) return MissingError(key);
    return std::optional<double>();
  }
  double d = 0;
  if (value->is_double()) {
    d = value->as_double();
  } else if (value->is_int64()) {
    d = static_cast<double>(value->as_int64());
  } else if (value->is_uint64()) {
    d = static_cast<double>(value->as_uint64());
  } else {
    return Error(key, fmt::format("must be a number >= {}", min));
  }
  if (!std::isfinite(d) || d < min) return Error(key, fmt::format("must be a number >= {}", min));
  return std::optional<double>(d);
}

StatusOr<std::optional<std::string>> JsonFields::String(std::string_view key, bool required) const {
  const boost::json::value* value = Get(key);
  if (value == nullptr) {
    if (required) return MissingError(key);
    return std::optional<std::string>();
  }
  if (!value->is_string() || value->as_string().empty()) {
    return Error(key, "must be a non-empty string");
  }
  return std::optional<std::string>(std::string(value->as_string()));
}

StatusOr<std::optional<std::vector<uint64_t>>> JsonFields::IdList(std::string_view key,
                                                                  bool required) const {
  const boost::json::value* value = Get(key);
  if (value == nullptr) {
    if (required) return MissingError(key);
    return std::optional<std::vector<uint64_t>>();
  }
  if (!value->is_array()) return Error(key, "must be a list of integers >= 0");
  std::vector<uint64_t> ids;
  ids.reserve(value->as_array().size());
  size_t index = 0;
  for (const boost::json::value& item : value->as_array()) {
    std::optional<int64_t> n = AsInt(item);
    if (!n || *n < 0) {
      return Status::InvalidArgument(
          fmt::format("{}[{}] = {}: must be an integer >= 0", FieldPath(key), index, Show(item)));
    }
    ids.push_back(static_cast<uint64_t>(*n));
    ++index;
  }
  return std::optional<std::vector<uint64_t>>(std::move(ids));
}

StatusOr<const boost::json::array*> JsonFields::Array(std::string_view key, bool required) const {
  const boost::json::value* value = Get(key);
  if (value == nullptr) {
    if (required) return MissingError(key);
    return static_cast<const boost::json::array*>(nullptr);
  }
  if (!value->is_array()) return Error(key, "must be a list");
  return &value->as_array();
}

}  // namespace servebench::trace
