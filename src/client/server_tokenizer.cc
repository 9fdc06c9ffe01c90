#include "client/server_tokenizer.h"

#include <fmt/format.h>

#include <boost/json.hpp>

#include "net/http_fetch.h"

namespace servebench::client {
namespace {

namespace json = boost::json;
using net::TlsOptions;
using net::Url;

constexpr double kTokenizeTimeoutS = 30;
constexpr const char* kProbeText = "hello world";

std::optional<int64_t> CountWith(const TokenizeShape& shape, const Url& url,
                                 const std::string& model, const TlsOptions& tls,
                                 const std::string& text) {
  json::object req;
  if (shape.send_model) req["model"] = model;
  req[shape.text_field] = text;
  StatusOr<net::HttpReply> reply =
      net::HttpFetch(url, "/tokenize", json::serialize(req), kTokenizeTimeoutS, {}, tls);
  if (!reply.ok() || reply->status != 200) return std::nullopt;
  return ParseTokenizeCount(reply->body, text);
}

}  // namespace

std::optional<int64_t> ParseTokenizeCount(std::string_view body, std::string_view text) {
  json::error_code ec;
  json::value v = json::parse(body, ec);
  if (ec || !v.is_object()) return std::nullopt;
  std::optional<int64_t> n;
  if (const json::value* c = v.get_object().if_contains("count"); c && c->is_int64()) {
    n = c->get_int64();
  } else if (const json::value* t = v.get_object().if_contains("tokens"); t && t->is_array()) {
    n = static_cast<int64_t>(t->get_array().size());
  }
  if (n && (*n < 0 || (*n == 0 && !text.empty()))) return std::nullopt;
  return n;
}

ServerTokenizer ProbeServerTokenizer(const Url& url, const std::string& model,
                                     const TlsOptions& tls) {
  ServerTokenizer out;
  for (const TokenizeShape& shape : kTokenizeShapes) {
    if (!CountWith(shape, url, model, tls, kProbeText)) continue;
    out.shape = &shape;
    out.count = [&shape, url, model, tls](const std::string& text) {
      return CountWith(shape, url, model, tls, text);
    };
    out.note = fmt::format("the server's /tokenize ({} shape: {{\"{}\": text}})", shape.name,
                           shape.text_field);
    return out;
  }
  out.note = "no /tokenize that counts (tried the vllm and llamacpp shapes)";
  return out;
}

}  // namespace servebench::client
