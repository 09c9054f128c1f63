// libFuzzer target for the trace decoder (engine/trace): the functions the
// TraceReader runs on bytes it read from disk, without the disk.
//
// Input: one mode byte (taken modulo 5), then that mode's bytes.
//   0  a `header` file whose trailing crc32 the target recomputes, so that
//      mutations reach the TLV body instead of stopping at the checksum
//   1  a `header` file as it is (magic, version and checksum checks)
//   2  one chunk of the `events` file: the 33-byte chunk header (its own
//      crc32 recomputed, for the same reason) and the compressed data; the
//      data is decompressed when the header's raw size is at most
//      kMaxFuzzRawBytes, and its events decoded as the reader does
//   3  a chunk's decompressed payload: events decoded until it is used up
//   4  an `events` file after its preamble, read by the real TraceReader
//      from a scratch trace directory (next() to the end, then a seek to an
//      event the input names). Both checksums of every chunk are recomputed,
//      and inputs with a chunk over kMaxFuzzRawBytes are skipped.
//
// Errors must be TraceError / FormatError. Beyond that the target checks that
// whatever decodes re-encodes to something that decodes to the same value,
// and aborts (a finding) when it does not.
//
// Half of the mutations are structure-aware (fuzz/trace_mutator.h): chunks
// and events decoded, one value forged, everything encoded again with
// valid lengths, compression and checksums.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/trace/codec.h"
#include "engine/trace/encoding.h"
#include "engine/trace/format.h"
#include "engine/trace/reader.h"
#include "engine/trace/trace_error.h"
#include "fuzz/trace_mutator.h"

namespace trace = backstep::trace;

namespace {

// The reader accepts up to kMaxChunkRawBytes (256 MiB); the fuzzer keeps each
// run small and fast, and the size checks themselves are exercised anyway.
constexpr std::size_t kMaxFuzzRawBytes = 1u << 20;

[[noreturn]] void broken(const char* promise) {
  std::fprintf(stderr, "trace_fuzz: broken promise: %s\n", promise);
  std::abort();
}

void put_le32(std::uint8_t* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

void check_header_round_trip(const trace::Header& header) {
  std::vector<std::uint8_t> again = trace::encode_header_file(header);
  if (!(trace::decode_header_file(again, "round trip") == header)) broken("a decoded header re-encodes to itself");
}

void header_file(std::vector<std::uint8_t> bytes, bool fix_crc) {
  if (fix_crc && bytes.size() >= 4) {
    std::size_t body = bytes.size() - 4;
    put_le32(bytes.data() + body, trace::crc32_of(bytes.data(), body));
  }
  trace::Header header;
  try {
    header = trace::decode_header_file(bytes, "header");
  } catch (const trace::TraceError&) {
    return;
  }
  check_header_round_trip(header);
}

void check_event_round_trip(const trace::Event& event) {
  std::vector<std::uint8_t> again;
  trace::encode_event(event, again);
  trace::ByteReader r(again);
  if (!(trace::decode_event(r) == event) || !r.empty()) broken("a decoded event re-encodes to itself");
}

// The reader's loop over one chunk: exactly `count` events, nothing after the
// last. Returns quietly at the first FormatError, as the reader reports it.
void events(std::span<const std::uint8_t> raw, std::uint64_t count) {
  trace::ByteReader r(raw);
  try {
    for (std::uint64_t i = 0; i < count && !r.empty(); ++i) {
      trace::Event event = trace::decode_event(r);
      check_event_round_trip(event);
    }
  } catch (const trace::FormatError&) {
  }
}

void chunk(std::vector<std::uint8_t> bytes) {
  if (bytes.size() < trace::kChunkHeaderSize) return;
  const std::size_t fields = trace::kChunkHeaderSize - 4;
  put_le32(bytes.data() + fields, trace::crc32_of(bytes.data(), fields));
  trace::ChunkHeader h;
  try {
    h = trace::decode_chunk_header(std::span(bytes).first(trace::kChunkHeaderSize));
  } catch (const trace::FormatError&) {
    return;
  }
  if (h.raw_len > kMaxFuzzRawBytes) return;
  std::span<const std::uint8_t> compressed = std::span(bytes).subspan(trace::kChunkHeaderSize);
  // The reader reads exactly compressed_len bytes, and only when the file has them.
  if (compressed.size() < h.compressed_len) return;
  compressed = compressed.first(h.compressed_len);
  std::vector<std::uint8_t> raw;
  trace::Decompressor decompressor;
  try {
    decompressor.decompress(h.codec, compressed, h.raw_len, raw);
  } catch (const trace::FormatError&) {
    return;
  }
  if (raw.size() != h.raw_len) broken("decompress() yields exactly raw_len bytes");
  events(raw, h.event_count);
}

// A trace directory with a valid header, made once; mode 4 rewrites its
// `events` file for every input.
class ScratchTrace {
 public:
  ScratchTrace() {
    char tmpl[] = "/tmp/trace_fuzz.XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) broken("mkdtemp works");
    dir_ = tmpl;
    trace::Header header;
    header.argv = {"prog"};
    write(trace::kHeaderFile, trace::encode_header_file(header));
  }
  ~ScratchTrace() { std::filesystem::remove_all(dir_); }

  void write(const char* name, const std::vector<std::uint8_t>& bytes) {
    std::ofstream out(dir_ + "/" + name, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!out) broken("the scratch trace can be written");
  }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

// The chunk header's layout (encode_chunk_header): magic u32, codec u8,
// raw_len u32, compressed_len u32, first_event u64, event_count u32,
// data_crc u32, header crc u32.
static_assert(trace::kChunkHeaderSize == 33, "the chunk header changed: update fix_chunk_checksums");
constexpr std::size_t kRawLenAt = 5;
constexpr std::size_t kCompressedLenAt = 9;
constexpr std::size_t kDataCrcAt = 25;

// Walks the chunks as the reader will, recomputing their data and header
// checksums in place. False if a chunk asks for more than kMaxFuzzRawBytes.
bool fix_chunk_checksums(std::vector<std::uint8_t>& file) {
  const std::size_t fields = trace::kChunkHeaderSize - 4;
  std::size_t at = trace::kPreambleSize;
  while (file.size() - at >= trace::kChunkHeaderSize) {
    std::uint8_t* head = file.data() + at;
    std::uint32_t raw_len = 0, compressed_len = 0;
    for (int i = 3; i >= 0; --i) {
      raw_len = raw_len << 8 | head[kRawLenAt + i];
      compressed_len = compressed_len << 8 | head[kCompressedLenAt + i];
    }
    if (raw_len > kMaxFuzzRawBytes) return false;
    std::size_t data = std::min<std::size_t>(compressed_len, file.size() - at - trace::kChunkHeaderSize);
    put_le32(head + kDataCrcAt, trace::chunk_data_check(head + trace::kChunkHeaderSize, data));
    put_le32(head + fields, trace::crc32_of(head, fields));
    at += trace::kChunkHeaderSize + data;
  }
  return true;
}

// seek(to) must land on event `to` (or the end) and the event it then reads
// must be the one the first pass read there.
void check_seek(trace::TraceReader& r, std::uint64_t to, const std::vector<trace::Event>& all) {
  r.seek(to);
  if (r.next_event_number() != std::min<std::uint64_t>(to, all.size())) broken("seek() lands on the event, or the end");
  std::optional<trace::Event> event = r.next();
  if (to >= all.size()) {
    if (event) broken("no event after a seek to the end");
  } else if (!event || !(*event == all[to])) {
    broken("the event after seek(n) is event n");
  }
}

void reader(std::span<const std::uint8_t> bytes) {
  static ScratchTrace scratch;
  if (bytes.empty()) return;
  // The first byte picks the event to seek to once the stream was read.
  std::uint64_t seek_to = bytes[0];
  std::vector<std::uint8_t> file = trace::encode_events_preamble();
  file.insert(file.end(), bytes.begin() + 1, bytes.end());
  if (!fix_chunk_checksums(file)) return;
  scratch.write(trace::kEventsFile, file);
  std::vector<trace::Event> all;
  try {
    trace::TraceReader r(scratch.dir());
    while (auto event = r.next()) {
      all.push_back(std::move(*event));
      if (r.next_event_number() != all.size()) broken("next_event_number() counts the events read");
    }
    if (r.next()) broken("next() stays at the end");
  } catch (const trace::TraceError&) {
    return;  // the stream is damaged: what matters is that it said so
  }
  // The stream read cleanly: seeks anywhere (backwards, forwards, from the
  // middle of a chunk) give back the same events.
  trace::TraceReader r(scratch.dir());
  check_seek(r, seek_to, all);
  check_seek(r, seek_to / 2, all);
  check_seek(r, seek_to + 3, all);
  check_seek(r, 0, all);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::vector<std::uint8_t> bytes(data + 1, data + size);
  switch (data[0] % 5) {
    case 0: header_file(std::move(bytes), /*fix_crc=*/true); break;
    case 1: header_file(std::move(bytes), /*fix_crc=*/false); break;
    case 2: chunk(std::move(bytes)); break;
    case 3: events(bytes, UINT64_MAX); break;
    case 4: reader(bytes); break;
  }
  return 0;
}

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
  return backstep::fuzz::mutate_trace_input(data, size, max_size, seed);
}
