// Golden acceptance-length tables (data/golden_al/, compiled in): the target AL
// for a (table, model, thinking mode, num_speculative_tokens). Tables are YAML:
//   <model>: { thinking_on: {1: 1.79, 2: 2.39, ...}, thinking_off: {...} }
// read strictly (config_file.h). recipe/ resolves a recipe's golden acceptance with
// them and sim/ its spec-decode acceptance. Thread-safe: tables are parsed once, on
// first use.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace servebench::config {

struct EmbeddedTable {
  const char* name;  // file name without .yaml
  const char* yaml;
};
const std::vector<EmbeddedTable>& EmbeddedGoldenTables();

// model -> thinking mode ("thinking_on" / "thinking_off") -> tokens -> AL.
using GoldenTable = std::map<std::string, std::map<std::string, std::map<int, double>>>;

// Parses one table, named `file` in messages. InvalidArgument listing every problem
// (file:line:column): an unknown thinking mode, a token count that is not an integer
// >= 1, an AL outside [1, tokens + 1].
StatusOr<GoldenTable> ParseGoldenTable(std::string_view yaml, const std::string& file);

// Names of the tables this build carries, sorted.
std::vector<std::string> GoldenTableNames();

// The golden AL, or NotFound naming what exists (tables, models, modes or token
// counts) so the message says what is allowed; InvalidArgument when the table itself
// is malformed.
StatusOr<double> LookupGoldenAl(const std::string& table, const std::string& model, bool thinking,
                                int num_speculative_tokens);

}  // namespace servebench::config
