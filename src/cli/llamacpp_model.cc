// `servebench llamacpp-model`: writes a llama GGUF with seeded random weights and
// the tokenizer of a vocabulary GGUF, for benchmarking llama.cpp's llama-server with
// no downloaded weights (engine/llamacpp/random_llama_model.h; docs/engines.md,
// "llama.cpp"). The tests and `make demo-llamacpp` make their models with it.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>

#include "cli/command.h"
#include "common/exit_codes.h"
#include "engine/llamacpp/random_llama_model.h"

namespace servebench::cli {
namespace {

int RunLlamacppModel(int argc, char** argv) {
  std::string preset = "tiny", vocab, out;
  uint64_t seed = 1;
  CLI::App app{
      "servebench llamacpp-model: a llama GGUF with seeded random weights (timing is real, "
      "text is gibberish)"};
  app.add_option("--preset", preset,
                 "tiny (~20 M params), tiny-draft (tiny's first block), "
                 "small (~141 M, q8_0)")
      ->capture_default_str();
  app.add_option("--vocab", vocab,
                 "vocabulary GGUF to copy the tokenizer from (llama.cpp's "
                 "models/ggml-vocab-llama-spm.gguf)")
      ->required();
  app.add_option("--out", out, "the GGUF file to write")->required();
  app.add_option("--seed", seed, "weights seed (a draft needs its target's)")
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  auto spec = engine::llamacpp::LlamaModelPreset(preset);
  if (!spec.ok()) {
    std::fprintf(stderr, "servebench llamacpp-model: --preset: %s\n",
                 spec.status().message().c_str());
    return kExitUsage;
  }
  spec->seed = seed;
  std::error_code ec;
  auto parent = std::filesystem::path(out).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  Status s = engine::llamacpp::WriteRandomLlamaModel(*spec, vocab, out);
  if (!s.ok()) {
    std::fprintf(stderr, "servebench llamacpp-model: %s\n", s.message().c_str());
    return s.code() == StatusCode::kInvalidArgument || s.code() == StatusCode::kNotFound
               ? kExitInvalidInput
               : kExitRunFailed;
  }
  std::printf("%s\n", out.c_str());
  return kExitOk;
}

const CommandRegistration kRegister{{"llamacpp-model",
                                     "write a random-weight llama GGUF for benchmarking llama.cpp",
                                     RunLlamacppModel}};

}  // namespace
}  // namespace servebench::cli
