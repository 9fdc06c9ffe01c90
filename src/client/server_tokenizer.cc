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

std::optional<ChatTokenization> ParseTokenization(std::string_view body, bool nonempty) {
  json::error_code ec;
  json::value v = json::parse(body, ec);
  if (ec || !v.is_object()) return std::nullopt;
  std::optional<int64_t> n = ParseTokenizeCount(body, nonempty ? "x" : "");
  if (!n) return std::nullopt;
  ChatTokenization out;
  out.count = *n;
  if (const json::value* t = v.get_object().if_contains("tokens"); t && t->is_array()) {
    for (const json::value& id : t->get_array()) {
      if (!id.is_int64()) return std::nullopt;
      out.tokens.push_back(id.get_int64());
    }
    if (static_cast<int64_t>(out.tokens.size()) != out.count) out.tokens.clear();
  }
  return out;
}

ChatTokenizer ProbeChatTokenizer(const Url& url, const std::string& model, const TlsOptions& tls,
                                 std::string* note) {
  ChatTokenizer tokenize =
      [url, model, tls](const std::string& messages_json) -> std::optional<ChatTokenization> {
    json::error_code ec;
    json::value messages = json::parse(messages_json, ec);
    if (ec) return std::nullopt;
    json::object req{{"model", model}, {"messages", std::move(messages)}};
    StatusOr<net::HttpReply> reply =
        net::HttpFetch(url, "/tokenize", json::serialize(req), kTokenizeTimeoutS, {}, tls);
    if (!reply.ok() || reply->status != 200) return std::nullopt;
    return ParseTokenization(reply->body, /*nonempty=*/true);
  };
  if (!tokenize(R"([{"role":"user","content":"hello world"}])")) {
    *note =
        "no /tokenize that takes chat messages ({\"model\", \"messages\"}: vLLM, SGLang, "
        "servebench sim)";
    return {};
  }
  *note = "the server's /tokenize of chat messages ({\"model\", \"messages\"})";
  return tokenize;
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
