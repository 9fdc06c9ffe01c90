#include "client/json_scanner.h"

#include <gtest/gtest.h>

#include <array>
#include <boost/json.hpp>
#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace servebench::client {
namespace {

namespace json = boost::json;

// Builds a DOM from the scanner's events, to hold them to Boost.JSON's parse.
class DomBuilder {
 public:
  explicit DomBuilder(bool want_strings) : want_strings_(want_strings) {}

  void ObjectBegin() { Open(json::object()); }
  void ObjectEnd() { Close(); }
  void ArrayBegin() { Open(json::array()); }
  void ArrayEnd() { Close(); }
  void MemberKey(std::string_view k) { keys_.back() = std::string(k); }
  bool WantsString() const { return want_strings_; }
  void StringValue(std::string_view s, bool non_empty) {
    // Without the characters, only emptiness is known: a stand-in of that length class.
    Put(want_strings_ ? json::value(json::string(s)) : json::value(non_empty ? "<x>" : ""));
  }
  void Int(int64_t i) { Put(json::value(i)); }
  void Uint(uint64_t u) { Put(json::value(u)); }
  void Double(double d) { Put(json::value(d)); }
  void Bool(bool b) { Put(json::value(b)); }
  void Null() { Put(json::value(nullptr)); }

  const json::value& root() const { return root_; }

 private:
  void Open(json::value v) {
    stack_.push_back(std::move(v));
    keys_.emplace_back();
  }
  void Close() {
    json::value v = std::move(stack_.back());
    stack_.pop_back();
    keys_.pop_back();
    Put(std::move(v));
  }
  void Put(json::value v) {
    if (stack_.empty()) {
      root_ = std::move(v);
    } else if (stack_.back().is_array()) {
      stack_.back().as_array().push_back(std::move(v));
    } else {
      stack_.back().as_object()[keys_.back()] = std::move(v);  // a repeated key: the last
    }
  }

  bool want_strings_;
  std::vector<json::value> stack_;
  std::vector<std::string> keys_;
  json::value root_;
};

// Equal values of equal kinds; doubles within a relative 1e-15 (Boost.JSON's own
// conversion may differ from the correctly rounded one in the last place).
bool Same(const json::value& a, const json::value& b, bool strings) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case json::kind::double_: {
      const double x = a.get_double(), y = b.get_double();
      // Boost.JSON 1.81 reads a zero with a huge exponent (0e400) as NaN, 0 x infinity;
      // the scanner reads the zero it is.
      if (std::isnan(y)) return x == 0;
      if (std::isinf(x) || std::isinf(y) || x == y) return x == y;
      return std::abs(x - y) <= 1e-15 * std::max(std::abs(x), std::abs(y));
    }
    case json::kind::string:
      return strings ? a == b : a.get_string().empty() == b.get_string().empty();
    case json::kind::array: {
      const json::array &x = a.get_array(), &y = b.get_array();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i) {
        if (!Same(x[i], y[i], strings)) return false;
      }
      return true;
    }
    case json::kind::object: {
      const json::object &x = a.get_object(), &y = b.get_object();
      if (x.size() != y.size()) return false;
      for (const auto& [k, v] : x) {
        const json::value* w = y.if_contains(k);
        if (w == nullptr || !Same(v, *w, strings)) return false;
      }
      return true;
    }
    default:
      return a == b;
  }
}

// Scans `doc` both ways (strings decoded and not) and checks each against Boost.JSON.
void ExpectAsBoost(const std::string& doc) {
  json::error_code ec;
  json::value expected = json::parse(doc, ec);
  for (bool strings : {true, false}) {
    DomBuilder dom(strings);
    JsonScanError e = ScanJson(doc, &dom);
    ASSERT_EQ(e == JsonScanError::kNone, !ec)
        << "doc: " << json::serialize(json::value(json::string(doc)))
        << "\nscanner: " << JsonScanErrorName(e) << "\nboost: " << (ec ? ec.message() : "ok");
    if (!ec) {
      ASSERT_TRUE(Same(dom.root(), expected, strings))
          << "doc: " << doc << "\nscanner: " << json::serialize(dom.root())
          << "\nboost: " << json::serialize(expected);
    }
  }
}

TEST(JsonScannerTest, HandWrittenCasesAreReadAsBoostJsonReadsThem) {
  for (std::string doc : {
           R"({})",
           R"([])",
           R"({"a":1})",
           R"( { "a" : [ 1 , 2 ] , "b" : { } } )",
           "\t{\"a\":1}\r\n",
           R"({"a":1,})",
           R"([1,])",
           R"({"a" 1})",
           R"({"a":})",
           R"({,})",
           R"({"a":1 "b":2})",
           R"([1 2])",
           R"({'a':1})",
           R"({a:1})",
           "",
           " ",
           "{",
           "[",
           "\"",
           "\"abc",
           "{\"a\":1",
           "tru",
           "true",
           "trUe",
           "nul",
           "null",
           "nullx",
           "false",
           "fals",
           "[true,false,null]",
           "0",
           "-0",
           "-",
           "01",
           "1.",
           ".5",
           "1e",
           "1e+",
           "1E-2",
           "-1.5e300",
           "1e400",
           "-1e400",
           "1e-400",
           "9223372036854775807",
           "9223372036854775808",
           "-9223372036854775808",
           "-9223372036854775809",
           "18446744073709551615",
           "18446744073709551616",
           "+1",
           "0x10",
           "1.0",
           "123456789012345678901234567890",
           "0.1e1",
           "-0.0",
           "[-]",
           "[1e5,1E+5,1e-5]",
           R"("\n\t\r\b\f\/\\\"")",
           R"("\u00e9\u4e2d\ud83d\ude00")",
           R"("\ud800")",
           R"("\udc00")",
           R"("\ud800\u0041")",
           R"("\ud800\udbff")",
           R"("\u12")",
           R"("\u12g4")",
           R"("\x")",
           R"("\)",
           "\"\x01\"",
           "\"\x1f\"",
           "\"\x7f\"",
           "\"\xc3\xa9\"",
           "\"\xc3\"",
           "\"\xc0\x80\"",
           "\"\xc1\xbf\"",
           "\"\xe0\x80\x80\"",
           "\"\xe0\xa0\x80\"",
           "\"\xed\xa0\x80\"",
           "\"\xed\x9f\xbf\"",
           "\"\xf0\x90\x80\x80\"",
           "\"\xf0\x80\x80\x80\"",
           "\"\xf4\x8f\xbf\xbf\"",
           "\"\xf4\x90\x80\x80\"",
           "\"\xf5\x80\x80\x80\"",
           "\"\xff\"",
           "\"\x80\"",
           "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\\\"aaaaaaaaaaaaaaaa\"",
           "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\xc3\xa9zzzzzzzzzzzzzzzzzz\"",
           "{\"k\\u0065y\":\"v\",\"key\":2}",
           "{} {}",
           "{}x",
           "[1]]",
           "{\"a\":1}}",
       }) {
    ExpectAsBoost(doc);
  }
}

TEST(JsonScannerTest, NestingStopsWhereBoostJsonsDefaultLimitDoes) {
  for (int depth : {1, 31, 32, 33, 40}) {
    ExpectAsBoost(std::string(depth, '[') + std::string(depth, ']'));
    std::string objects;
    for (int i = 0; i < depth; ++i) objects += "{\"a\":";
    objects += "1" + std::string(depth, '}');
    ExpectAsBoost(objects);
  }
  DomBuilder dom(true);
  EXPECT_EQ(ScanJson(std::string(33, '[') + std::string(33, ']'), &dom), JsonScanError::kTooDeep);
}

// Random documents, then random damage to them: the scanner must agree with Boost.JSON
// on every one, on whether it is JSON and on what it holds.
class RandomJson {
 public:
  explicit RandomJson(uint32_t seed) : rng_(seed) {}

  std::string Document() {
    std::string out;
    Value(&out, 0);
    return out;
  }

  std::string Damage(std::string doc) {
    static constexpr char kBytes[] = {'"',    '\\',   '{',    '}',    '[',    ']',    ',',
                                      ':',    '\0',   '\x1f', '\x80', '\xc0', '\xe0', '\xed',
                                      '\xf4', '\xf5', '\xff', 'u',    '0',    '-',    'e',
                                      '.',    ' ',    'n',    't',    'd',    '9',    'E'};
    const int edits = 1 + Below(3);
    for (int i = 0; i < edits && !doc.empty(); ++i) {
      const size_t at = static_cast<size_t>(Below(static_cast<int>(doc.size())));
      const char byte = Below(4) == 0 ? static_cast<char>(Below(256))
                                      : kBytes[Below(static_cast<int>(sizeof kBytes))];
      switch (Below(4)) {
        case 0:
          doc[at] = byte;
          break;
        case 1:
          doc.erase(at, 1);
          break;
        case 2:
          doc.insert(doc.begin() + static_cast<std::ptrdiff_t>(at), byte);
          break;
        default:
          doc.resize(at);
          break;
      }
    }
    return doc;
  }

 private:
  int Below(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  void Space(std::string* out) {
    if (Below(5) == 0) *out += std::string_view(" \t\n\r  ").substr(Below(4), 1 + Below(2));
  }

  void Value(std::string* out, int depth) {
    Space(out);
    const int pick = depth > 5 ? 3 + Below(4) : Below(7);
    switch (pick) {
      case 0:
      case 1: {  // an object
        *out += '{';
        const int n = Below(5);
        for (int i = 0; i < n; ++i) {
          if (i > 0) *out += ',';
          Space(out);
          String(out);
          Space(out);
          *out += ':';
          Value(out, depth + 1);
        }
        Space(out);
        *out += '}';
        break;
      }
      case 2: {  // an array
        *out += '[';
        const int n = Below(5);
        for (int i = 0; i < n; ++i) {
          if (i > 0) *out += ',';
          Value(out, depth + 1);
        }
        Space(out);
        *out += ']';
        break;
      }
      case 3:
      case 4:
        String(out);
        break;
      case 5:
        Number(out);
        break;
      default:
        *out += std::array<const char*, 3>{"true", "false", "null"}[Below(3)];
        break;
    }
    Space(out);
  }

  void String(std::string* out) {
    static const char* kPieces[] = {
        "a",
        "text_completion",
        "cmpl-7f3a9",
        " tok",
        "\\n",
        "\\\"",
        "\\\\",
        "\\/",
        "\\t",
        "\\u00e9",
        "\\u4E2D",
        "\\ud83d\\ude00",
        "\xc3\xa9",
        "\xe4\xb8\xad",
        "\xf0\x9f\x98\x80",
        "0123456789abcdef0123",
        " ",
        "\\b\\f\\r",
    };
    *out += '"';
    const int n = Below(6);
    for (int i = 0; i < n; ++i) *out += kPieces[Below(static_cast<int>(std::size(kPieces)))];
    *out += '"';
  }

  void Number(std::string* out) {
    static const char* kNumbers[] = {"0",
                                     "-0",
                                     "7",
                                     "-12",
                                     "1776313047",
                                     "362458400123",
                                     "9223372036854775807",
                                     "9223372036854775808",
                                     "-9223372036854775808",
                                     "-9223372036854775809",
                                     "18446744073709551615",
                                     "18446744073709551616",
                                     "2.5",
                                     "-0.125",
                                     "1e3",
                                     "6.02E+23",
                                     "1.5e-7",
                                     "1e400",
                                     "0.30000000000000004"};
    *out += kNumbers[Below(static_cast<int>(std::size(kNumbers)))];
  }

  std::mt19937 rng_;
};

TEST(JsonScannerTest, RandomAndDamagedDocumentsAreReadAsBoostJsonReadsThem) {
  RandomJson gen(20261203);
  for (int i = 0; i < 4000; ++i) {
    std::string doc = gen.Document();
    ExpectAsBoost(doc);
    for (int k = 0; k < 5; ++k) ExpectAsBoost(gen.Damage(doc));
    if (HasFatalFailure()) return;
  }
}

TEST(JsonScannerTest, AFailureSaysWhereTheScanStopped) {
  size_t at = 0;
  DomBuilder dom(true);
  EXPECT_EQ(ScanJson(R"({"a":1,"b":tru3})", &dom, &at), JsonScanError::kSyntax);
  EXPECT_EQ(at, 14u);  // the '3'
  EXPECT_EQ(ScanJson("{\"a\":\"x\x01\"}", &dom, &at), JsonScanError::kControlChar);
  EXPECT_EQ(at, 7u);
}

}  // namespace
}  // namespace servebench::client
