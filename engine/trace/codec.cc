// zstd and zlib behind one interface. Both libraries are asked for exact
// sizes: a chunk whose data decodes to more or fewer bytes than its header
// says is corrupt, never silently padded or cut.
#include "engine/trace/codec.h"

#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <new>
#include <string>

#include "engine/trace/encoding.h"

namespace backstep::trace {

namespace {

constexpr int kZstdLevel = 1;
constexpr int kZlibLevel = 1;
// A chunk this large is sampled first: its first kSampleSize bytes must
// compress to at most kStoredAbove of their size, or it is stored.
constexpr std::size_t kSampleFrom = 256 * 1024;
constexpr std::size_t kSampleSize = 64 * 1024;
constexpr double kStoredAbove = 0.95;

}  // namespace

bool is_known_codec(uint8_t codec) {
  return codec == static_cast<uint8_t>(Codec::Zstd) || codec == static_cast<uint8_t>(Codec::Zlib) ||
         codec == static_cast<uint8_t>(Codec::Stored);
}

std::size_t max_compressed_size(Codec codec, std::size_t raw_len) {
  if (codec == Codec::Stored) return raw_len;
  if (codec == Codec::Zstd) return ZSTD_compressBound(raw_len);
  return compressBound(static_cast<uLong>(raw_len));
}

Compressor::Compressor(Codec codec) : codec_(codec) {
  if (codec_ == Codec::Zstd) {
    zstd_ = ZSTD_createCCtx();
    if (zstd_ == nullptr) throw std::bad_alloc();
  }
}

Compressor::~Compressor() { ZSTD_freeCCtx(zstd_); }

Codec Compressor::compress(std::span<const uint8_t> raw, std::vector<uint8_t>& out) {
  if (raw.size() >= kSampleFrom) {
    sample_.clear();
    compress_as(codec_, raw.first(kSampleSize), sample_);
    if (static_cast<double>(sample_.size()) > kStoredAbove * kSampleSize) return Codec::Stored;
  }
  compress_as(codec_, raw, out);
  return codec_;
}

void Compressor::compress_as(Codec codec, std::span<const uint8_t> raw, std::vector<uint8_t>& out) {
  std::size_t start = out.size();
  std::size_t bound = max_compressed_size(codec, raw.size());
  out.resize(start + bound);
  if (codec == Codec::Zstd) {
    std::size_t n = ZSTD_compressCCtx(zstd_, out.data() + start, bound, raw.data(), raw.size(), kZstdLevel);
    if (ZSTD_isError(n)) throw FormatError(std::string("zstd compression failed: ") + ZSTD_getErrorName(n));
    out.resize(start + n);
    return;
  }
  uLongf n = static_cast<uLongf>(bound);
  int rc = compress2(out.data() + start, &n, raw.data(), static_cast<uLong>(raw.size()), kZlibLevel);
  if (rc != Z_OK) throw FormatError("zlib compression failed: error " + std::to_string(rc));
  out.resize(start + n);
}

Decompressor::Decompressor() {
  zstd_ = ZSTD_createDCtx();
  if (zstd_ == nullptr) throw std::bad_alloc();
}

Decompressor::~Decompressor() { ZSTD_freeDCtx(zstd_); }

void Decompressor::decompress(Codec codec, std::span<const uint8_t> compressed, std::size_t raw_len,
                              std::vector<uint8_t>& out) {
  out.resize(raw_len);
  decompress(codec, compressed, std::span<uint8_t>(out));
}

void Decompressor::decompress(Codec codec, std::span<const uint8_t> compressed, std::span<uint8_t> out) {
  const std::size_t raw_len = out.size();
  if (codec == Codec::Stored) {
    if (compressed.size() != raw_len)
      throw FormatError("stored data of " + std::to_string(compressed.size()) + " bytes, expected " +
                        std::to_string(raw_len));
    std::copy(compressed.begin(), compressed.end(), out.begin());
    return;
  }
  if (codec == Codec::Zstd) {
    std::size_t n = ZSTD_decompressDCtx(zstd_, out.data(), raw_len, compressed.data(), compressed.size());
    if (ZSTD_isError(n)) throw FormatError(std::string("zstd: ") + ZSTD_getErrorName(n));
    if (n != raw_len)
      throw FormatError("decompressed to " + std::to_string(n) + " bytes, expected " + std::to_string(raw_len));
    return;
  }
  // uncompress() needs a non-null destination even for an empty result.
  uint8_t dummy = 0;
  uLongf n = static_cast<uLongf>(raw_len);
  int rc = uncompress(raw_len ? out.data() : &dummy, &n, compressed.data(), static_cast<uLong>(compressed.size()));
  // Z_BUF_ERROR: the data is longer than raw_len, or cut short.
  if (rc != Z_OK) throw FormatError(std::string("zlib: ") + zError(rc));
  if (n != raw_len)
    throw FormatError("decompressed to " + std::to_string(n) + " bytes, expected " + std::to_string(raw_len));
}

}  // namespace backstep::trace
