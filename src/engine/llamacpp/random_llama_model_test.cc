#include "engine/llamacpp/random_llama_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "common/atomic_file.h"

namespace servebench::engine::llamacpp {
namespace {

std::string TempPath(const std::string& name) { return ::testing::TempDir() + "/" + name; }

// A vocabulary-only GGUF shaped like llama.cpp's ggml-vocab-llama-spm.gguf: <unk>,
// <s>, </s>, the 256 byte tokens (type BYTE), then normal pieces.
std::string WriteTestVocab() {
  std::vector<std::string> tokens = {"<unk>", "<s>", "</s>"};
  std::vector<int32_t> types = {2, 3, 3};
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    tokens.push_back(name);
    types.push_back(6);
  }
  for (int i = 0; i < 61; ++i) {
    tokens.push_back("\xe2\x96\x81w" + std::to_string(i));
    types.push_back(1);
  }
  GgufKeyValue list{"tokenizer.ggml.tokens", GgufType::kArray, {}};
  auto put = [&](auto v) { list.value_bytes.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(static_cast<uint32_t>(GgufType::kString));
  put(static_cast<uint64_t>(tokens.size()));
  for (const std::string& t : tokens) {
    put(static_cast<uint64_t>(t.size()));
    list.value_bytes += t;
  }
  GgufWriter w;
  w.AddString("general.architecture", "llama");
  w.AddUint32("llama.block_count", 32);  // the vocab file's own model keys are not copied
  w.AddString("tokenizer.ggml.model", "llama");
  w.Add(list);
  w.Add(MakeInt32Array("tokenizer.ggml.token_type", types));
  w.AddUint32("tokenizer.ggml.bos_token_id", 1);
  w.AddUint32("tokenizer.ggml.eos_token_id", 2);
  std::string path = TempPath("vocab.gguf");
  EXPECT_TRUE(w.WriteFile(path).ok());
  return path;
}

LlamaModelSpec SmallSpec() {
  LlamaModelSpec s;
  s.name = "test";
  s.embedding = 64;
  s.blocks = 3;
  s.heads = 2;
  s.feed_forward = 96;
  return s;
}

GgufMetadata Write(const LlamaModelSpec& spec, const std::string& file) {
  static const std::string vocab = WriteTestVocab();
  Status s = WriteRandomLlamaModel(spec, vocab, TempPath(file));
  EXPECT_TRUE(s.ok()) << s.ToString();
  auto m = ReadGgufMetadata(TempPath(file));
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return m.ok() ? *m : GgufMetadata{};
}

uint32_t U32(const GgufMetadata& m, const std::string& key) {
  const GgufKeyValue* e = m.Find(key);
  EXPECT_NE(e, nullptr) << key;
  uint32_t v = 0;
  if (e != nullptr) std::memcpy(&v, e->value_bytes.data(), 4);
  return v;
}

// The bytes of tensor `name` in the file at `path` (up to the next tensor).
std::string TensorBytes(const GgufMetadata& m, const std::string& path, const std::string& name) {
  std::string bytes = ReadFile(path).value();
  for (size_t i = 0; i < m.tensors.size(); ++i) {
    if (m.tensors[i].name != name) continue;
    uint64_t end =
        i + 1 < m.tensors.size() ? m.tensors[i + 1].offset : bytes.size() - m.data_offset;
    return bytes.substr(m.data_offset + m.tensors[i].offset, end - m.tensors[i].offset);
  }
  ADD_FAILURE() << "no tensor " << name;
  return "";
}

TEST(RandomLlamaModelTest, ByteTokensAreRetypedNormalAndAChatTemplateIsAdded) {
  GgufMetadata m = Write(SmallSpec(), "model.gguf");
  auto types = Int32Array(*m.Find("tokenizer.ggml.token_type"));
  ASSERT_TRUE(types.ok());
  EXPECT_EQ(std::count(types->begin(), types->end(), 6), 0);
  EXPECT_EQ(std::count(types->begin(), types->end(), 1), 256 + 61);
  EXPECT_EQ((*types)[1], 3);  // control tokens keep their type
  ASSERT_NE(m.Find("tokenizer.chat_template"), nullptr);
  EXPECT_NE(m.Find("tokenizer.chat_template")->value_bytes.find("assistant: "), std::string::npos);
  EXPECT_EQ(U32(m, "llama.block_count"), 3u);
  EXPECT_EQ(U32(m, "llama.vocab_size"), 320u);
  EXPECT_EQ(U32(m, "tokenizer.ggml.eos_token_id"), 2u);
}

TEST(RandomLlamaModelTest, HasEveryTensorOfTheLlamaArchitectureWithItsShape) {
  GgufMetadata m = Write(SmallSpec(), "shapes.gguf");
  ASSERT_EQ(m.tensors.size(), 3u + 3 * 9);
  EXPECT_EQ(m.tensors.front().name, "token_embd.weight");
  EXPECT_EQ(m.tensors.front().dims, (std::vector<uint64_t>{64, 320}));
  auto find = [&](const std::string& n) {
    return *std::find_if(m.tensors.begin(), m.tensors.end(),
                         [&](const GgufTensorInfo& t) { return t.name == n; });
  };
  EXPECT_EQ(find("blk.2.ffn_down.weight").dims, (std::vector<uint64_t>{96, 64}));
  EXPECT_EQ(find("blk.0.ffn_gate.weight").dims, (std::vector<uint64_t>{64, 96}));
  EXPECT_EQ(find("blk.1.attn_norm.weight").type, static_cast<uint32_t>(GgmlType::kF32));
  EXPECT_EQ(find("output.weight").dims, (std::vector<uint64_t>{64, 320}));
}

TEST(RandomLlamaModelTest, SameSpecGivesTheSameBytesAndAnotherSeedOthers) {
  Write(SmallSpec(), "a.gguf");
  Write(SmallSpec(), "b.gguf");
  LlamaModelSpec other = SmallSpec();
  other.seed = 2;
  Write(other, "c.gguf");
  std::string a = ReadFile(TempPath("a.gguf")).value();
  EXPECT_EQ(a, ReadFile(TempPath("b.gguf")).value());
  EXPECT_NE(a, ReadFile(TempPath("c.gguf")).value());
}

// A draft is its target's first block with the same embeddings and output.
TEST(RandomLlamaModelTest, DraftIsTheTargetsFirstBlock) {
  GgufMetadata target = Write(SmallSpec(), "target.gguf");
  LlamaModelSpec d = SmallSpec();
  d.keep_blocks = 1;
  GgufMetadata draft = Write(d, "draft.gguf");
  EXPECT_EQ(U32(draft, "llama.block_count"), 1u);
  ASSERT_EQ(draft.tensors.size(), 3u + 9);
  for (const char* name :
       {"token_embd.weight", "blk.0.attn_q.weight", "blk.0.ffn_down.weight", "output.weight"}) {
    EXPECT_EQ(TensorBytes(target, TempPath("target.gguf"), name),
              TensorBytes(draft, TempPath("draft.gguf"), name))
        << name;
  }
}

TEST(RandomLlamaModelTest, PresetsHaveTheDocumentedSizes) {
  EXPECT_NEAR(LlamaParameterCount(LlamaModelPreset("tiny").value(), 32000) / 1e6, 19.8, 0.2);
  EXPECT_NEAR(LlamaParameterCount(LlamaModelPreset("small").value(), 32000) / 1e6, 141.2, 0.2);
  EXPECT_LT(LlamaParameterCount(LlamaModelPreset("tiny-draft").value(), 32000),
            LlamaParameterCount(LlamaModelPreset("tiny").value(), 32000));
  auto none = LlamaModelPreset("huge");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("tiny, tiny-draft and small"), std::string::npos);
}

TEST(RandomLlamaModelTest, BadInputsAreRefusedBeforeWriting) {
  LlamaModelSpec s = SmallSpec();
  s.heads = 5;
  Status bad = WriteRandomLlamaModel(s, WriteTestVocab(), TempPath("bad.gguf"));
  EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.message().find("not a multiple of heads"), std::string::npos);
  std::string not_vocab = TempPath("not-vocab.gguf");
  GgufWriter w;
  w.AddString("general.name", "no tokenizer");
  ASSERT_TRUE(w.WriteFile(not_vocab).ok());
  Status nv = WriteRandomLlamaModel(SmallSpec(), not_vocab, TempPath("nv.gguf"));
  EXPECT_NE(nv.message().find("not a vocabulary GGUF"), std::string::npos) << nv.message();
}

}  // namespace
}  // namespace servebench::engine::llamacpp
