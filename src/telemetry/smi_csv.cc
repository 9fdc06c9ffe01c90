#include "telemetry/smi_csv.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <regex>

namespace servebench::telemetry {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// The header text without its unit ("power.draw [W]" → "power.draw").
std::string BareName(const std::string& header) {
  std::string name = Lower(header);
  size_t bracket = name.find(" [");
  return bracket == std::string::npos ? name : name.substr(0, bracket);
}

// Local time (or UTC when utc) broken-down → Unix seconds.
std::optional<double> ToUnix(int y, int mo, int d, int h, int mi, double sec, bool utc,
                             int offset_s) {
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = static_cast<int>(std::floor(sec));
  tm.tm_isdst = -1;
  std::time_t t = utc ? timegm(&tm) : mktime(&tm);
  if (t == static_cast<std::time_t>(-1)) return std::nullopt;
  return static_cast<double>(t) - offset_s + (sec - std::floor(sec));
}

}  // namespace

std::vector<std::string> SplitCsvLine(std::string_view line) {
  std::vector<std::string> cells;
  std::string cell;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      cells.emplace_back(Trim(cell));
      cell.clear();
    } else {
      cell += c;
    }
  }
  cells.emplace_back(Trim(cell));
  return cells;
}

std::optional<double> ParseNumberCell(std::string_view cell) {
  std::string c = Lower(Trim(cell));
  if (c.empty() || c == "[n/a]" || c == "n/a" || c == "na" ||
      c.find("not supported") != std::string::npos) {
    return std::nullopt;
  }
  static const std::regex number(R"(-?\d+(?:\.\d+)?)");
  std::smatch m;
  if (!std::regex_search(c, m, number)) return std::nullopt;
  return std::strtod(m.str().c_str(), nullptr);
}

std::optional<double> ParseTimestampCell(std::string_view cell) {
  std::string c(Trim(cell));
  if (c.empty()) return std::nullopt;
  static const std::regex plain(R"(-?\d+(?:\.\d+)?)");
  if (std::regex_match(c, plain)) {
    double n = std::strtod(c.c_str(), nullptr);
    return n > 1e12 ? n / 1000.0 : n;
  }
  // nvidia-smi: 2026/08/22 04:59:01.123 (local); ISO 8601 with optional zone.
  static const std::regex dated(
      R"((\d{4})[/-](\d{2})[/-](\d{2})[T ](\d{2}):(\d{2}):(\d{2}(?:\.\d+)?)(Z|[+-]\d{2}:?\d{2})?)");
  std::smatch m;
  if (!std::regex_match(c, m, dated)) return std::nullopt;
  bool slashes = c[4] == '/';
  if (slashes && m[7].matched) return std::nullopt;
  bool utc = false;
  int offset = 0;
  if (m[7].matched) {
    utc = true;
    std::string z = m[7].str();
    if (z != "Z") {
      int sign = z[0] == '-' ? -1 : 1;
      std::string digits;
      for (char ch : z.substr(1)) {
        if (ch != ':') digits += ch;
      }
      offset = sign * (std::stoi(digits.substr(0, 2)) * 3600 + std::stoi(digits.substr(2, 2)) * 60);
    }
  }
  return ToUnix(std::stoi(m[1]), std::stoi(m[2]), std::stoi(m[3]), std::stoi(m[4]), std::stoi(m[5]),
                std::strtod(m[6].str().c_str(), nullptr), utc, offset);
}

bool SmiCsvParser::IsHeader(std::string_view line) {
  std::vector<std::string> cells = SplitCsvLine(line);
  if (cells.empty()) return false;
  std::string first = Lower(cells.front());
  return first == "timestamp" || first == "gpu";
}

Status SmiCsvParser::SetHeader(std::string_view line, bool need_time, bool need_power) {
  columns_ = SplitCsvLine(line);
  time_ = power_ = gpu_ = uuid_ = energy_ = temp_ = clock_ = util_ = mem_ = -1;
  int hotspot = -1, edge = -1;
  for (int i = 0; i < static_cast<int>(columns_.size()); ++i) {
    std::string h = Lower(columns_[i]);
    std::string bare = BareName(columns_[i]);
    if (time_ < 0 && h.find("time") != std::string::npos) time_ = i;
    static const std::regex excluded("limit|cap|max|min");
    if (power_ < 0 && h.find("power") != std::string::npos && !std::regex_search(h, excluded)) {
      power_ = i;
      power_name_ = columns_[i];
    }
    static const std::regex gpu_names("^(index|gpu|gpu_id|gpu_index|card|device)$");
    if (gpu_ < 0 && std::regex_match(h, gpu_names)) gpu_ = i;
    if (bare == "uuid") uuid_ = i;
    if (bare == "total_energy_consumption") energy_ = i;
    if (bare == "temperature.gpu") temp_ = i;
    if (bare == "hotspot") hotspot = i;
    if (bare == "edge") edge = i;
    if (bare == "clocks.current.sm" || bare == "clocks.sm" || bare == "gfx_0_clk") clock_ = i;
    if (bare == "utilization.gpu" || bare == "gfx_activity") util_ = i;
    if (bare == "memory.used") mem_ = i;
  }
  if (temp_ < 0) temp_ = hotspot >= 0 ? hotspot : edge;
  std::string missing;
  if (need_time && time_ < 0) missing += " a timestamp column (a header containing \"time\")";
  if (need_power && power_ < 0) missing += " a power column (a header containing \"power\")";
  if (gpu_ < 0) missing += " a GPU column (index, gpu, gpu_id, gpu_index, card or device)";
  if (!missing.empty()) {
    columns_.clear();
    return Status::InvalidArgument("telemetry CSV header '" + std::string(line) + "' lacks" +
                                   missing);
  }
  return Status::Ok();
}

std::optional<SmiRow> SmiCsvParser::ParseRow(std::string_view line) const {
  if (columns_.empty() || Trim(line).empty() || IsHeader(line)) return std::nullopt;
  std::vector<std::string> cells = SplitCsvLine(line);
  if (cells.size() < columns_.size()) return std::nullopt;
  SmiRow row;
  auto cell = [&](int i) -> std::optional<double> {
    if (i < 0) return std::nullopt;
    return ParseNumberCell(cells[static_cast<size_t>(i)]);
  };
  if (time_ >= 0) row.unix_s = ParseTimestampCell(cells[static_cast<size_t>(time_)]);
  row.gpu = cells[static_cast<size_t>(gpu_)];
  if (uuid_ >= 0) row.uuid = cells[static_cast<size_t>(uuid_)];
  row.power_w = cell(power_);
  row.energy_j = cell(energy_);
  row.temp_c = cell(temp_);
  row.sm_clock_mhz = cell(clock_);
  row.util_pct = cell(util_);
  row.mem_used_mib = cell(mem_);
  return row;
}

}  // namespace servebench::telemetry
