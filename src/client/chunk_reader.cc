#include "client/chunk_reader.h"

#include <fmt/format.h>

#include <array>
#include <limits>

#include "client/json_scanner.h"

namespace servebench::client {
namespace {

// Where the parser is: the container being read, named by the path that led to it.
enum class Frame : uint8_t {
  kNone,  // outside the document (its root value comes next)
  kRoot,
  kChoices,    // root.choices (an array)
  kChoice,     // one of its objects
  kDelta,      // choice.delta
  kToolCalls,  // delta.tool_calls (an array)
  kToolCall,   // one of its objects
  kFunction,   // tool_call.function
  kUsage,      // root.usage
  kMetrics,    // root.metrics
  kSpec,       // metrics.speculative_decoding
  kOther,      // anything else: skipped
};

// The members read, each meaningful only in one frame (KeyIn below).
enum class Key : uint8_t {
  kNone,
  kChoices,
  kUsage,
  kMetrics,
  kError,
  kObject,
  kSendNs,
  kSimNs,
  kSimArrivalNs,
  kSimTimeScale,
  kText,
  kDelta,
  kFinishReason,
  kContent,
  kReasoningContent,
  kReasoning,
  kToolCalls,
  kIndex,
  kFunction,
  kName,
  kArguments,
  kCompletionTokens,
  kPromptTokens,
  kSpecDecoding,
  kNumSpecSteps,
  kNumDraftTokens,
  kNumAcceptedDraftTokens,
  kMeanAcceptanceLength,
};

Key KeyIn(Frame frame, std::string_view k) {
  switch (frame) {
    case Frame::kRoot:
      if (k == "choices") return Key::kChoices;
      if (k == "usage") return Key::kUsage;
      if (k.starts_with("servebench_")) {
        if (k == "servebench_sim_ns") return Key::kSimNs;
        if (k == "servebench_send_ns") return Key::kSendNs;
        if (k == "servebench_sim_arrival_ns") return Key::kSimArrivalNs;
        if (k == "servebench_sim_time_scale") return Key::kSimTimeScale;
        return Key::kNone;
      }
      if (k == "object") return Key::kObject;
      if (k == "error") return Key::kError;
      if (k == "metrics") return Key::kMetrics;
      return Key::kNone;
    case Frame::kChoice:
      if (k == "text") return Key::kText;
      if (k == "delta") return Key::kDelta;
      if (k == "finish_reason") return Key::kFinishReason;
      return Key::kNone;
    case Frame::kDelta:
      if (k == "content") return Key::kContent;
      if (k == "reasoning_content") return Key::kReasoningContent;
      if (k == "reasoning") return Key::kReasoning;
      if (k == "tool_calls") return Key::kToolCalls;
      return Key::kNone;
    case Frame::kToolCall:
      if (k == "function") return Key::kFunction;
      if (k == "index") return Key::kIndex;
      return Key::kNone;
    case Frame::kFunction:
      if (k == "name") return Key::kName;
      if (k == "arguments") return Key::kArguments;
      return Key::kNone;
    case Frame::kUsage:
      if (k == "completion_tokens") return Key::kCompletionTokens;
      if (k == "prompt_tokens") return Key::kPromptTokens;
      return Key::kNone;
    case Frame::kMetrics:
      return k == "speculative_decoding" ? Key::kSpecDecoding : Key::kNone;
    case Frame::kSpec:
      if (k == "num_spec_steps") return Key::kNumSpecSteps;
      if (k == "num_draft_tokens") return Key::kNumDraftTokens;
      if (k == "num_accepted_draft_tokens") return Key::kNumAcceptedDraftTokens;
      if (k == "mean_acceptance_length") return Key::kMeanAcceptanceLength;
      return Key::kNone;
    default:
      return Key::kNone;
  }
}

// A double as an integer count, truncated as a cast would, but clamped: a cast of a
// value outside int64's range (any double member of a chunk, 1e300 say) is undefined.
int64_t Truncate(double d) {
  if (!(d == d)) return 0;                          // NaN
  constexpr double kTwo63 = 9223372036854775808.0;  // int64 holds [-2^63, 2^63)
  if (d >= kTwo63) return std::numeric_limits<int64_t>::max();
  if (d < -kTwo63) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(d);
}

// The generated text of one choice, kept apart per member so it is appended in the
// documented order whatever order the server wrote the members in.
struct ChoiceText {
  std::string text, content, reasoning_content, reasoning, tool_calls;
  std::string name, arguments;  // of the function being read
  void Clear() {
    for (std::string* s :
         {&text, &content, &reasoning_content, &reasoning, &tool_calls, &name, &arguments}) {
      s->clear();
    }
  }
};

// The channel (metrics::kChannel*) a text string at member `k` of `frame` belongs to;
// 0 for a string that is not generated text.
uint8_t ChannelOf(Frame frame, Key k) {
  switch (frame) {
    case Frame::kChoice:
      return k == Key::kText ? metrics::kChannelContent : 0;
    case Frame::kDelta:
      if (k == Key::kContent) return metrics::kChannelContent;
      if (k == Key::kReasoningContent || k == Key::kReasoning) return metrics::kChannelReasoning;
      return 0;
    case Frame::kFunction:
      return k == Key::kName || k == Key::kArguments ? metrics::kChannelToolCall : 0;
    default:
      return 0;
  }
}

// The events of ScanJson (json_scanner.h), turned into ChunkFacts.
class Handler {
 public:
  Handler(ChunkFacts* facts, std::string* text) : facts_(facts), out_(text) {}

  bool root_was_object() const { return root_was_object_; }

  void ObjectBegin() { Open(true); }
  void ObjectEnd() { Close(); }
  void ArrayBegin() { Open(false); }
  void ArrayEnd() { Close(); }
  void MemberKey(std::string_view k) {
    if (untracked_ == 0) keys_[depth_] = KeyIn(frames_[depth_], k);
  }
  bool WantsString() const { return untracked_ == 0 && WantsContent(); }
  void StringValue(std::string_view v, bool non_empty) {
    if (untracked_ == 0) OnString(v, non_empty);
  }
  void Int(int64_t i) { OnNumber(static_cast<double>(i), i, true); }
  void Uint(uint64_t u) { OnNumber(static_cast<double>(u), static_cast<int64_t>(u), false); }
  void Double(double d) { OnNumber(d, Truncate(d), false); }
  void Bool(bool) { NonNull(); }
  void Null() {}

 private:
  static constexpr int kMaxTracked = 15;  // deeper containers are all kOther

  Frame frame() const { return frames_[depth_]; }
  Key key() const { return keys_[depth_]; }

  // The root's `error` member is an error unless it is null.
  void NonNull() {
    if (frame() == Frame::kRoot && key() == Key::kError) facts_->server_error = true;
  }

  void Open(bool object) {
    Frame parent = frame();
    Key k = key();
    Frame next = Frame::kOther;
    if (parent == Frame::kNone) {
      root_was_object_ = object;
      next = object ? Frame::kRoot : Frame::kOther;
    } else if (parent == Frame::kRoot) {
      NonNull();
      if (k == Key::kChoices && !object) next = Frame::kChoices;
      if (k == Key::kUsage && object) {
        next = Frame::kUsage;
        facts_->has_usage = true;
        facts_->completion_tokens.reset();
        facts_->prompt_tokens.reset();
      }
      if (k == Key::kMetrics && object) next = Frame::kMetrics;
    } else if (parent == Frame::kChoices && object) {
      next = Frame::kChoice;
      if (out_ != nullptr) choice_.Clear();
    } else if (parent == Frame::kChoice && k == Key::kDelta && object) {
      next = Frame::kDelta;
    } else if (parent == Frame::kDelta && k == Key::kToolCalls && !object) {
      next = Frame::kToolCalls;
    } else if (parent == Frame::kToolCalls && object) {
      next = Frame::kToolCall;
      call_ = {};
      call_has_function_ = false;
    } else if (parent == Frame::kToolCall && k == Key::kFunction && object) {
      next = Frame::kFunction;
      call_has_function_ = true;
      if (out_ != nullptr) {
        choice_.name.clear();
        choice_.arguments.clear();
      }
    } else if (parent == Frame::kMetrics && k == Key::kSpecDecoding && object) {
      next = Frame::kSpec;
      facts_->spec.emplace();
    }
    if (depth_ < kMaxTracked) {
      ++depth_;
      frames_[depth_] = next;
      keys_[depth_] = Key::kNone;
    } else {
      ++untracked_;
    }
  }

  void Close() {
    if (untracked_ > 0) {
      --untracked_;
      return;
    }
    Frame closing = frame();
    --depth_;
    if (closing == Frame::kToolCall && call_has_function_) {
      facts_->tool_calls.push_back(std::move(call_));
    }
    if (out_ == nullptr) return;
    if (closing == Frame::kFunction) {
      choice_.tool_calls += choice_.name;
      choice_.tool_calls += choice_.arguments;
    } else if (closing == Frame::kChoice) {
      *out_ += choice_.text;
      *out_ += choice_.content;
      *out_ += choice_.reasoning_content;
      *out_ += choice_.reasoning;
      *out_ += choice_.tool_calls;
    }
  }

  // Whether the current string's characters are needed, not just its length.
  bool WantsContent() const {
    switch (frame()) {
      case Frame::kRoot:
        return key() == Key::kObject;
      case Frame::kChoice:
        return key() == Key::kFinishReason || (out_ != nullptr && key() == Key::kText);
      case Frame::kDelta:
        return out_ != nullptr;
      case Frame::kFunction:
        return out_ != nullptr || key() == Key::kArguments;  // arguments are validated
      default:
        return false;
    }
  }

  // The text member `k` of the current frame, when it is one (else null).
  std::string* TextSlot() {
    switch (frame()) {
      case Frame::kChoice:
        return key() == Key::kText ? &choice_.text : nullptr;
      case Frame::kDelta:
        return key() == Key::kContent            ? &choice_.content
               : key() == Key::kReasoningContent ? &choice_.reasoning_content
               : key() == Key::kReasoning        ? &choice_.reasoning
                                                 : nullptr;
      case Frame::kFunction:
        return key() == Key::kName        ? &choice_.name
               : key() == Key::kArguments ? &choice_.arguments
                                          : nullptr;
      default:
        return nullptr;
    }
  }

  void OnString(std::string_view v, bool non_empty) {
    NonNull();
    if (frame() == Frame::kRoot) {
      if (key() == Key::kObject && v == "error") facts_->server_error = true;
      return;
    }
    if (frame() == Frame::kChoice && key() == Key::kFinishReason) {
      facts_->finish_reason.emplace(v);
      return;
    }
    const uint8_t channel = ChannelOf(frame(), key());
    if (channel == 0) return;
    if (non_empty) facts_->channels |= channel;
    if (frame() == Frame::kFunction && key() == Key::kArguments) call_.arguments.assign(v);
    if (out_ != nullptr) {
      if (std::string* slot = TextSlot()) slot->assign(v);
    }
  }

  // `exact_int` says the number was an int64 (the sim's stamps must be).
  void OnNumber(double d, int64_t i, bool exact_int) {
    NonNull();
    switch (frame()) {
      case Frame::kRoot:
        if (key() == Key::kSimTimeScale) facts_->sim_time_scale = d;
        if (!exact_int) return;
        if (key() == Key::kSendNs) facts_->send_ns = i;
        if (key() == Key::kSimNs) facts_->sim_ns = i;
        if (key() == Key::kSimArrivalNs) facts_->sim_arrival_ns = i;
        return;
      case Frame::kToolCall:
        if (key() == Key::kIndex && exact_int) call_.index = i;
        return;
      case Frame::kUsage:
        if (key() == Key::kCompletionTokens) facts_->completion_tokens = i;
        if (key() == Key::kPromptTokens) facts_->prompt_tokens = i;
        return;
      case Frame::kSpec:
        if (key() == Key::kNumSpecSteps) facts_->spec->num_spec_steps = i;
        if (key() == Key::kNumDraftTokens) facts_->spec->num_draft_tokens = i;
        if (key() == Key::kNumAcceptedDraftTokens) facts_->spec->num_accepted_draft_tokens = i;
        if (key() == Key::kMeanAcceptanceLength) facts_->spec->mean_acceptance_length = d;
        return;
      default:
        return;
    }
  }

  ChunkFacts* facts_;
  std::string* out_;
  std::array<Frame, kMaxTracked + 1> frames_{};  // frames_[0] = kNone: before the root
  std::array<Key, kMaxTracked + 1> keys_{};
  int depth_ = 0;
  int untracked_ = 0;  // open containers deeper than kMaxTracked
  bool root_was_object_ = false;
  ChoiceText choice_;
  ToolCallFragment call_;  // the tool call being read
  bool call_has_function_ = false;
};

}  // namespace

Status ReadChunk(std::string_view data, ChunkFacts* facts, std::string* text) {
  Handler handler(facts, text);
  size_t at = 0;
  if (JsonScanError e = ScanJson(data, &handler, &at); e != JsonScanError::kNone) {
    return Status::InvalidArgument(
        fmt::format("not JSON: {} at byte {}", JsonScanErrorName(e), at));
  }
  if (!handler.root_was_object()) return Status::InvalidArgument("not a JSON object");
  return Status::Ok();
}

}  // namespace servebench::client
