#include "engine/llamacpp/random_llama_model.h"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "common/splitmix64.h"

namespace servebench::engine::llamacpp {
namespace {

constexpr int32_t kTokenTypeNormal = 1;
constexpr int32_t kTokenTypeByte = 6;
constexpr float kRmsEpsilon = 1e-5f;
constexpr const char* kChatTemplate =
    "{% for message in messages %}{{ message['role'] }}: {{ message['content'] }}\n"
    "{% endfor %}{% if add_generation_prompt %}assistant: {% endif %}";

// Uniform in [-1, 1) from the top 24 bits of one draw.
float Symmetric(SplitMix64& rng) {
  return static_cast<float>(rng.Next() >> 40) / 8388608.0f - 1.0f;
}

// Each tensor's values depend only on the seed and its name, so a draft's blocks
// equal its target's without generating the target.
std::vector<float> RandomValues(uint64_t seed, const std::string& name, size_t n, float scale) {
  SplitMix64 rng(seed ^ Fnv1a64(name));
  std::vector<float> v(n);
  for (float& x : v) x = Symmetric(rng) * scale;
  return v;
}

std::string Encode(GgmlType type, const std::vector<float>& values) {
  switch (type) {
    case GgmlType::kF32:
      return EncodeF32(values);
    case GgmlType::kF16:
      return EncodeF16(values);
    case GgmlType::kQ8_0:
      return EncodeQ8_0(values);
  }
  return {};
}

Status CheckSpec(const LlamaModelSpec& s) {
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument(fmt::format("model spec {}: {}", s.name, why));
  };
  if (s.embedding == 0 || s.blocks == 0 || s.heads == 0 || s.feed_forward == 0) {
    return bad("embedding, blocks, heads and feed_forward must be > 0");
  }
  if (s.embedding % s.heads != 0) {
    return bad(fmt::format("embedding {} is not a multiple of heads {}", s.embedding, s.heads));
  }
  if (s.keep_blocks > s.blocks) {
    return bad(fmt::format("keep_blocks {} > blocks {}", s.keep_blocks, s.blocks));
  }
  if (s.weights == GgmlType::kQ8_0 && (s.embedding % 32 != 0 || s.feed_forward % 32 != 0)) {
    return bad("q8_0 needs embedding and feed_forward to be multiples of 32");
  }
  return Status::Ok();
}

// Copies every tokenizer.* entry of the vocabulary, with the byte tokens retyped.
StatusOr<uint32_t> CopyTokenizer(const std::string& vocab_path, GgufWriter& w) {
  SB_ASSIGN_OR_RETURN(GgufMetadata vocab, ReadGgufMetadata(vocab_path));
  const GgufKeyValue* model = vocab.Find("tokenizer.ggml.model");
  const GgufKeyValue* tokens = vocab.Find("tokenizer.ggml.tokens");
  const GgufKeyValue* types = vocab.Find("tokenizer.ggml.token_type");
  if (model == nullptr || tokens == nullptr || types == nullptr) {
    return Status::InvalidArgument(
        vocab_path +
        ": not a vocabulary GGUF (needs tokenizer.ggml.model, .tokens and .token_type)");
  }
  SB_ASSIGN_OR_RETURN(std::vector<std::string> token_list, StringArray(*tokens));
  SB_ASSIGN_OR_RETURN(std::vector<int32_t> token_types, Int32Array(*types));
  if (token_types.size() != token_list.size()) {
    return Status::InvalidArgument(fmt::format("{}: {} tokens but {} token types", vocab_path,
                                               token_list.size(), token_types.size()));
  }
  for (int32_t& t : token_types) t = t == kTokenTypeByte ? kTokenTypeNormal : t;
  for (const GgufKeyValue& e : vocab.entries) {
    if (e.key.rfind("tokenizer.", 0) != 0 || e.key == "tokenizer.chat_template") continue;
    w.Add(e.key == types->key ? MakeInt32Array(e.key, token_types) : e);
  }
  w.AddString("tokenizer.chat_template", kChatTemplate);
  return static_cast<uint32_t>(token_list.size());
}

}  // namespace

StatusOr<LlamaModelSpec> LlamaModelPreset(const std::string& name) {
  LlamaModelSpec s;
  s.name = name;
  if (name == "tiny") return s;
  if (name == "tiny-draft") {
    s.keep_blocks = 1;
    return s;
  }
  if (name == "small") {
    s.embedding = 768;
    s.blocks = 12;
    s.heads = 12;
    s.feed_forward = 2304;
    s.weights = GgmlType::kQ8_0;
    return s;
  }
  return Status::NotFound(
      fmt::format("model preset '{}': the presets are tiny, tiny-draft and small", name));
}

uint64_t LlamaParameterCount(const LlamaModelSpec& s, uint64_t vocab) {
  uint64_t e = s.embedding, f = s.feed_forward;
  uint64_t blocks = s.keep_blocks > 0 ? s.keep_blocks : s.blocks;
  uint64_t per_block = 2 * e + 4 * e * e + 3 * e * f;  // two norms, q k v o, gate up down
  return 2 * vocab * e + e + blocks * per_block;       // embeddings, output, output norm
}

Status WriteRandomLlamaModel(const LlamaModelSpec& s, const std::string& vocab_path,
                             const std::string& out_path) {
  SB_RETURN_IF_ERROR(CheckSpec(s));
  uint32_t blocks = s.keep_blocks > 0 ? s.keep_blocks : s.blocks;
  GgufWriter w;
  w.AddString("general.architecture", "llama");
  w.AddString("general.name", s.name);
  w.AddUint32("general.file_type", s.weights == GgmlType::kQ8_0 ? 7 : 1);  // MOSTLY_Q8_0 / F16
  w.AddUint32("llama.context_length", s.context);
  w.AddUint32("llama.embedding_length", s.embedding);
  w.AddUint32("llama.block_count", blocks);
  w.AddUint32("llama.feed_forward_length", s.feed_forward);
  w.AddUint32("llama.attention.head_count", s.heads);
  w.AddUint32("llama.attention.head_count_kv", s.heads);
  w.AddFloat32("llama.attention.layer_norm_rms_epsilon", kRmsEpsilon);
  w.AddUint32("llama.rope.dimension_count", s.embedding / s.heads);
  SB_ASSIGN_OR_RETURN(uint32_t vocab, CopyTokenizer(vocab_path, w));
  w.AddUint32("llama.vocab_size", vocab);

  const uint64_t e = s.embedding, f = s.feed_forward, v = vocab;
  // Weights uniform in ±1/sqrt(fan_in): activations keep their scale through a matmul.
  auto matrix = [&](const std::string& name, uint64_t in, uint64_t out, float extra = 1.0f) {
    float scale = extra / std::sqrt(static_cast<float>(in));
    w.AddTensor(name, {in, out}, s.weights,
                Encode(s.weights, RandomValues(s.seed, name, in * out, scale)));
  };
  auto norm = [&](const std::string& name) {
    w.AddTensor(name, {e}, GgmlType::kF32, EncodeF32(std::vector<float>(e, 1.0f)));
  };
  w.AddTensor("token_embd.weight", {e, v}, s.weights,
              Encode(s.weights, RandomValues(s.seed, "token_embd.weight", e * v, 1.0f)));
  for (uint32_t b = 0; b < blocks; ++b) {
    std::string p = fmt::format("blk.{}.", b);
    float residual = b == 0 ? 1.0f : s.later_block_residual_scale;
    norm(p + "attn_norm.weight");
    matrix(p + "attn_q.weight", e, e);
    matrix(p + "attn_k.weight", e, e);
    matrix(p + "attn_v.weight", e, e);
    matrix(p + "attn_output.weight", e, e, residual);
    norm(p + "ffn_norm.weight");
    matrix(p + "ffn_gate.weight", e, f);
    matrix(p + "ffn_up.weight", e, f);
    matrix(p + "ffn_down.weight", f, e, residual);
  }
  norm("output_norm.weight");
  // Logits spread over a few units, so sampling is neither flat nor one-hot.
  matrix("output.weight", e, v, 4.0f);
  return w.WriteFile(out_path);
}

}  // namespace servebench::engine::llamacpp
