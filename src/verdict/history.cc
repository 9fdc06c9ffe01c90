#include "verdict/history.h"

namespace servebench::verdict {

std::string_view NightStatusName(NightStatus status) {
  switch (status) {
    case NightStatus::kOk:
      return "ok";
    case NightStatus::kFailed:
      return "failed";
    case NightStatus::kInvalid:
      return "invalid";
    case NightStatus::kBlocked:
      return "blocked";
  }
  return "?";
}

}  // namespace servebench::verdict
