// Base URL parsing: "http(s)://host[:port][/prefix]". Only what a benchmark needs.
#pragma once

#include <string>

#include "common/status.h"

namespace servebench::net {

struct Url {
  bool tls = false;
  std::string host;
  std::string port;                // "80" / "443" when not given
  std::string path;                // "" or "/prefix" (no trailing slash) for a base URL
  std::string HostHeader() const;  // host[:port] as the Host header wants it
  std::string ToString() const;    // scheme://host[:port][/prefix], as messages show it
};

// Fails on a scheme other than http/https, an empty host or a bad port.
StatusOr<Url> ParseUrl(const std::string& text);

}  // namespace servebench::net
