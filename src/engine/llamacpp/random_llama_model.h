// Random-weight llama models for benchmarking llama.cpp without downloading weights
// (docs/engines.md, "llama.cpp"). A model is the `llama` architecture with seeded
// random weights and a real tokenizer copied from a vocabulary-only GGUF of the
// llama.cpp tree (models/ggml-vocab-llama-spm.gguf). Everything a benchmark
// measures is real — timing, token counts, SSE framing, batching, KV cache,
// speculative decoding — only the text is gibberish.
//
// Two details make such a model servable:
//   - the 256 `<0xXX>` byte tokens are retyped NORMAL: a random model emits lone
//     bytes that are invalid UTF-8, and llama-server then aborts the stream;
//   - a small chat template (`role: content` lines, then `assistant: `), since a
//     random model has none and /v1/chat/completions needs one.
// A draft is the first `keep_blocks` blocks of its target (same seed, so the same
// weights, embeddings and output); the target's later blocks write to the residual
// stream scaled by `later_block_residual_scale`, so the draft predicts the target's
// next token often (about 60 % at temperature 0 with 0.1).
// The same spec and vocabulary give a byte-identical file. Thread-safe (pure).
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "engine/llamacpp/gguf_file.h"

namespace servebench::engine::llamacpp {

struct LlamaModelSpec {
  std::string name;                   // general.name, and the preset's file stem
  uint32_t embedding = 256;           // n_embd
  uint32_t blocks = 4;                // transformer blocks of the full model
  uint32_t heads = 4;                 // attention heads (and KV heads: no GQA)
  uint32_t feed_forward = 768;        // FFN hidden size
  uint32_t context = 8192;            // llama.context_length (the training context)
  GgmlType weights = GgmlType::kF16;  // matrices; norms are always f32
  uint64_t seed = 1;
  // Blocks written; 0 = all. A draft of this model sets it (and keeps the rest).
  uint32_t keep_blocks = 0;
  // Scale of the attention-output and FFN-down weights of blocks >= 1.
  float later_block_residual_scale = 0.1f;
};

// The presets the tests and the demo use (reference/llamacpp-server.md §2):
//   tiny        embd 256, 4 blocks, 4 heads, ff 768, f16   (~20 M params, ~40 MB)
//   tiny-draft  tiny's first block                          (~17 M params)
//   small       embd 768, 12 blocks, 12 heads, ff 2304, q8_0 (~141 M params, ~150 MB)
// NotFound for another name.
StatusOr<LlamaModelSpec> LlamaModelPreset(const std::string& name);
inline constexpr const char* kLlamaModelPresets[] = {"tiny", "tiny-draft", "small"};

// Parameters of the model a spec writes, for a vocabulary of `vocab` tokens.
uint64_t LlamaParameterCount(const LlamaModelSpec& spec, uint64_t vocab);

// Writes the model to `out_path` (atomically), its tokenizer from `vocab_path`.
// InvalidArgument when the vocabulary file is not a GGUF with a llama tokenizer, or
// the spec is inconsistent (embedding not a multiple of heads, or of 32 for q8_0).
Status WriteRandomLlamaModel(const LlamaModelSpec& spec, const std::string& vocab_path,
                             const std::string& out_path);

// Bumped whenever the bytes a spec produces change: part of cached file names.
inline constexpr int kRandomLlamaModelFormat = 1;

}  // namespace servebench::engine::llamacpp
