#include "client/prefix_pool.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "common/limits.h"

namespace servebench::client {
namespace {

namespace json = boost::json;

// The layout draws from a stream of its own, so the seed that moves which prompt
// shares which prefix never changes the prompts' tokens, and the other way round.
constexpr uint64_t kLayoutStream = 0x9001'f00d'5eedULL;

// Tokens of a prefix or a suffix: random ids for /v1/completions, or random words fitted
// to the server's count for chat.
Prompt Piece(std::mt19937_64& rng, int64_t len, int64_t vocab, bool chat,
             const TokenCounter& count) {
  Prompt p;
  if (chat) {
    FitText(rng, len, count, p);
    return p;
  }
  p.token_ids.reserve(static_cast<size_t>(len));
  for (int64_t t = 0; t < len; ++t) {
    p.token_ids.push_back(static_cast<int32_t>(100 + rng() % static_cast<uint64_t>(vocab - 100)));
  }
  p.prompt_tokens = len;
  p.prompt_tokens_exact = true;
  return p;
}

}  // namespace

Status ValidatePrefixPool(const PrefixPoolSettings& pool, int64_t num_prompts) {
  auto bad = [](std::string m) { return Status::InvalidArgument(std::move(m)); };
  using limits::kMaxTokensPerRequest;
  const std::pair<const char*, int64_t> lengths[] = {
      {"--prefix-repetition-prefix-len", pool.prefix_len},
      {"--prefix-repetition-suffix-len", pool.suffix_len},
      {"--prefix-repetition-output-len", pool.output_len}};
  for (const auto& [flag, v] : lengths) {
    if (v < 1 || v > kMaxTokensPerRequest) {
      return bad(fmt::format("{} {}: must be 1 .. {} tokens{}", flag, v, kMaxTokensPerRequest,
                             std::string_view(flag).ends_with("suffix-len")
                                 ? " (a fresh suffix keeps every prompt distinct)"
                                 : ""));
    }
  }
  if (pool.prefix_len + pool.suffix_len > kMaxTokensPerRequest) {
    return bad(fmt::format(
        "--prefix-repetition-prefix-len {} + --prefix-repetition-suffix-len {}: a prompt of {} "
        "tokens; at most {}",
        pool.prefix_len, pool.suffix_len, pool.prefix_len + pool.suffix_len, kMaxTokensPerRequest));
  }
  if (!(pool.reuse_ratio >= 0 && pool.reuse_ratio <= 1)) {
    return bad(fmt::format(
        "--prefix-repetition-reuse-ratio {}: must be in [0, 1] (the share of measured prompts "
        "whose prefix is from the pool; 0 = none shares)",
        pool.reuse_ratio));
  }
  if (pool.num_prefixes < 1 || pool.num_prefixes > limits::kMaxPromptsPerRun) {
    return bad(fmt::format("--prefix-repetition-num-prefixes {}: must be 1 .. {}",
                           pool.num_prefixes, limits::kMaxPromptsPerRun));
  }
  const int64_t pooled = PoolPrompts(pool, num_prompts);
  if (pool.reuse_ratio > 0 && pooled < pool.num_prefixes) {
    return bad(fmt::format(
        "--prefix-repetition-num-prefixes {} with {} measured prompts and "
        "--prefix-repetition-reuse-ratio {}: {} prompts share the pool, fewer than its "
        "prefixes; every prefix needs one prompt at least: raise --num-prompts or the ratio, "
        "or use fewer prefixes",
        pool.num_prefixes, num_prompts, pool.reuse_ratio, pooled));
  }
  return Status::Ok();
}

int64_t PoolPrompts(const PrefixPoolSettings& pool, int64_t n) {
  if (n <= 0 || !(pool.reuse_ratio > 0)) return 0;
  return std::clamp<int64_t>(std::llround(pool.reuse_ratio * static_cast<double>(n)), 0, n);
}

std::vector<int> LayOutPrefixPool(const PrefixPoolSettings& pool, int64_t n, std::mt19937_64& rng) {
  std::vector<int> out(static_cast<size_t>(std::max<int64_t>(n, 0)), -1);
  // No pool to share (ValidatePrefixPool refuses it): every prompt has its own prefix.
  const int64_t pooled = pool.num_prefixes > 0 ? PoolPrompts(pool, n) : 0;
  for (int64_t i = 0; i < pooled; ++i) {
    out[static_cast<size_t>(i)] = static_cast<int>(i % pool.num_prefixes);
  }
  std::shuffle(out.begin(), out.end(), rng);
  return out;
}

StatusOr<PromptSet> MakePrefixPoolPrompts(const BenchSettings& s, bool chat,
                                          const TokenCounter& count) {
  const PrefixPoolSettings& pool = s.prefix_pool;
  SB_RETURN_IF_ERROR(ValidatePrefixPool(pool, s.num_prompts));
  std::mt19937_64 rng(s.seed);
  std::mt19937_64 layout_rng(s.seed ^ kLayoutStream);
  const int64_t vocab = std::max<int64_t>(s.random_vocab_size, 200);
  const bool pooled = PoolPrompts(pool, s.num_prompts) > 0;
  std::vector<Prompt> prefixes;
  for (int64_t k = 0; pooled && k < pool.num_prefixes; ++k) {
    prefixes.push_back(Piece(rng, pool.prefix_len, vocab, chat, count));
  }
  // One prompt: `prefix` and a fresh suffix.
  auto compose = [&](const Prompt& prefix, int group, int64_t max_tokens) {
    Prompt suffix = Piece(rng, pool.suffix_len, vocab, chat, count);
    Prompt p;
    p.prefix_group = group;
    p.prefix_tokens = prefix.prompt_tokens;
    p.max_tokens = max_tokens;
    p.prompt_tokens = prefix.prompt_tokens + suffix.prompt_tokens;
    p.prompt_tokens_exact = prefix.prompt_tokens_exact && suffix.prompt_tokens_exact;
    if (chat) {
      // One user message "prefix suffix" (request_builder.h): counted again whole, since
      // a tokenizer may join the two parts' boundary differently.
      p.prefix_text = prefix.text;
      p.text = std::move(suffix.text);
      if (std::optional<int64_t> n = count ? count(p.prefix_text + " " + p.text) : std::nullopt) {
        p.prompt_tokens = *n;
      }
    } else {
      p.token_ids = prefix.token_ids;
      p.token_ids.insert(p.token_ids.end(), suffix.token_ids.begin(), suffix.token_ids.end());
    }
    return p;
  };
  PromptSet set;
  const std::vector<int> layout = LayOutPrefixPool(pool, s.num_prompts, layout_rng);
  set.measured.reserve(layout.size());
  for (int group : layout) {
    if (group >= 0) {
      set.measured.push_back(compose(prefixes[static_cast<size_t>(group)], group, pool.output_len));
    } else {
      set.measured.push_back(
          compose(Piece(rng, pool.prefix_len, vocab, chat, count), -1, pool.output_len));
    }
  }
  // Warm-ups have prefixes of their own: the measured phase's hits come from the primers
  // alone, whatever --num-warmups says.
  for (int64_t i = 0; i < s.num_warmups; ++i) {
    set.warmups.push_back(
        compose(Piece(rng, pool.prefix_len, vocab, chat, count), -1, pool.output_len));
  }
  // One token each: a primer only has to get its prefix computed and cached.
  for (size_t k = 0; k < prefixes.size(); ++k) {
    set.primers.push_back(compose(prefixes[k], static_cast<int>(k), 1));
  }
  set.note = fmt::format(
      "prefix pool: {} prefixes of {} tokens shared by {} of {} prompts, {}-token suffixes, {}",
      prefixes.size(), pool.prefix_len, PoolPrompts(pool, s.num_prompts), s.num_prompts,
      pool.suffix_len,
      !chat   ? "random token ids"
      : count ? "random text fitted with the server's /tokenize"
              : "random text, one word per token (estimate; no /tokenize)");
  return set;
}

json::object PrefixPoolReport(const BenchSettings& s, const std::vector<PoolPromptInfo>& prompts,
                              bool chat, int64_t primers,
                              const std::vector<metrics::RequestRecord>& records,
                              const std::optional<PrefixCacheSide>& server,
                              metrics::Validity* validity) {
  const PrefixPoolSettings& pool = s.prefix_pool;
  const int64_t block = std::max<int64_t>(s.engine_block_tokens, 1);
  json::object o;
  // Measured prompts per pool prefix, as laid out (empty without a pool).
  std::vector<int64_t> sizes(primers > 0 ? static_cast<size_t>(pool.num_prefixes) : 0, 0);
  for (const PoolPromptInfo& p : prompts) {
    if (p.prefix_group >= 0 && static_cast<size_t>(p.prefix_group) < sizes.size()) {
      ++sizes[static_cast<size_t>(p.prefix_group)];
    }
  }
  json::array group_sizes(sizes.begin(), sizes.end());
  o["pool"] =
      json::object{{"num_prefixes", pool.num_prefixes},
                   {"prefix_len", pool.prefix_len},
                   {"suffix_len", pool.suffix_len},
                   {"output_len", pool.output_len},
                   {"reuse_ratio", pool.reuse_ratio},
                   {"pool_prompts", PoolPrompts(pool, static_cast<int64_t>(prompts.size()))},
                   {"group_sizes", std::move(group_sizes)},
                   {"primers", primers}};
  o["engine_block_tokens"] = block;

  // Over the measured requests that completed, each with the prompt length the server
  // counted (its usage, else the client's count).
  int64_t requests = 0, pool_requests = 0, prompt_tokens = 0, pool_prefix_tokens = 0,
          hit_tokens = 0;
  for (const metrics::RequestRecord& r : records) {
    if (r.warmup || !r.ok() || r.index < 0 || r.index >= static_cast<int64_t>(prompts.size())) {
      continue;
    }
    const PoolPromptInfo& p = prompts[static_cast<size_t>(r.index)];
    const int64_t n = metrics::ResolvePromptTokens(r).n;
    ++requests;
    prompt_tokens += n;
    if (p.prefix_group < 0) continue;
    ++pool_requests;
    pool_prefix_tokens += p.prefix_tokens;
    // Whole blocks of the prefix, and never the prompt's last token (vLLM computes it).
    hit_tokens += std::min(p.prefix_tokens / block, std::max<int64_t>(n - 1, 0) / block) * block;
  }
  auto share = [](int64_t a, int64_t b) {
    return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0.0;
  };
  const double expected_rate = share(hit_tokens, prompt_tokens);
  o["expected"] = json::object{
      {"requests", requests},
      {"pool_requests", pool_requests},
      // The share of measured requests whose prefix is from the pool: the configured
      // ratio as realised (it differs from it by the rounding of one prompt at most).
      {"pool_reuse", HitFraction(share(pool_requests, requests))},
      {"prompt_tokens", prompt_tokens},
      {"hit_tokens", hit_tokens},
      // Pool prefix tokens over prompt tokens, before block rounding: what a cache of
      // one-token blocks would hit.
      {"token_fraction_unrounded", HitFraction(share(pool_prefix_tokens, prompt_tokens))},
      {"token_fraction_infinite", HitFraction(expected_rate)},
      // Text: the chat template's tokens before the prefix move the block boundary.
      {"exact", !chat}};
  o["tolerance"] = s.prefix_hit_tolerance;
  ExpectedHits expected{expected_rate, prompt_tokens > 0,
                        "the primed prefix pool against an infinite cache",
                        "the engine evicted pool prefixes (a KV pool smaller than the prefixes "
                        "and the requests in flight) or does not cache them"};
  std::optional<double> server_rate =
      CompareServerHits(server, expected, s.prefix_hit_tolerance, &o, validity);
  if (server_rate && hit_tokens > 0) {
    // The share of measured requests the server served from the pool: its hit tokens
    // over the hits one pool request gives, over the requests.
    json::object& side = o["server"].as_object();
    const double server_hits = side["hit_tokens"].to_number<double>();
    side["pool_reuse"] =
        HitFraction(server_hits / static_cast<double>(hit_tokens) * share(pool_requests, requests));
  }
  return o;
}

}  // namespace servebench::client
