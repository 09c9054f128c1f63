// libFuzzer target for what `backstep dump` and `backstep ps` print: the
// events the decoder accepts, turned into dump's lines (cli/event_text.cc)
// and ps's process table (engine/trace/process_list.h). It takes
// trace_fuzz's inputs (the layout at the top of trace_fuzz.cc, the same
// seeds and the same structure-aware mutator):
//   0, 1  a `header` file (0: its crc32 recomputed): dump's header lines
//   2     one chunk (its header's crc32 recomputed): the events of its data
//   3     a chunk's decompressed payload: its events
//   4     ignored here (trace_fuzz reads it through the TraceReader)
//
// Beyond crashes and sanitizer reports, a finding is any output that could
// drive the terminal: a control byte in an event's line, or a header line
// that is not exactly one line.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "cli/event_text.h"
#include "engine/trace/codec.h"
#include "engine/trace/encoding.h"
#include "engine/trace/format.h"
#include "engine/trace/printable.h"
#include "engine/trace/process_list.h"
#include "engine/trace/trace_error.h"
#include "fuzz/trace_mutator.h"

namespace trace = backstep::trace;

namespace {

[[noreturn]] void broken(const char* promise, const std::string& text) {
  std::fprintf(stderr, "dump_fuzz: broken promise: %s: %s\n", promise, trace::printable(text, 400).c_str());
  std::abort();
}

void put_le32(std::uint8_t* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

// No byte below 0x20 (newline included) and no DEL.
void require_one_safe_line(const std::string& text) {
  for (char c : text) {
    auto b = static_cast<unsigned char>(c);
    if (b < 0x20 || b == 0x7f) broken("an event's line holds no control byte", text);
  }
}

void header(std::vector<std::uint8_t> bytes, bool fix_crc) {
  if (fix_crc && bytes.size() >= 4) {
    std::size_t body = bytes.size() - 4;
    put_le32(bytes.data() + body, trace::crc32_of(bytes.data(), body));
  }
  trace::Header h;
  try {
    h = trace::decode_header_file(bytes, "header");
  } catch (const trace::TraceError&) {
    return;
  }
  std::string text = backstep::cli::header_text("/fuzz/trace", h);
  std::size_t lines = 0;
  for (std::size_t at = 0; at < text.size(); ++at) {
    if (text[at] == '\n') {
      ++lines;
      continue;
    }
    auto b = static_cast<unsigned char>(text[at]);
    if (b < 0x20 || b == 0x7f) broken("the header lines hold no control byte", text);
  }
  if (lines != 3) broken("dump's header is three lines", text);
}

// dump's line for each event that decodes, and ps's table from them.
void events(std::span<const std::uint8_t> raw, std::uint64_t count) {
  trace::Header h;
  h.argv = {"prog", "arg"};
  trace::ProcessList processes(h);
  trace::ByteReader r(raw);
  std::uint64_t n = 0;
  try {
    for (; n < count && !r.empty(); ++n) {
      trace::Event e = trace::decode_event(r);
      require_one_safe_line(backstep::cli::event_text(e));
      processes.add(n, e);
    }
  } catch (const trace::FormatError&) {
  } catch (const trace::TraceError&) {
    // ps refuses events that contradict the ones before them.
  }
  for (const trace::ProcessInfo& p : processes.processes())
    if (p.command) require_one_safe_line(trace::printable(*p.command));
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
  std::span<const std::uint8_t> compressed = std::span(bytes).subspan(trace::kChunkHeaderSize);
  if (h.raw_len > (1u << 20) || compressed.size() < h.compressed_len) return;
  std::vector<std::uint8_t> raw;
  try {
    trace::Decompressor().decompress(h.codec, compressed.first(h.compressed_len), h.raw_len, raw);
  } catch (const trace::FormatError&) {
    return;
  }
  events(raw, h.event_count);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::vector<std::uint8_t> bytes(data + 1, data + size);
  switch (data[0] % 5) {
    case 0: header(std::move(bytes), /*fix_crc=*/true); break;
    case 1: header(std::move(bytes), /*fix_crc=*/false); break;
    case 2: chunk(std::move(bytes)); break;
    case 3: events(bytes, UINT64_MAX); break;
    case 4: break;
  }
  return 0;
}

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
  return backstep::fuzz::mutate_trace_input(data, size, max_size, seed);
}
