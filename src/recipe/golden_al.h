// Golden acceptance-length tables (data/golden_al/, compiled in): the target AL
// for a (table, model, thinking mode, num_speculative_tokens). Tables are YAML:
//   <model>: { thinking_on: {1: 1.79, 2: 2.39, ...}, thinking_off: {...} }
// Thread-safe: tables are parsed once, on first use.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace servebench::recipe {

struct EmbeddedTable {
  const char* name;  // file name without .yaml
  const char* yaml;
};
const std::vector<EmbeddedTable>& EmbeddedGoldenTables();

// Names of the tables this build carries, sorted.
std::vector<std::string> GoldenTableNames();

// The golden AL, or NotFound naming what exists (tables, models, modes or token
// counts) so the message says what is allowed.
StatusOr<double> LookupGoldenAl(const std::string& table, const std::string& model, bool thinking,
                                int num_speculative_tokens);

}  // namespace servebench::recipe
