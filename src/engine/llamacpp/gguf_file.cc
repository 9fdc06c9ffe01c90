#include "engine/llamacpp/gguf_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "common/atomic_file.h"

namespace servebench::engine::llamacpp {
namespace {

constexpr char kMagic[] = "GGUF";
constexpr uint64_t kAlignment = 32;  // GGUF's default; general.alignment is not written
constexpr size_t kQ8Block = 32;
// Sanity limits for a metadata reader: a vocabulary has ~10^5 entries, not 10^9.
constexpr uint64_t kMaxEntries = 1 << 16;
constexpr uint64_t kMaxArray = uint64_t{1} << 24;

static_assert(std::endian::native == std::endian::little, "GGUF is little-endian");

template <typename T>
void Put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}
void PutString(std::string& out, const std::string& s) {
  Put<uint64_t>(out, s.size());
  out += s;
}
void Pad(std::string& out, uint64_t alignment) {
  out.append((alignment - out.size() % alignment) % alignment, '\0');
}

size_t ScalarSize(GgufType t) {
  switch (t) {
    case GgufType::kUint8:
    case GgufType::kInt8:
    case GgufType::kBool:
      return 1;
    case GgufType::kUint16:
    case GgufType::kInt16:
      return 2;
    case GgufType::kUint32:
    case GgufType::kInt32:
    case GgufType::kFloat32:
      return 4;
    case GgufType::kUint64:
    case GgufType::kInt64:
    case GgufType::kFloat64:
      return 8;
    default:
      return 0;
  }
}

// A bounds-checked cursor over the file's bytes.
class Cursor {
 public:
  Cursor(const std::string& path, const std::string& bytes) : path_(path), bytes_(bytes) {}
  size_t offset() const { return at_; }
  Status Need(size_t n) const {
    if (bytes_.size() - at_ < n) {
      return Status::InvalidArgument(
          fmt::format("{}: truncated GGUF at byte {} (needs {} more)", path_, at_, n));
    }
    return Status::Ok();
  }
  template <typename T>
  StatusOr<T> Get() {
    SB_RETURN_IF_ERROR(Need(sizeof(T)));
    T v;
    std::memcpy(&v, bytes_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  Status Skip(size_t n) {
    SB_RETURN_IF_ERROR(Need(n));
    at_ += n;
    return Status::Ok();
  }
  StatusOr<std::string> String() {
    SB_ASSIGN_OR_RETURN(uint64_t n, Get<uint64_t>());
    SB_RETURN_IF_ERROR(Need(n));
    std::string s = bytes_.substr(at_, n);
    at_ += n;
    return s;
  }
  // Skips one value of type `t` (arrays included).
  Status SkipValue(GgufType t) {
    if (t == GgufType::kString) return String().status();
    if (t == GgufType::kArray) {
      SB_ASSIGN_OR_RETURN(uint32_t elem, Get<uint32_t>());
      SB_ASSIGN_OR_RETURN(uint64_t n, Get<uint64_t>());
      if (n > kMaxArray) return Bad(fmt::format("array of {} elements", n));
      auto et = static_cast<GgufType>(elem);
      if (et == GgufType::kArray) return Bad("nested arrays");
      if (size_t size = ScalarSize(et); size > 0) return Skip(size * n);
      for (uint64_t i = 0; i < n; ++i) SB_RETURN_IF_ERROR(SkipValue(et));
      return Status::Ok();
    }
    size_t size = ScalarSize(t);
    if (size == 0) return Bad(fmt::format("value type {}", static_cast<uint32_t>(t)));
    return Skip(size);
  }
  Status Bad(const std::string& what) const {
    return Status::InvalidArgument(
        fmt::format("{}: unsupported GGUF content at byte {}: {}", path_, at_, what));
  }
  const std::string& bytes() const { return bytes_; }

 private:
  const std::string& path_;
  const std::string& bytes_;
  size_t at_ = 0;
};

Status NotAnArray(const GgufKeyValue& e, const char* of) {
  return Status::InvalidArgument(fmt::format("GGUF key {}: not an array of {}", e.key, of));
}

}  // namespace

const GgufKeyValue* GgufMetadata::Find(const std::string& key) const {
  for (const GgufKeyValue& e : entries) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

StatusOr<GgufMetadata> ReadGgufMetadata(const std::string& path) {
  SB_ASSIGN_OR_RETURN(std::string bytes, ReadFile(path));
  if (bytes.compare(0, 4, kMagic) != 0) {
    return Status::InvalidArgument(path + ": not a GGUF file (no \"GGUF\" magic at byte 0)");
  }
  Cursor c(path, bytes);
  SB_RETURN_IF_ERROR(c.Skip(4));
  GgufMetadata m;
  SB_ASSIGN_OR_RETURN(m.version, c.Get<uint32_t>());
  if (m.version != 2 && m.version != 3) {
    return Status::InvalidArgument(
        fmt::format("{}: GGUF version {} (servebench reads 2 and 3)", path, m.version));
  }
  SB_ASSIGN_OR_RETURN(uint64_t tensor_count, c.Get<uint64_t>());
  SB_ASSIGN_OR_RETURN(uint64_t n, c.Get<uint64_t>());
  if (tensor_count > kMaxEntries) return c.Bad(fmt::format("{} tensors", tensor_count));
  if (n > kMaxEntries) return c.Bad(fmt::format("{} key/value pairs", n));
  for (uint64_t i = 0; i < n; ++i) {
    GgufKeyValue e;
    SB_ASSIGN_OR_RETURN(e.key, c.String());
    SB_ASSIGN_OR_RETURN(uint32_t type, c.Get<uint32_t>());
    e.type = static_cast<GgufType>(type);
    size_t start = c.offset();
    SB_RETURN_IF_ERROR(c.SkipValue(e.type));
    e.value_bytes = bytes.substr(start, c.offset() - start);
    m.entries.push_back(std::move(e));
  }
  for (uint64_t i = 0; i < tensor_count; ++i) {
    GgufTensorInfo t;
    SB_ASSIGN_OR_RETURN(t.name, c.String());
    SB_ASSIGN_OR_RETURN(uint32_t n_dims, c.Get<uint32_t>());
    if (n_dims > 4) return c.Bad(fmt::format("tensor {} with {} dimensions", t.name, n_dims));
    for (uint32_t d = 0; d < n_dims; ++d) {
      SB_ASSIGN_OR_RETURN(uint64_t dim, c.Get<uint64_t>());
      t.dims.push_back(dim);
    }
    SB_ASSIGN_OR_RETURN(t.type, c.Get<uint32_t>());
    SB_ASSIGN_OR_RETURN(t.offset, c.Get<uint64_t>());
    m.tensors.push_back(std::move(t));
  }
  m.data_offset = (c.offset() + kAlignment - 1) / kAlignment * kAlignment;
  return m;
}

StatusOr<std::vector<int32_t>> Int32Array(const GgufKeyValue& e) {
  const std::string& b = e.value_bytes;
  if (e.type != GgufType::kArray || b.size() < 12) return NotAnArray(e, "int32");
  uint32_t elem;
  uint64_t n;
  std::memcpy(&elem, b.data(), 4);
  std::memcpy(&n, b.data() + 4, 8);
  if (static_cast<GgufType>(elem) != GgufType::kInt32 || b.size() != 12 + 4 * n) {
    return NotAnArray(e, "int32");
  }
  std::vector<int32_t> out(n);
  std::memcpy(out.data(), b.data() + 12, 4 * n);
  return out;
}

StatusOr<std::vector<std::string>> StringArray(const GgufKeyValue& e) {
  const std::string& b = e.value_bytes;
  if (e.type != GgufType::kArray || b.size() < 12) return NotAnArray(e, "strings");
  std::string path = "GGUF key " + e.key;
  Cursor c(path, b);
  SB_ASSIGN_OR_RETURN(uint32_t elem, c.Get<uint32_t>());
  SB_ASSIGN_OR_RETURN(uint64_t n, c.Get<uint64_t>());
  if (static_cast<GgufType>(elem) != GgufType::kString) return NotAnArray(e, "strings");
  std::vector<std::string> out;
  out.reserve(n);
  for (uint64_t i = 0; i < n; ++i) {
    SB_ASSIGN_OR_RETURN(std::string s, c.String());
    out.push_back(std::move(s));
  }
  return out;
}

GgufKeyValue MakeInt32Array(const std::string& key, const std::vector<int32_t>& values) {
  GgufKeyValue e{key, GgufType::kArray, {}};
  Put<uint32_t>(e.value_bytes, static_cast<uint32_t>(GgufType::kInt32));
  Put<uint64_t>(e.value_bytes, values.size());
  e.value_bytes.append(reinterpret_cast<const char*>(values.data()), 4 * values.size());
  return e;
}

void GgufWriter::AddString(const std::string& key, const std::string& value) {
  GgufKeyValue e{key, GgufType::kString, {}};
  PutString(e.value_bytes, value);
  Add(std::move(e));
}
void GgufWriter::AddUint32(const std::string& key, uint32_t value) {
  GgufKeyValue e{key, GgufType::kUint32, {}};
  Put(e.value_bytes, value);
  Add(std::move(e));
}
void GgufWriter::AddFloat32(const std::string& key, float value) {
  GgufKeyValue e{key, GgufType::kFloat32, {}};
  Put(e.value_bytes, value);
  Add(std::move(e));
}
void GgufWriter::AddBool(const std::string& key, bool value) {
  GgufKeyValue e{key, GgufType::kBool, {}};
  Put<uint8_t>(e.value_bytes, value ? 1 : 0);
  Add(std::move(e));
}
void GgufWriter::Add(GgufKeyValue entry) { entries_.push_back(std::move(entry)); }

void GgufWriter::AddTensor(const std::string& name, std::vector<uint64_t> dims, GgmlType type,
                           std::string data) {
  tensors_.push_back({name, std::move(dims), type, std::move(data)});
}

Status GgufWriter::WriteFile(const std::string& path) const {
  std::string out;
  size_t data_bytes = 0;
  for (const Tensor& t : tensors_) data_bytes += t.data.size() + kAlignment;
  out.reserve(data_bytes + (1 << 20));
  out += std::string_view(kMagic, 4);
  Put<uint32_t>(out, 3);
  Put<uint64_t>(out, tensors_.size());
  Put<uint64_t>(out, entries_.size());
  for (const GgufKeyValue& e : entries_) {
    PutString(out, e.key);
    Put<uint32_t>(out, static_cast<uint32_t>(e.type));
    out += e.value_bytes;
  }
  uint64_t offset = 0;
  for (const Tensor& t : tensors_) {
    PutString(out, t.name);
    Put<uint32_t>(out, static_cast<uint32_t>(t.dims.size()));
    for (uint64_t d : t.dims) Put<uint64_t>(out, d);
    Put<uint32_t>(out, static_cast<uint32_t>(t.type));
    Put<uint64_t>(out, offset);
    offset += t.data.size();
    offset += (kAlignment - offset % kAlignment) % kAlignment;
  }
  Pad(out, kAlignment);
  for (const Tensor& t : tensors_) {
    out += t.data;
    Pad(out, kAlignment);
  }
  return WriteFileAtomically(path, out);
}

uint16_t FloatToHalf(float value) {
  uint32_t x = std::bit_cast<uint32_t>(value);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t biased = (x >> 23) & 0xffu;
  uint32_t mant = x & 0x7fffffu;
  if (biased == 0xffu) return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0));
  int32_t exp = static_cast<int32_t>(biased) - 127 + 15;
  if (exp >= 31) return static_cast<uint16_t>(sign | 0x7c00u);  // too large: infinity
  uint32_t half, rest, halfway;
  if (exp <= 0) {  // a half subnormal: m x 2^-24
    if (exp < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000u;
    int shift = 14 - exp;
    half = mant >> shift;
    rest = mant & ((1u << shift) - 1);
    halfway = 1u << (shift - 1);
  } else {
    half = (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
    rest = mant & 0x1fffu;
    halfway = 0x1000u;
  }
  // Round to nearest, ties to even; a carry into the exponent is the right result.
  if (rest > halfway || (rest == halfway && (half & 1u))) ++half;
  return static_cast<uint16_t>(sign | half);
}

std::string EncodeF16(const std::vector<float>& values) {
  std::string out;
  out.reserve(values.size() * 2);
  for (float v : values) Put<uint16_t>(out, FloatToHalf(v));
  return out;
}

std::string EncodeF32(const std::vector<float>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * 4);
}

std::string EncodeQ8_0(const std::vector<float>& values) {
  std::string out;
  out.reserve(values.size() / kQ8Block * (2 + kQ8Block));
  for (size_t b = 0; b + kQ8Block <= values.size(); b += kQ8Block) {
    float amax = 0;
    for (size_t i = 0; i < kQ8Block; ++i) amax = std::max(amax, std::fabs(values[b + i]));
    float d = amax / 127.0f;
    float inv = d != 0 ? 1.0f / d : 0.0f;
    Put<uint16_t>(out, FloatToHalf(d));
    for (size_t i = 0; i < kQ8Block; ++i) {
      Put<int8_t>(out, static_cast<int8_t>(std::lround(values[b + i] * inv)));
    }
  }
  return out;
}

}  // namespace servebench::engine::llamacpp
