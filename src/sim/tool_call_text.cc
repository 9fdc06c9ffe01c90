#include "sim/tool_call_text.h"

namespace servebench::sim {

void ToolCallText::Next(int count, bool closes, std::string* out) {
  for (int i = 0; i < count; ++i, ++tokens_) {
    const bool last = closes && i == count - 1;
    if (tokens_ == 0) {
      *out += last ? "{}" : "{\"query\": \"";
      continue;
    }
    word_.clear();
    text_->Next(1, &word_);
    // The word sits inside a JSON string: characters that would end or escape it
    // become spaces, so only the closing (or its absence) decides validity.
    for (char& c : word_) {
      if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) c = ' ';
    }
    *out += word_;
    if (last) *out += "\"}";
  }
}

}  // namespace servebench::sim
