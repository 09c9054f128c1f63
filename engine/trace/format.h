// File-level framing of a trace: the `header` file, the `events` file's
// preamble and the header in front of each compressed chunk. Reader and writer
// both use these, so a layout change is made in one place. Private to
// engine/trace; docs/trace-format.md describes the bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/trace/event.h"

namespace backstep::trace {

// Names inside a trace directory.
inline constexpr const char* kHeaderFile = "header";
inline constexpr const char* kEventsFile = "events";
inline constexpr const char* kFilesDir = "files";
// Why the recording stopped, when the writer could not say so in `events`
// (the disk filled up). Created with kStopReasonReserve bytes of NULs, so
// that the reason can be written without allocating space.
inline constexpr const char* kStopReasonFile = "stop-reason";
inline constexpr std::size_t kStopReasonReserve = 4096;

// "BSTRACE\n": `head -c 8 header` identifies a trace.
inline constexpr char kHeaderMagic[8] = {'B', 'S', 'T', 'R', 'A', 'C', 'E', '\n'};
inline constexpr char kEventsMagic[8] = {'B', 'S', 'E', 'V', 'E', 'N', 'T', 'S'};
// Magic (8 bytes) + u32 format version.
inline constexpr std::size_t kPreambleSize = 12;

// A header file larger than this is not ours: refuse before reading it.
inline constexpr std::size_t kMaxHeaderFileSize = 64u << 20;

// Chunks are cut once they hold this many bytes or events (or when the
// writer's flush interval has passed).
inline constexpr std::size_t kChunkTargetBytes = 1u << 20;
inline constexpr uint32_t kChunkMaxEvents = 4096;
// No chunk (hence no single event) may decompress to more than this. The
// reader allocates the raw size up front, so it must be bounded.
inline constexpr std::size_t kMaxChunkRawBytes = 256u << 20;

// "BSCK" read as a little-endian u32.
inline constexpr uint32_t kChunkMagic = 0x4b435342;
inline constexpr std::size_t kChunkHeaderSize = 4 + 1 + 4 + 4 + 8 + 4 + 4 + 4;

struct ChunkHeader {
  Codec codec = Codec::Zstd;
  uint32_t raw_len = 0;
  uint32_t compressed_len = 0;
  uint64_t first_event = 0;
  uint32_t event_count = 0;
  uint32_t data_crc = 0;  // chunk_data_check of the compressed bytes
};

// Serializes `h`, appending its own checksum, into exactly kChunkHeaderSize bytes.
void encode_chunk_header(const ChunkHeader& h, uint8_t* out);
// Parses and checks magic, checksum, codec and size limits. Throws
// FormatError saying what is wrong; `bytes` holds kChunkHeaderSize bytes.
ChunkHeader decode_chunk_header(std::span<const uint8_t> bytes);

// zlib's crc32 of a byte range.
uint32_t crc32_of(const uint8_t* data, std::size_t size);
// A chunk's data check: the low 32 bits of its XXH3-64 hash (a CRC-32 runs
// at a tenth of the speed, and chunks of stored data are as large as the
// program's reads).
uint32_t chunk_data_check(const uint8_t* data, std::size_t size);

// The whole `header` file: magic, version, TLV header, crc32.
std::vector<uint8_t> encode_header_file(const Header& header);

// Parses a `header` file; `path` is used in error messages. Throws TraceError.
Header decode_header_file(std::span<const uint8_t> bytes, const std::string& path);

// The `events` file's preamble: magic and version.
std::vector<uint8_t> encode_events_preamble();
// Throws TraceError (naming `path`) if `bytes` (kPreambleSize of them) is not
// an events preamble of this format version.
void check_events_preamble(std::span<const uint8_t> bytes, const std::string& path);

// "trace format version 3, this backstep reads version 1"
std::string version_mismatch(uint32_t found);

}  // namespace backstep::trace
