#include "engine/llamacpp/gguf_file.h"

#include <gtest/gtest.h>

#include <cstring>

#include "common/atomic_file.h"

namespace servebench::engine::llamacpp {
namespace {

std::string TempPath(const std::string& name) { return ::testing::TempDir() + "/" + name; }

TEST(GgufFileTest, WrittenEntriesAndTensorsReadBackUnchanged) {
  GgufWriter w;
  w.AddString("general.architecture", "llama");
  w.AddUint32("llama.block_count", 3);
  w.AddFloat32("llama.attention.layer_norm_rms_epsilon", 1e-5f);
  w.AddBool("tokenizer.ggml.add_bos_token", true);
  w.Add(MakeInt32Array("tokenizer.ggml.token_type", {1, 6, 3}));
  w.AddTensor("a", {4, 2}, GgmlType::kF32, EncodeF32({1, 2, 3, 4, 5, 6, 7, 8}));
  w.AddTensor("b", {3}, GgmlType::kF16, EncodeF16({1, 2, 3}));
  std::string path = TempPath("roundtrip.gguf");
  ASSERT_TRUE(w.WriteFile(path).ok());

  auto m = ReadGgufMetadata(path);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->version, 3u);
  ASSERT_EQ(m->entries.size(), 5u);
  EXPECT_EQ(m->entries[0].key, "general.architecture");
  EXPECT_EQ(m->Find("llama.block_count")->type, GgufType::kUint32);
  auto types = Int32Array(*m->Find("tokenizer.ggml.token_type"));
  ASSERT_TRUE(types.ok());
  EXPECT_EQ(*types, (std::vector<int32_t>{1, 6, 3}));
  ASSERT_EQ(m->tensors.size(), 2u);
  EXPECT_EQ(m->tensors[0].dims, (std::vector<uint64_t>{4, 2}));
  EXPECT_EQ(m->tensors[1].offset, 32u);  // 32 bytes of f32, already aligned
  EXPECT_EQ(m->data_offset % 32, 0u);
  std::string bytes = ReadFile(path).value();
  float third;
  std::memcpy(&third, bytes.data() + m->data_offset + 8, 4);
  EXPECT_EQ(third, 3.0f);
}

TEST(GgufFileTest, StringArraysAreDecoded) {
  GgufKeyValue e{"tokenizer.ggml.tokens", GgufType::kArray, {}};
  auto put = [&](auto v) { e.value_bytes.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(static_cast<uint32_t>(GgufType::kString));
  put(uint64_t{2});
  for (std::string s : {"<s>", "hi"}) {
    put(static_cast<uint64_t>(s.size()));
    e.value_bytes += s;
  }
  auto tokens = StringArray(e);
  ASSERT_TRUE(tokens.ok());
  EXPECT_EQ(*tokens, (std::vector<std::string>{"<s>", "hi"}));
  EXPECT_FALSE(Int32Array(e).ok());
}

TEST(GgufFileTest, NotGgufAndTruncatedFilesAreRefusedWithTheFileNamed) {
  std::string path = TempPath("not.gguf");
  ASSERT_TRUE(WriteFileAtomically(path, "PK\x03\x04 a zip file").ok());
  auto m = ReadGgufMetadata(path);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find(path), std::string::npos);
  EXPECT_NE(m.status().message().find("not a GGUF file"), std::string::npos);

  GgufWriter w;
  w.AddString("general.name", "x");
  std::string whole = TempPath("whole.gguf");
  ASSERT_TRUE(w.WriteFile(whole).ok());
  std::string cut = TempPath("cut.gguf");
  ASSERT_TRUE(WriteFileAtomically(cut, ReadFile(whole).value().substr(0, 30)).ok());
  auto t = ReadGgufMetadata(cut);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("truncated GGUF at byte"), std::string::npos)
      << t.status().message();
}

TEST(GgufFileTest, HalfPrecisionRoundsToNearestEven) {
  EXPECT_EQ(FloatToHalf(0.0f), 0x0000);
  EXPECT_EQ(FloatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(FloatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(FloatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7bff);            // the largest half
  EXPECT_EQ(FloatToHalf(1e6f), 0x7c00);                // overflows to infinity
  EXPECT_EQ(FloatToHalf(5.9604645e-8f), 0x0001);       // the smallest subnormal
  EXPECT_EQ(FloatToHalf(1.0f + 1.0f / 2048), 0x3c00);  // a tie: to even
  EXPECT_EQ(FloatToHalf(1.0f + 3.0f / 2048), 0x3c02);  // a tie: to even, upwards
}

TEST(GgufFileTest, Q8BlocksHoldAScaleAndRoundedInt8s) {
  std::vector<float> v(32, 0.0f);
  v[0] = 1.27f;
  v[1] = -0.635f;
  std::string q = EncodeQ8_0(v);
  ASSERT_EQ(q.size(), 34u);
  uint16_t d;
  std::memcpy(&d, q.data(), 2);
  EXPECT_EQ(d, FloatToHalf(0.01f));
  EXPECT_EQ(static_cast<int8_t>(q[2]), 127);
  EXPECT_EQ(static_cast<int8_t>(q[3]), -64);  // -63.5 rounds away from zero
  EXPECT_EQ(q[4], 0);
}

}  // namespace
}  // namespace servebench::engine::llamacpp
