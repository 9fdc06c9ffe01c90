#include "client/dataset.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <cmath>
#include <random>

#include "client/conversation_dataset.h"
#include "client/length_mixture.h"
#include "client/prefix_pool.h"
#include "common/atomic_file.h"
#include "common/jsonl.h"
#include "common/limits.h"

namespace servebench::client {
namespace {

namespace json = boost::json;

// Text tokens for chat prompts: short common words, each usually one token in
// BPE vocabularies; /tokenize then corrects the count exactly.
constexpr const char* kWords[] = {
    "the",   "of",     "and",   "to",    "in",    "is",    "it",    "that",  "for",   "on",
    "was",   "with",   "as",    "at",    "by",    "be",    "this",  "from",  "or",    "an",
    "are",   "not",    "but",   "have",  "one",   "all",   "can",   "new",   "time",  "data",
    "model", "system", "token", "cloud", "light", "river", "stone", "green", "paper", "music",
    "water", "field",  "table", "house", "point", "line"};
constexpr size_t kNumWords = sizeof(kWords) / sizeof(kWords[0]);

}  // namespace

// The first w words of one random word sequence, w corrected by the observed
// tokens-per-word ratio and then stepped by one word, a few rounds at most.
void FitText(std::mt19937_64& rng, int64_t target, const TokenCounter& count, Prompt& p) {
  std::vector<const char*> seq;
  auto text_of = [&](int64_t w) {
    while (static_cast<int64_t>(seq.size()) < w) seq.push_back(kWords[rng() % kNumWords]);
    std::string t;
    t.reserve(static_cast<size_t>(w) * 6);
    for (int64_t i = 0; i < w; ++i) {
      if (i) t.push_back(' ');
      t += seq[static_cast<size_t>(i)];
    }
    return t;
  };
  int64_t words = std::max<int64_t>(target, 1);
  if (!count) {
    p.text = text_of(words);
    p.prompt_tokens = target;  // estimate: one token per word
    return;
  }
  int64_t best_words = words, best_count = -1;
  for (int round = 0; round < 8; ++round) {
    std::optional<int64_t> n = count(text_of(words));
    if (!n) break;
    if (best_count < 0 || std::llabs(*n - target) < std::llabs(best_count - target)) {
      best_words = words;
      best_count = *n;
    }
    if (*n == target || *n <= 0) break;
    int64_t scaled = static_cast<int64_t>(std::llround(static_cast<double>(words) * target / *n));
    if (scaled == words) scaled += *n < target ? 1 : -1;
    words = std::max<int64_t>(1, scaled);
  }
  p.text = text_of(best_words);
  p.prompt_tokens = best_count >= 0 ? best_count : target;
  p.prompt_tokens_exact = best_count == target;
}

namespace {

StatusOr<std::vector<Prompt>> RandomPrompts(const BenchSettings& s, bool chat, int64_t total,
                                            const TokenCounter& count, std::string* note) {
  std::mt19937_64 rng(s.seed);
  std::vector<Prompt> out;
  out.reserve(static_cast<size_t>(total));
  int64_t vocab = std::max<int64_t>(s.random_vocab_size, 200);
  std::vector<int32_t> prefix_ids;
  std::string prefix_text;
  Prompt prefix_probe;
  if (s.random_prefix_len > 0) {
    if (chat) {
      FitText(rng, s.random_prefix_len, count, prefix_probe);
      prefix_text = prefix_probe.text;
    } else {
      for (int64_t i = 0; i < s.random_prefix_len; ++i) {
        prefix_ids.push_back(static_cast<int32_t>(100 + rng() % (vocab - 100)));
      }
    }
  }
  // A length mixture: the measured prompts get the components' shares exactly, the
  // warm-ups theirs too (their own assignment), from a stream of their own.
  std::vector<int> component;
  const std::vector<SequenceComponent>& mix = s.sequence_distribution;
  if (!mix.empty()) {
    std::mt19937_64 mix_rng(s.seed ^ 0x6d17'5eedULL);
    int64_t measured = std::min<int64_t>(s.num_prompts, total);
    component = AssignComponents(mix, measured, mix_rng);
    std::vector<int> warm = AssignComponents(mix, total - measured, mix_rng);
    component.insert(component.end(), warm.begin(), warm.end());
  }
  for (int64_t i = 0; i < total; ++i) {
    Prompt p;
    int64_t in_len = 0;
    if (!component.empty()) {
      p.component = component[static_cast<size_t>(i)];
      const SequenceComponent& c = mix[static_cast<size_t>(p.component)];
      in_len = DrawLength(c.isl, c.isl_stddev, rng);
      p.max_tokens = DrawLength(c.osl, c.osl_stddev, rng);
    } else {
      in_len =
          SampleLength(s.random_input_len, s.random_range_ratio, s.range_ratio_semantics, rng());
      p.max_tokens =
          SampleLength(s.random_output_len, s.random_range_ratio, s.range_ratio_semantics, rng());
    }
    if (chat) {
      FitText(rng, in_len, count, p);
      p.prefix_text = prefix_text;
      p.prompt_tokens += prefix_probe.prompt_tokens;
    } else {
      p.token_ids = prefix_ids;
      p.token_ids.reserve(prefix_ids.size() + static_cast<size_t>(in_len));
      for (int64_t t = 0; t < in_len; ++t) {
        p.token_ids.push_back(static_cast<int32_t>(100 + rng() % (vocab - 100)));
      }
      p.prompt_tokens = static_cast<int64_t>(p.token_ids.size());
      p.prompt_tokens_exact = true;
    }
    out.push_back(std::move(p));
  }
  *note = chat ? (count ? "random text fitted with the server's /tokenize"
                        : "random text, one word per token (estimate; no /tokenize)")
               : "random token ids";
  return out;
}

int64_t EstimateTokens(std::string_view text) {
  return std::max<int64_t>(1, static_cast<int64_t>(text.size() + 3) / 4);
}

StatusOr<std::vector<Prompt>> CustomPrompts(const BenchSettings& s, const TokenCounter& count) {
  constexpr std::string_view kLine =
      "each line must be a JSON object with a string \"prompt\" (and optional integer "
      "\"output_tokens\")";
  std::vector<Prompt> out;
  SB_RETURN_IF_ERROR(
      ForEachJsonlObject(s.dataset_path, kLine, [&](size_t, const json::object& line) -> Status {
        const json::value* prompt = line.if_contains("prompt");
        if (prompt == nullptr || !prompt->is_string()) {
          return Status::InvalidArgument(std::string(kLine));
        }
        Prompt p;
        p.text = std::string(prompt->get_string());
        p.max_tokens = s.custom_output_len;
        if (const json::value* o = line.if_contains("output_tokens"); o && o->is_int64()) {
          p.max_tokens = o->get_int64();
        }
        std::optional<int64_t> n = count ? count(p.text) : std::nullopt;
        p.prompt_tokens = n.value_or(EstimateTokens(p.text));
        p.prompt_tokens_exact = n.has_value();
        out.push_back(std::move(p));
        return Status::Ok();
      }));
  return out;
}

StatusOr<std::vector<Prompt>> ShareGptPrompts(const BenchSettings& s, const TokenCounter& count) {
  SB_ASSIGN_OR_RETURN(std::string data, ReadFile(s.dataset_path, limits::kMaxDatasetBytes));
  json::error_code ec;
  json::value v = json::parse(data, ec);
  if (ec || !v.is_array()) {
    return Status::InvalidArgument(s.dataset_path +
                                   ": a ShareGPT file is a JSON array of {\"conversations\": "
                                   "[{\"from\", \"value\"}, ...]}");
  }
  std::vector<Prompt> out;
  for (const json::value& row : v.get_array()) {
    if (!row.is_object()) continue;
    const json::value* conv = row.get_object().if_contains("conversations");
    if (conv == nullptr || !conv->is_array() || conv->get_array().size() < 2) continue;
    const json::array& turns = conv->get_array();
    auto value_of = [](const json::value& t) -> std::optional<std::string> {
      if (!t.is_object()) return std::nullopt;
      const json::value* val = t.get_object().if_contains("value");
      if (val == nullptr || !val->is_string()) return std::nullopt;
      return std::string(val->get_string());
    };
    std::optional<std::string> human = value_of(turns[0]);
    std::optional<std::string> gpt = value_of(turns[1]);
    if (!human || !gpt || human->empty()) continue;
    Prompt p;
    p.text = *human;
    std::optional<int64_t> n = count ? count(p.text) : std::nullopt;
    p.prompt_tokens = n.value_or(EstimateTokens(p.text));
    p.prompt_tokens_exact = n.has_value();
    std::optional<int64_t> out_n = count ? count(*gpt) : std::nullopt;
    p.max_tokens = std::max<int64_t>(1, out_n.value_or(EstimateTokens(*gpt)));
    out.push_back(std::move(p));
  }
  if (out.empty()) {
    return Status::InvalidArgument(s.dataset_path + ": no conversation with two turns found");
  }
  return out;
}

// speed_bench / spec_bench: one prompt per row, its first user turn as text. The chat
// endpoint wraps it in a user message, so the server applies the model's own chat
// template; /v1/completions sends it as it is (docs/bench.md "SPEED-Bench and Spec-Bench").
StatusOr<std::vector<Prompt>> ConversationPrompts(const BenchSettings& s, const TokenCounter& count,
                                                  PromptSet* set) {
  const bool speed = s.dataset_name == "speed_bench";
  SB_ASSIGN_OR_RETURN(
      std::vector<ConversationRow> rows,
      speed ? LoadSpeedBench(s.dataset_path, s.speed_bench_subset, s.speed_bench_category)
            : LoadSpecBench(s.dataset_path, s.spec_bench_category));
  std::vector<Prompt> out;
  out.reserve(rows.size());
  for (ConversationRow& row : rows) {
    Prompt p;
    p.text = std::move(row.turns.front());
    p.category = std::move(row.category);
    p.max_tokens = speed ? s.speed_bench_output_len : s.spec_bench_output_len;
    std::optional<int64_t> n = count ? count(p.text) : std::nullopt;
    p.prompt_tokens = n.value_or(EstimateTokens(p.text));
    p.prompt_tokens_exact = n.has_value();
    if (row.turns.size() > 1) ++set->multi_turn_rows;
    out.push_back(std::move(p));
  }
  set->conversation_rows = static_cast<int64_t>(out.size());
  return out;
}

}  // namespace

int64_t SampleLength(int64_t base, double ratio, RangeRatioSemantics semantics,
                     uint64_t random_bits) {
  if (ratio <= 0 && semantics == RangeRatioSemantics::kVllm) return base;
  double lo, hi;
  if (semantics == RangeRatioSemantics::kVllm) {
    lo = std::floor(base * (1.0 - ratio));
    hi = std::ceil(base * (1.0 + ratio));
  } else {
    if (ratio >= 1.0) return base;
    lo = std::floor(base * ratio);
    hi = static_cast<double>(base);
  }
  int64_t ilo = std::max<int64_t>(1, static_cast<int64_t>(lo));
  int64_t ihi = std::max<int64_t>(ilo, static_cast<int64_t>(hi));
  return ilo + static_cast<int64_t>(random_bits % static_cast<uint64_t>(ihi - ilo + 1));
}

StatusOr<PromptSet> MakePrompts(const BenchSettings& s, bool chat, const TokenCounter& count) {
  if (s.dataset_name == kPrefixPoolDataset) return MakePrefixPoolPrompts(s, chat, count);
  int64_t total = s.num_prompts + s.num_warmups;
  std::vector<Prompt> all;
  PromptSet set;
  if (s.dataset_name == "random") {
    SB_ASSIGN_OR_RETURN(all, RandomPrompts(s, chat, total, count, &set.note));
  } else if (s.dataset_name == "custom" || s.dataset_name == "sharegpt" ||
             s.dataset_name == "speed_bench" || s.dataset_name == "spec_bench") {
    if (s.dataset_path.empty()) {
      return Status::InvalidArgument("--dataset-name " + s.dataset_name +
                                     " needs --dataset-path (a JSONL/JSON file)");
    }
    std::string file = s.dataset_path;
    if (s.dataset_name == "custom") {
      SB_ASSIGN_OR_RETURN(all, CustomPrompts(s, count));
    } else if (s.dataset_name == "sharegpt") {
      SB_ASSIGN_OR_RETURN(all, ShareGptPrompts(s, count));
    } else {
      SB_ASSIGN_OR_RETURN(all, ConversationPrompts(s, count, &set));
      if (s.dataset_name == "speed_bench")
        file = SpeedBenchFile(s.dataset_path, s.speed_bench_subset);
    }
    set.note =
        s.dataset_name + " file " + file +
        (count ? " (lengths from the server's /tokenize)" : " (lengths estimated as bytes/4)");
    if (set.multi_turn_rows > 0) {
      set.note +=
          fmt::format("; first user turn of each row sent, {} of {} rows had follow-up turns",
                      set.multi_turn_rows, set.conversation_rows);
    }
    // Shuffle once for the seed, as vLLM samples, then cycle when the file is short.
    std::mt19937_64 rng(s.seed);
    std::shuffle(all.begin(), all.end(), rng);
    size_t base = all.size();
    if (static_cast<int64_t>(base) < total) {
      set.note += fmt::format("; {} rows reused cyclically for {} prompts", base, total);
      for (size_t i = base; static_cast<int64_t>(i) < total; ++i) all.push_back(all[i % base]);
    }
    all.resize(static_cast<size_t>(total));
  } else {
    return Status::InvalidArgument("--dataset-name '" + s.dataset_name + "': must be " +
                                   DatasetNamesText());
  }
  set.measured.assign(std::make_move_iterator(all.begin()),
                      std::make_move_iterator(all.begin() + s.num_prompts));
  set.warmups.assign(std::make_move_iterator(all.begin() + s.num_prompts),
                     std::make_move_iterator(all.end()));
  return set;
}

}  // namespace servebench::client
