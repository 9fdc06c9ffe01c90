#include "common/jsonl.h"

#include <fmt/format.h>

#include "common/atomic_file.h"
#include "common/limits.h"

namespace servebench {

Status ForEachJsonlObject(const std::string& path, std::string_view what,
                          const JsonlLine& on_line) {
  SB_ASSIGN_OR_RETURN(std::string text, ReadFile(path, limits::kMaxDatasetBytes));
  size_t line_number = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + pos, end - pos);
    pos = end + 1;
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    boost::system::error_code ec;
    boost::json::value value = boost::json::parse(line, ec);
    if (ec || !value.is_object()) {
      return Status::InvalidArgument(
          fmt::format("{}:{}: not a JSON object ({})", path, line_number, what));
    }
    Status status = on_line(line_number, value.get_object());
    if (!status.ok()) return status.WithContext(fmt::format("{}:{}", path, line_number));
  }
  return Status::Ok();
}

}  // namespace servebench
