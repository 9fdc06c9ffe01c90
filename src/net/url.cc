#include "net/url.h"

#include <cstdlib>

namespace servebench::net {

std::string Url::HostHeader() const {
  bool default_port = (tls && port == "443") || (!tls && port == "80");
  std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return default_port ? h : h + ":" + port;
}

std::string Url::ToString() const { return (tls ? "https://" : "http://") + HostHeader() + path; }

StatusOr<Url> ParseUrl(const std::string& text) {
  Url url;
  std::string rest;
  if (text.rfind("http://", 0) == 0) {
    rest = text.substr(7);
  } else if (text.rfind("https://", 0) == 0) {
    url.tls = true;
    rest = text.substr(8);
  } else {
    return Status::InvalidArgument(
        "URL '" + text + "': must start with http:// or https:// (e.g. http://127.0.0.1:8000)");
  }
  size_t slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  url.path = slash == std::string::npos ? "" : rest.substr(slash);
  while (!url.path.empty() && url.path.back() == '/') url.path.pop_back();
  if (!authority.empty() && authority[0] == '[') {  // [::1]:8000
    size_t close = authority.find(']');
    if (close == std::string::npos)
      return Status::InvalidArgument("URL '" + text + "': unclosed '['");
    url.host = authority.substr(1, close - 1);
    if (close + 1 < authority.size() && authority[close + 1] == ':')
      url.port = authority.substr(close + 2);
  } else if (size_t colon = authority.rfind(':'); colon != std::string::npos) {
    url.host = authority.substr(0, colon);
    url.port = authority.substr(colon + 1);
  } else {
    url.host = authority;
  }
  if (url.host.empty()) return Status::InvalidArgument("URL '" + text + "': no host");
  if (url.port.empty()) url.port = url.tls ? "443" : "80";
  char* end = nullptr;
  long port = std::strtol(url.port.c_str(), &end, 10);
  if (*end != '\0' || port <= 0 || port > 65535) {
    return Status::InvalidArgument("URL '" + text + "': port '" + url.port + "' is not 1-65535");
  }
  return url;
}

}  // namespace servebench::net
