// GGUF, the file format of llama.cpp models (version 3): the constants servebench
// needs, a reader of a file's metadata and a writer of whole files. Enough to copy
// the tokenizer out of a vocabulary-only GGUF and write small llama models with
// random weights (random_llama_model.h); not a general GGUF library.
//
// Layout: "GGUF", u32 version, u64 tensor count, u64 key/value count; the key/value
// pairs (key string, u32 value type, value); the tensor infos (name, u32 n_dims,
// u64 dims[n_dims] innermost first, u32 ggml type, u64 offset into the data
// section); padding to `general.alignment` (32); the tensor data, each tensor
// aligned. Strings are u64 length + bytes; everything is little-endian.
// Thread-safety: values; one writer per thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace servebench::engine::llamacpp {

enum class GgufType : uint32_t {
  kUint8 = 0,
  kInt8 = 1,
  kUint16 = 2,
  kInt16 = 3,
  kUint32 = 4,
  kInt32 = 5,
  kFloat32 = 6,
  kBool = 7,
  kString = 8,
  kArray = 9,
  kUint64 = 10,
  kInt64 = 11,
  kFloat64 = 12,
};

// The tensor element types servebench writes.
enum class GgmlType : uint32_t { kF32 = 0, kF16 = 1, kQ8_0 = 8 };

// One metadata entry with its value kept as the file's bytes, so a reader's entry
// can be written back unchanged.
struct GgufKeyValue {
  std::string key;
  GgufType type = GgufType::kUint8;
  std::string value_bytes;  // the encoded value (for arrays: element type, count, elements)
};

struct GgufTensorInfo {
  std::string name;
  std::vector<uint64_t> dims;  // innermost first
  uint32_t type = 0;           // ggml type
  uint64_t offset = 0;         // from the start of the data section
};

struct GgufMetadata {
  uint32_t version = 0;
  std::vector<GgufKeyValue> entries;
  std::vector<GgufTensorInfo> tensors;
  uint64_t data_offset = 0;  // file offset of the data section (aligned to 32)
  const GgufKeyValue* Find(const std::string& key) const;
};

// Reads the header, every key/value pair and every tensor info of `path`.
// InvalidArgument naming the file and byte offset when it is not GGUF v2/v3 or is
// truncated.
StatusOr<GgufMetadata> ReadGgufMetadata(const std::string& path);

// The elements of an array entry of 32-bit integers (token types), or of strings
// (tokens). InvalidArgument when the entry is not that kind of array.
StatusOr<std::vector<int32_t>> Int32Array(const GgufKeyValue& entry);
StatusOr<std::vector<std::string>> StringArray(const GgufKeyValue& entry);

// Encodes an int32 array entry (for a retyped token_type).
GgufKeyValue MakeInt32Array(const std::string& key, const std::vector<int32_t>& values);

// Builds a GGUF v3 file in memory, then writes it atomically.
class GgufWriter {
 public:
  void AddString(const std::string& key, const std::string& value);
  void AddUint32(const std::string& key, uint32_t value);
  void AddFloat32(const std::string& key, float value);
  void AddBool(const std::string& key, bool value);
  void Add(GgufKeyValue entry);  // as read, or from MakeInt32Array
  // `dims` innermost first (ggml's ne); `data` holds the encoded elements.
  void AddTensor(const std::string& name, std::vector<uint64_t> dims, GgmlType type,
                 std::string data);
  // Writes the file to `path` (through a temporary file and a rename).
  Status WriteFile(const std::string& path) const;

 private:
  struct Tensor {
    std::string name;
    std::vector<uint64_t> dims;
    GgmlType type;
    std::string data;
  };
  std::vector<GgufKeyValue> entries_;
  std::vector<Tensor> tensors_;
};

// Element encodings: f32 → IEEE half (round to nearest even); f32 blocks of 32 →
// q8_0 (an f16 scale, then 32 int8). Q8_0 needs a multiple of 32 values.
uint16_t FloatToHalf(float value);
std::string EncodeF16(const std::vector<float>& values);
std::string EncodeQ8_0(const std::vector<float>& values);
std::string EncodeF32(const std::vector<float>& values);

}  // namespace servebench::engine::llamacpp
