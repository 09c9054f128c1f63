// The header's TLV encoding and the file-level framing (header file, events
// preamble, chunk headers). See docs/trace-format.md.
#include "engine/trace/format.h"

#include <xxhash.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "engine/trace/codec.h"
#include "engine/trace/encoding.h"
#include "engine/trace/trace_error.h"

namespace backstep::trace {

namespace {

// Header field tags. Every field is always written and required on read:
// the header is small and a missing field means a damaged or foreign file.
enum HeaderTag : uint8_t {
  kTagFormatVersion = 1,
  kTagBackstepVersion = 2,
  kTagArgv = 3,
  kTagEnvp = 4,
  kTagCwd = 5,
  kTagExe = 6,
  kTagCpuid = 7,
  kTagCounterMode = 8,
  kTagCodec = 9,
  kTagStartTime = 10,
  kTagRecordedCpu = 11,
  kTagCpuidFaulting = 12,
  // Optional, after the required ones: only a chaos recording has it.
  kTagChaosSeed = 13,
};
constexpr uint8_t kLastRequiredHeaderTag = kTagCpuidFaulting;

constexpr std::size_t kCpuidLeafSize = 6 * 4;

void put_strings(ByteWriter& w, uint8_t tag, const std::vector<std::string>& list) {
  auto f = w.begin_field(tag);
  w.u32(static_cast<uint32_t>(list.size()));
  for (const std::string& s : list) w.string(s);
  w.end_field(f);
}

void put_string(ByteWriter& w, uint8_t tag, const std::string& s) {
  auto f = w.begin_field(tag);
  w.raw(s.data(), s.size());
  w.end_field(f);
}

std::vector<std::string> get_strings(ByteReader& f) {
  std::vector<std::string> list(f.count(4));
  for (std::string& s : list) s = f.string();
  return list;
}

void decode_header_field(uint8_t tag, ByteReader& f, Header& h) {
  switch (tag) {
    case kTagFormatVersion: h.format_version = f.u32(); break;
    case kTagBackstepVersion: h.backstep_version = f.rest_string(); break;
    case kTagArgv: h.argv = get_strings(f); break;
    case kTagEnvp: h.envp = get_strings(f); break;
    case kTagCwd: h.cwd = f.rest_string(); break;
    case kTagExe: h.exe = f.rest_string(); break;
    case kTagCpuid:
      h.cpuid.resize(f.count(kCpuidLeafSize));
      for (CpuidLeaf& l : h.cpuid) {
        l.leaf = f.u32();
        l.subleaf = f.u32();
        l.eax = f.u32();
        l.ebx = f.u32();
        l.ecx = f.u32();
        l.edx = f.u32();
      }
      break;
    case kTagCounterMode: h.counter_mode = f.rest_string(); break;
    case kTagCodec: {
      uint8_t c = f.u8();
      if (!is_known_codec(c)) throw FormatError("unknown codec " + std::to_string(c));
      h.codec = static_cast<Codec>(c);
      break;
    }
    case kTagStartTime: h.start_time_ns = f.u64(); break;
    case kTagRecordedCpu: h.recorded_cpu = f.i32(); break;
    case kTagCpuidFaulting: {
      uint8_t v = f.u8();
      if (v > 1) throw FormatError("bad cpuid_faulting value " + std::to_string(v));
      h.cpuid_faulting = v == 1;
      break;
    }
    case kTagChaosSeed: h.chaos_seed = f.u64(); break;
    default: throw FormatError("unknown field tag " + std::to_string(tag));
  }
  f.expect_end("header field");
}

uint32_t get_le32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

}  // namespace

std::vector<uint8_t> encode_header(const Header& h) {
  std::vector<uint8_t> out;
  ByteWriter w(out);
  auto f = w.begin_field(kTagFormatVersion);
  // Always this build's version: the writer only knows how to write that.
  w.u32(kFormatVersion);
  w.end_field(f);
  put_string(w, kTagBackstepVersion, h.backstep_version);
  put_strings(w, kTagArgv, h.argv);
  put_strings(w, kTagEnvp, h.envp);
  put_string(w, kTagCwd, h.cwd);
  put_string(w, kTagExe, h.exe);
  f = w.begin_field(kTagCpuid);
  w.u32(static_cast<uint32_t>(h.cpuid.size()));
  for (const CpuidLeaf& l : h.cpuid) {
    for (uint32_t v : {l.leaf, l.subleaf, l.eax, l.ebx, l.ecx, l.edx}) w.u32(v);
  }
  w.end_field(f);
  put_string(w, kTagCounterMode, h.counter_mode);
  f = w.begin_field(kTagCodec);
  w.u8(static_cast<uint8_t>(h.codec));
  w.end_field(f);
  f = w.begin_field(kTagStartTime);
  w.u64(h.start_time_ns);
  w.end_field(f);
  f = w.begin_field(kTagRecordedCpu);
  w.i32(h.recorded_cpu);
  w.end_field(f);
  f = w.begin_field(kTagCpuidFaulting);
  w.u8(h.cpuid_faulting ? 1 : 0);
  w.end_field(f);
  if (h.chaos_seed) {
    f = w.begin_field(kTagChaosSeed);
    w.u64(*h.chaos_seed);
    w.end_field(f);
  }
  return out;
}

Header decode_header(ByteReader& r) {
  Header h;
  uint64_t seen = for_each_field(r, [&](uint8_t tag, ByteReader& f) { decode_header_field(tag, f, h); });
  for (uint8_t tag = 1; tag <= kLastRequiredHeaderTag; ++tag)
    if (!(seen & (uint64_t{1} << tag))) throw FormatError("missing field tag " + std::to_string(tag));
  return h;
}

uint32_t chunk_data_check(const uint8_t* data, std::size_t size) {
  return static_cast<uint32_t>(XXH3_64bits(data, size));
}

uint32_t crc32_of(const uint8_t* data, std::size_t size) {
  // zlib's crc32 takes a uInt length; feed it in pieces to stay portable.
  uLong crc = crc32(0L, Z_NULL, 0);
  while (size > 0) {
    uInt piece = static_cast<uInt>(std::min<std::size_t>(size, 1u << 30));
    crc = crc32(crc, data, piece);
    data += piece;
    size -= piece;
  }
  return static_cast<uint32_t>(crc);
}

std::string version_mismatch(uint32_t found) {
  return "trace format version " + std::to_string(found) + ", this backstep reads version " +
         std::to_string(kFormatVersion);
}

// ---- header file ------------------------------------------------------------

std::vector<uint8_t> encode_header_file(const Header& header) {
  if (!is_known_codec(static_cast<uint8_t>(header.codec)))
    throw FormatError("unknown codec " + std::to_string(static_cast<unsigned>(header.codec)));
  std::vector<uint8_t> out(kHeaderMagic, kHeaderMagic + sizeof kHeaderMagic);
  ByteWriter w(out);
  w.u32(kFormatVersion);
  std::vector<uint8_t> body = encode_header(header);
  w.raw(body.data(), body.size());
  w.u32(crc32_of(out.data(), out.size()));
  return out;
}

Header decode_header_file(std::span<const uint8_t> bytes, const std::string& path) {
  if (bytes.size() < sizeof kHeaderMagic || std::memcmp(bytes.data(), kHeaderMagic, sizeof kHeaderMagic) != 0)
    throw TraceError(path + ": not a backstep trace (bad magic)");
  if (bytes.size() < kPreambleSize + 4) throw TraceError(path + ": corrupt header (file too short)");
  // The version comes before the checksum: another version may frame the
  // rest differently, and "wrong version" is the more useful message.
  uint32_t version = get_le32(bytes.data() + sizeof kHeaderMagic);
  if (version != kFormatVersion) throw TraceError(path + ": " + version_mismatch(version));
  std::size_t body_end = bytes.size() - 4;
  if (crc32_of(bytes.data(), body_end) != get_le32(bytes.data() + body_end))
    throw TraceError(path + ": corrupt header (checksum mismatch)");
  try {
    ByteReader r(bytes.data() + kPreambleSize, body_end - kPreambleSize);
    Header h = decode_header(r);
    if (h.format_version != kFormatVersion)
      throw FormatError("version field says " + std::to_string(h.format_version));
    return h;
  } catch (const FormatError& e) {
    throw TraceError(path + ": corrupt header: " + e.what());
  }
}

// ---- events file --------------------------------------------------------------

std::vector<uint8_t> encode_events_preamble() {
  std::vector<uint8_t> out(kEventsMagic, kEventsMagic + sizeof kEventsMagic);
  ByteWriter(out).u32(kFormatVersion);
  return out;
}

void check_events_preamble(std::span<const uint8_t> bytes, const std::string& path) {
  if (bytes.size() < kPreambleSize || std::memcmp(bytes.data(), kEventsMagic, sizeof kEventsMagic) != 0)
    throw TraceError(path + ": not a backstep events file (bad magic)");
  uint32_t version = get_le32(bytes.data() + sizeof kEventsMagic);
  if (version != kFormatVersion) throw TraceError(path + ": " + version_mismatch(version));
}

void encode_chunk_header(const ChunkHeader& h, uint8_t* out) {
  std::vector<uint8_t> buf;
  buf.reserve(kChunkHeaderSize);
  ByteWriter w(buf);
  w.u32(kChunkMagic);
  w.u8(static_cast<uint8_t>(h.codec));
  w.u32(h.raw_len);
  w.u32(h.compressed_len);
  w.u64(h.first_event);
  w.u32(h.event_count);
  w.u32(h.data_crc);
  w.u32(crc32_of(buf.data(), buf.size()));
  std::memcpy(out, buf.data(), kChunkHeaderSize);
}

ChunkHeader decode_chunk_header(std::span<const uint8_t> bytes) {
  ByteReader r(bytes.first(kChunkHeaderSize));
  if (r.u32() != kChunkMagic) throw FormatError("bad chunk magic");
  // Check the header's own checksum before trusting any length in it.
  const std::size_t fields = kChunkHeaderSize - 4;
  if (crc32_of(bytes.data(), fields) != get_le32(bytes.data() + fields))
    throw FormatError("chunk header checksum mismatch");
  ChunkHeader h;
  uint8_t codec = r.u8();
  if (!is_known_codec(codec)) throw FormatError("unknown codec " + std::to_string(codec));
  h.codec = static_cast<Codec>(codec);
  h.raw_len = r.u32();
  h.compressed_len = r.u32();
  h.first_event = r.u64();
  h.event_count = r.u32();
  h.data_crc = r.u32();
  if (h.raw_len > kMaxChunkRawBytes)
    throw FormatError("raw size " + std::to_string(h.raw_len) + " exceeds the limit of " +
                      std::to_string(kMaxChunkRawBytes));
  if (h.compressed_len > max_compressed_size(h.codec, h.raw_len))
    throw FormatError("compressed size " + std::to_string(h.compressed_len) +
                      " is impossible for raw size " + std::to_string(h.raw_len));
  // Every event takes at least 9 bytes (kind, tid, payload length).
  if (h.event_count == 0 || h.event_count > h.raw_len / 9)
    throw FormatError("event count " + std::to_string(h.event_count) +
                      " is impossible for raw size " + std::to_string(h.raw_len));
  return h;
}

}  // namespace backstep::trace
