// TlsOptions: how https:// servers are verified (`servebench bench --ssl-ca-cert`,
// `--insecure`). Peers are checked against the system trust store plus
// `ca_cert_file`, with host-name (or IP address) checking, unless `insecure`.
#pragma once

#include <string>

namespace servebench::net {

struct TlsOptions {
  std::string ca_cert_file;  // PEM CAs trusted besides the system store; empty = none
  bool insecure = false;     // no certificate or host-name verification
};

}  // namespace servebench::net
