// The CSV that `nvidia-smi --query-gpu=… --format=csv` and `amd-smi metric … --csv`
// print (reference power.md §1.1, §1.4), parsed the way InferenceX's
// aggregate_power.py reads it: columns found by name (timestamp = first header
// containing "time"; power = first containing "power" but none of limit, cap, max,
// min; GPU = a header exactly index, gpu, gpu_id, gpu_index, card or device),
// cells split on commas outside quotes, the power cell's first number taken.
// Pure functions and a small stateful parser; not thread-safe (one per stream).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace servebench::telemetry {

// Splits one CSV line: commas outside double quotes separate cells; each cell is
// trimmed of spaces; quotes around a cell are removed.
std::vector<std::string> SplitCsvLine(std::string_view line);

// The first number in a cell ("612.45 W" → 612.45); nullopt for "[N/A]", "N/A",
// "[Not Supported]", empty or a cell without a number.
std::optional<double> ParseNumberCell(std::string_view cell);

// A timestamp cell as Unix seconds: a plain number is epoch seconds (milliseconds
// when above 1e12); "YYYY/MM/DD HH:MM:SS[.fff]" (nvidia-smi) and ISO 8601
// "YYYY-MM-DD[T ]HH:MM:SS[.fff][Z|±HH:MM]" are local time unless they carry a zone.
// nullopt when it does not parse.
std::optional<double> ParseTimestampCell(std::string_view cell);

// One data row.
struct SmiRow {
  std::optional<double> unix_s;  // nullopt: the timestamp did not parse
  std::string gpu;               // the GPU-id column
  std::string uuid;              // "uuid" column when present
  std::optional<double> power_w, energy_j, temp_c, sm_clock_mhz, util_pct, mem_used_mib;
};

class SmiCsvParser {
 public:
  // True when `line` is a header (its first cell is "timestamp" or "gpu").
  static bool IsHeader(std::string_view line);
  // Reads the columns. Fails naming what is missing (a time, power or GPU column).
  // `need_time` false for the amd-smi energy snapshot, which has no timestamp.
  Status SetHeader(std::string_view line, bool need_time = true, bool need_power = true);
  bool has_header() const { return !columns_.empty(); }
  // The power column's header text ("power.draw [W]", "socket_power").
  const std::string& power_column() const { return power_name_; }
  // Parses a data row; nullopt for a line that is not one (blank, preamble, a
  // repeated header, too few cells).
  std::optional<SmiRow> ParseRow(std::string_view line) const;

 private:
  std::vector<std::string> columns_;
  int time_ = -1, power_ = -1, gpu_ = -1, uuid_ = -1, energy_ = -1, temp_ = -1, clock_ = -1,
      util_ = -1, mem_ = -1;
  std::string power_name_;
};

}  // namespace servebench::telemetry
