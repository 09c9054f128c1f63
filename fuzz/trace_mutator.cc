#include "fuzz/trace_mutator.h"

#include <algorithm>
#include <cstring>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "engine/trace/codec.h"
#include "engine/trace/encoding.h"
#include "engine/trace/format.h"

extern "C" std::size_t LLVMFuzzerMutate(uint8_t* data, std::size_t size, std::size_t max_size);

namespace backstep::fuzz {
namespace {

namespace trace = backstep::trace;
using Bytes = std::vector<uint8_t>;

// Modes of the input's first byte (trace_fuzz.cc).
constexpr uint8_t kModeChunk = 2, kModePayload = 3, kModeEventsFile = 4, kModes = 5;
constexpr std::size_t kMaxRaw = 1u << 20;  // trace_fuzz's kMaxFuzzRawBytes

// Field tags (docs/trace-format.md).
constexpr uint8_t kTagRegChanges = 2, kTagWrites = 3, kTagMappings = 5, kTagEchoes = 7, kTagStatus = 8,
                  kTagWritten = 10, kTagPosition = 11, kTagArgv = 13, kTagObjectWrites = 14;

struct Field {
  uint8_t tag = 0;
  Bytes content;
};
struct RawEvent {
  uint8_t kind = 0;
  uint32_t tid = 0;
  std::vector<Field> fields;
};

uint32_t get32(const uint8_t* p) { return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24; }
void put32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
void append32(Bytes& out, uint32_t v) {
  uint8_t b[4];
  put32(b, v);
  out.insert(out.end(), b, b + 4);
}
void append64(Bytes& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

// Events as far as their framing goes; false if not even one event frames.
bool parse_events(std::span<const uint8_t> raw, std::vector<RawEvent>& out) {
  std::size_t at = 0;
  while (raw.size() - at >= 9) {
    RawEvent e;
    e.kind = raw[at];
    e.tid = get32(&raw[at + 1]);
    uint32_t len = get32(&raw[at + 5]);
    if (len > raw.size() - at - 9) break;
    std::span<const uint8_t> payload = raw.subspan(at + 9, len);
    for (std::size_t p = 0; payload.size() - p >= 5;) {
      uint32_t flen = get32(&payload[p + 1]);
      if (flen > payload.size() - p - 5) break;
      e.fields.push_back({payload[p], Bytes(payload.begin() + p + 5, payload.begin() + p + 5 + flen)});
      p += 5 + flen;
    }
    out.push_back(std::move(e));
    at += 9 + len;
  }
  return !out.empty();
}

Bytes serialize(const std::vector<RawEvent>& events) {
  Bytes out;
  for (const RawEvent& e : events) {
    out.push_back(e.kind);
    append32(out, e.tid);
    std::size_t len_at = out.size();
    append32(out, 0);
    for (const Field& f : e.fields) {
      out.push_back(f.tag);
      append32(out, static_cast<uint32_t>(f.content.size()));
      out.insert(out.end(), f.content.begin(), f.content.end());
    }
    put32(&out[len_at], static_cast<uint32_t>(out.size() - len_at - 4));
  }
  return out;
}

Field* find_field(RawEvent& e, uint8_t tag) {
  for (Field& f : e.fields)
    if (f.tag == tag) return &f;
  return nullptr;
}

template <typename T>
T pick(std::mt19937& rng, std::initializer_list<T> values) {
  return *(values.begin() + rng() % values.size());
}

// One change a forger would make to one event of `events`.
void mutate_events(std::vector<RawEvent>& events, std::mt19937& rng) {
  RawEvent& e = events[rng() % events.size()];
  switch (rng() % 10) {
    case 0:  // an event kind, valid or not
      e.kind = static_cast<uint8_t>(rng() % 16);
      break;
    case 1:  // a thread id at and beyond the ends of its range
      e.tid = pick<uint32_t>(rng, {0, 1, 4u << 20, (4u << 20) + 1, 0xffffffff, static_cast<uint32_t>(rng())});
      break;
    case 2: {  // a status: signal numbers, wait statuses, ABIs, tids
      int64_t s = pick<int64_t>(rng, {0, 1, -1, 9, 64, 65, 200, 0x7f, 0x80, 0x8b, 0xff00, 0x10000, 0x40000003,
                                      INT64_MIN, INT64_MAX, static_cast<int64_t>(rng())});
      Field* f = find_field(e, kTagStatus);
      if (!f) e.fields.push_back({kTagStatus, {}}), f = &e.fields.back();
      f->content.clear();
      append64(f->content, static_cast<uint64_t>(s));
      break;
    }
    case 3: {  // a count at the start of a list field
      Field* f = find_field(e, pick<uint8_t>(rng, {kTagRegChanges, kTagWrites, kTagMappings, kTagEchoes, kTagArgv,
                                                   kTagObjectWrites}));
      if (!f || f->content.size() < 4) break;
      uint32_t n = get32(f->content.data());
      put32(f->content.data(), pick<uint32_t>(rng, {0, 1, n + 1, n - 1, 0xffffffff, static_cast<uint32_t>(rng())}));
      break;
    }
    case 4: {  // an enum value inside a field
      auto set = [&](uint8_t tag, std::size_t at) {
        Field* f = find_field(e, tag);
        if (f && f->content.size() > at) f->content[at] = static_cast<uint8_t>(rng() % 16);
      };
      switch (rng() % 4) {
        case 0: set(kTagMappings, 4 + 32); break;  // the first mapping's kind
        case 1: set(kTagWritten, 0); break;        // written-data form
        case 2: set(kTagPosition, 8); break;       // position flags
        case 3: set(kTagEchoes, 4); break;         // the first echo's fd
      }
      break;
    }
    case 5: {  // a field one size off, or empty (regs of 215 bytes, siginfo of 127)
      if (e.fields.empty()) break;
      Field& f = e.fields[rng() % e.fields.size()];
      if (rng() % 3 == 0) f.content.clear();
      else if (rng() % 2 == 0 && !f.content.empty()) f.content.pop_back();
      else f.content.push_back(static_cast<uint8_t>(rng()));
      break;
    }
    case 6: {  // the first mapping's copy: a path that leaves the trace
      Field* f = find_field(e, kTagMappings);
      constexpr std::size_t kFileAt = 4 + 33;
      if (!f || f->content.size() < kFileAt + 4) break;
      uint32_t old_len = get32(&f->content[kFileAt]);
      if (old_len > f->content.size() - kFileAt - 4) break;
      std::string path = pick<std::string>(rng, {"../x", "/etc/passwd", "files/../../x", "", "files//x", "files/x"});
      Bytes fresh(f->content.begin(), f->content.begin() + kFileAt);
      append32(fresh, static_cast<uint32_t>(path.size()));
      fresh.insert(fresh.end(), path.begin(), path.end());
      fresh.insert(fresh.end(), f->content.begin() + kFileAt + 4 + old_len, f->content.end());
      f->content = std::move(fresh);
      break;
    }
    case 7:  // a field's content, byte-level
      if (!e.fields.empty()) {
        Field& f = e.fields[rng() % e.fields.size()];
        std::size_t size = f.content.size();
        f.content.resize(size + 64);
        f.content.resize(LLVMFuzzerMutate(f.content.data(), size, f.content.size()));
      }
      break;
    case 8:  // a field (another event's, or a new tag) added, or one dropped
      if (rng() % 2 == 0 && !e.fields.empty()) {
        e.fields.erase(e.fields.begin() + rng() % e.fields.size());
      } else {
        const RawEvent& other = events[rng() % events.size()];
        if (!other.fields.empty()) e.fields.push_back(other.fields[rng() % other.fields.size()]);
        else e.fields.push_back({static_cast<uint8_t>(rng() % 64), {}});
      }
      break;
    case 9:  // events reordered, repeated or dropped
      if (events.size() > 1 && rng() % 2 == 0) {
        std::swap(events[rng() % events.size()], events[rng() % events.size()]);
      } else if (rng() % 2 == 0) {
        events.push_back(events[rng() % events.size()]);
      } else if (events.size() > 1) {
        events.erase(events.begin() + rng() % events.size());
      }
      break;
  }
}

// A chunk: its header and the events of its data (decompressed).
struct Chunk {
  trace::ChunkHeader header;
  std::vector<RawEvent> events;
};

// Parses back-to-back chunks (without the events preamble). Data that
// does not decompress ends the list.
std::vector<Chunk> parse_chunks(std::span<const uint8_t> bytes) {
  std::vector<Chunk> chunks;
  trace::Decompressor decompressor;
  std::size_t at = 0;
  while (bytes.size() - at >= trace::kChunkHeaderSize) {
    Chunk c;
    try {
      Bytes head(bytes.begin() + at, bytes.begin() + at + trace::kChunkHeaderSize);
      put32(&head[trace::kChunkHeaderSize - 4], trace::crc32_of(head.data(), trace::kChunkHeaderSize - 4));
      c.header = trace::decode_chunk_header(head);
      if (c.header.raw_len > kMaxRaw || c.header.compressed_len > bytes.size() - at - trace::kChunkHeaderSize) break;
      Bytes raw;
      decompressor.decompress(c.header.codec, bytes.subspan(at + trace::kChunkHeaderSize, c.header.compressed_len),
                              c.header.raw_len, raw);
      if (!parse_events(raw, c.events)) break;
    } catch (const trace::FormatError&) {
      break;
    }
    at += trace::kChunkHeaderSize + c.header.compressed_len;
    chunks.push_back(std::move(c));
  }
  return chunks;
}

// Chunks with consistent sizes, counts, numbering and checksums; stored
// (codec 3) or, one time in four, zlib.
Bytes serialize_chunks(std::vector<Chunk>& chunks, std::mt19937& rng) {
  Bytes out;
  uint64_t first = 0;
  for (Chunk& c : chunks) {
    Bytes raw = serialize(c.events);
    Bytes data;
    trace::ChunkHeader h;
    h.codec = trace::Codec::Stored;
    if (rng() % 4 == 0 && trace::Compressor(trace::Codec::Zlib).compress(raw, data) == trace::Codec::Zlib) {
      h.codec = trace::Codec::Zlib;
    } else {
      data = raw;
    }
    h.raw_len = static_cast<uint32_t>(raw.size());
    h.compressed_len = static_cast<uint32_t>(data.size());
    h.first_event = first;
    h.event_count = static_cast<uint32_t>(c.events.size());
    h.data_crc = trace::chunk_data_check(data.data(), data.size());
    first += c.events.size();
    std::size_t head_at = out.size();
    out.resize(head_at + trace::kChunkHeaderSize);
    trace::encode_chunk_header(h, out.data() + head_at);
    out.insert(out.end(), data.begin(), data.end());
  }
  return out;
}

// The structure-aware mutation of the input after its mode byte; false
// when it does not decode far enough for one.
bool mutate_structure(uint8_t mode, Bytes& body, std::mt19937& rng) {
  switch (mode) {
    case kModePayload: {
      std::vector<RawEvent> events;
      if (!parse_events(body, events)) return false;
      mutate_events(events, rng);
      body = serialize(events);
      return true;
    }
    case kModeChunk:
    case kModeEventsFile: {
      // Mode 4's first byte is the event it seeks to; its chunks follow.
      std::size_t skip = mode == kModeEventsFile ? 1 : 0;
      if (body.size() < skip) return false;
      std::vector<Chunk> chunks = parse_chunks(std::span<const uint8_t>(body).subspan(skip));
      if (chunks.empty()) return false;
      if (mode == kModeChunk) chunks.resize(1);
      mutate_events(chunks[rng() % chunks.size()].events, rng);
      Bytes fresh(body.begin(), body.begin() + static_cast<std::ptrdiff_t>(skip));
      Bytes encoded = serialize_chunks(chunks, rng);
      fresh.insert(fresh.end(), encoded.begin(), encoded.end());
      body = std::move(fresh);
      return true;
    }
  }
  return false;
}

}  // namespace

std::size_t mutate_trace_input(uint8_t* data, std::size_t size, std::size_t max_size, unsigned seed) {
  std::mt19937 rng(seed);
  if (size >= 1 && rng() % 2 == 0) {
    uint8_t mode = data[0] % kModes;
    Bytes body(data + 1, data + size);
    if (mutate_structure(mode, body, rng) && body.size() + 1 <= max_size) {
      std::memcpy(data + 1, body.data(), body.size());
      return body.size() + 1;
    }
  }
  return LLVMFuzzerMutate(data, size, max_size);
}

}  // namespace backstep::fuzz
