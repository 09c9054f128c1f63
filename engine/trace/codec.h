// Compression of event chunks: zstd or zlib, both at level 1 because the
// recorder's background thread must keep up with the tracee. Private to
// engine/trace.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/trace/event.h"

struct ZSTD_CCtx_s;
struct ZSTD_DCtx_s;

namespace backstep::trace {

bool is_known_codec(uint8_t codec);

// The most bytes `codec` can turn `raw_len` bytes into.
std::size_t max_compressed_size(Codec codec, std::size_t raw_len);

// Holds the codec's context so that compressing many chunks allocates once.
class Compressor {
 public:
  explicit Compressor(Codec codec);
  ~Compressor();
  Compressor(const Compressor&) = delete;
  Compressor& operator=(const Compressor&) = delete;

  // Appends the compressed form of `raw` to `out` and returns the codec
  // used: the compressor's, or Stored when a sample of a large chunk shows
  // it does not compress (random data, compressed files: compressing them
  // would cost the recorder's background thread as much as all the rest).
  // Stored leaves `out` as it was: the data is `raw` itself, which the
  // caller writes from where it is. Throws FormatError if the library
  // fails (which it only does when out of memory).
  Codec compress(std::span<const uint8_t> raw, std::vector<uint8_t>& out);

 private:
  void compress_as(Codec codec, std::span<const uint8_t> raw, std::vector<uint8_t>& out);
  Codec codec_;
  ZSTD_CCtx_s* zstd_ = nullptr;
  std::vector<uint8_t> sample_;
};

class Decompressor {
 public:
  Decompressor();
  ~Decompressor();
  Decompressor(const Decompressor&) = delete;
  Decompressor& operator=(const Decompressor&) = delete;

  // Decompresses `compressed` into `out`, which is resized to `raw_len`.
  // Throws FormatError unless the data decodes to exactly `raw_len` bytes.
  void decompress(Codec codec, std::span<const uint8_t> compressed, std::size_t raw_len,
                  std::vector<uint8_t>& out);
  // The same into `out` (exactly raw_len bytes), which need not be
  // initialised: the trace reader's buffers are not zeroed first.
  void decompress(Codec codec, std::span<const uint8_t> compressed, std::span<uint8_t> out);

 private:
  ZSTD_DCtx_s* zstd_ = nullptr;
};

}  // namespace backstep::trace
