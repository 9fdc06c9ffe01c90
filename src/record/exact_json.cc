#include "record/exact_json.h"

#include <fmt/format.h>

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/value_stack.hpp>
#include <charconv>
#include <string>

namespace servebench::record {
namespace {

namespace json = boost::json;

// Builds the value on a value_stack, as json::parser does, except that a double is
// converted from its text with std::from_chars (correctly rounded, no locale).
struct ExactHandler {
  static constexpr std::size_t max_object_size = std::size_t(-1);
  static constexpr std::size_t max_array_size = std::size_t(-1);
  static constexpr std::size_t max_key_size = std::size_t(-1);
  static constexpr std::size_t max_string_size = std::size_t(-1);

  json::value_stack stack;
  std::string number;  // the parts of a number split across buffers

  bool on_document_begin(json::error_code&) { return true; }
  bool on_document_end(json::error_code&) { return true; }
  bool on_array_begin(json::error_code&) { return true; }
  bool on_array_end(std::size_t n, json::error_code&) {
    stack.push_array(n);
    return true;
  }
  bool on_object_begin(json::error_code&) { return true; }
  bool on_object_end(std::size_t n, json::error_code&) {
    stack.push_object(n);
    return true;
  }
  bool on_string_part(json::string_view s, std::size_t, json::error_code&) {
    stack.push_chars(s);
    return true;
  }
  bool on_string(json::string_view s, std::size_t, json::error_code&) {
    stack.push_string(s);
    return true;
  }
  bool on_key_part(json::string_view s, std::size_t, json::error_code&) {
    stack.push_chars(s);
    return true;
  }
  bool on_key(json::string_view s, std::size_t, json::error_code&) {
    stack.push_key(s);
    return true;
  }
  bool on_number_part(json::string_view s, json::error_code&) {
    number.append(s.data(), s.size());
    return true;
  }
  bool on_int64(int64_t i, json::string_view, json::error_code&) {
    number.clear();
    stack.push_int64(i);
    return true;
  }
  bool on_uint64(uint64_t u, json::string_view, json::error_code&) {
    number.clear();
    stack.push_uint64(u);
    return true;
  }
  bool on_double(double d, json::string_view s, json::error_code&) {
    number.append(s.data(), s.size());
    double exact = d;
    auto [end, err] = std::from_chars(number.data(), number.data() + number.size(), exact);
    stack.push_double(err == std::errc() && end == number.data() + number.size() ? exact : d);
    number.clear();
    return true;
  }
  bool on_bool(bool b, json::error_code&) {
    stack.push_bool(b);
    return true;
  }
  bool on_null(json::error_code&) {
    stack.push_null();
    return true;
  }
  bool on_comment_part(json::string_view, json::error_code&) { return true; }
  bool on_comment(json::string_view, json::error_code&) { return true; }
};

}  // namespace

StatusOr<json::value> ParseJsonExactly(std::string_view text) {
  json::basic_parser<ExactHandler> parser(json::parse_options{});
  parser.handler().stack.reset();
  json::error_code ec;
  std::size_t used = parser.write_some(false, text.data(), text.size(), ec);
  if (!ec && used < text.size()) ec = json::error::extra_data;
  if (ec) return Status::InvalidArgument(ec.message());
  return parser.handler().stack.release();
}

}  // namespace servebench::record
