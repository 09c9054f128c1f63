// Writes the seed corpus under fuzz/corpus/: real bytes, not invented ones.
//   rsp/    packets gdb 13 sends in a reverse-debugging session, framed by
//           encode_packet() (valid checksums), with the flags byte rsp_fuzz reads
//   trace/  the `header` file and the chunks of a small trace written by the
//           real TraceWriter (one zstd, one zlib), a chunk's raw payload and
//           the whole events file, each behind the mode byte trace_fuzz reads
// Usage: make_seeds CORPUS_DIR. The committed corpus came from this program;
// run it again after a format change (fuzz/README.md).
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include "engine/trace/codec.h"
#include "engine/trace/format.h"
#include "engine/trace/writer.h"
#include "gdbserver/rsp/framing.h"
#include "gdbserver/rsp/hex.h"

namespace fs = std::filesystem;
namespace trace = backstep::trace;

namespace {

void write_file(const fs::path& path, std::uint8_t first, std::span<const std::uint8_t> rest) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.put(static_cast<char>(first));
  out.write(reinterpret_cast<const char*>(rest.data()), static_cast<std::streamsize>(rest.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::vector<std::uint8_t> slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::span<const std::uint8_t> bytes_of(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

// rsp_fuzz flags: bit 0 no-ack, bit 1 small limit, bits 2..7 read size - 1.
void rsp_seeds(const fs::path& dir) {
  fs::create_directories(dir);
  // The start of a session, as gdb 13 sends it before QStartNoAckMode, acks included.
  std::string handshake = "+" + backstep::rsp::encode_packet(
                                    "qSupported:multiprocess+;swbreak+;hwbreak+;qRelocInsn+;fork-events+;"
                                    "vfork-events+;exec-events+;vContSupported+;QThreadEvents+;"
                                    "no-resumed+;memory-tagging+;xmlRegisters=i386") +
                          "+" + backstep::rsp::encode_packet("vMustReplyEmpty") + "+" +
                          backstep::rsp::encode_packet("QStartNoAckMode") + "+";
  write_file(dir / "handshake", 0x00, bytes_of(handshake));

  // After no-ack: one packet per seed, then a few sessions' worth of them.
  const char* packets[] = {
      "Hgp0.0", "qXfer:features:read:target.xml:0,1000", "qTStatus", "?", "qfThreadInfo",
      "qsThreadInfo", "qAttached:1a2b", "Hc-1", "qC", "qOffsets", "g", "p10",
      "m401126,4", "x401126,100", "M7ffe0000,4:01020304", "X7ffe0000,2:\x01}",
      "Z0,401136,1", "z0,401136,1", "Z2,404028,4", "vCont?", "vCont;c:p1a2.-1", "vCont;s:p1a2.1a2;c",
      "vCont;r401000,401010:p1a2.1a2", "bc", "bs", "c", "s", "C0b", "vKill;1a2b", "D;1a2b",
      "vRun;2f746d702f70726f67;6172", "QPassSignals:e;14;1c;", "QProgramSignals:0;1;3;4;6;7;8;9;a;b;",
      "QCatchSyscalls:1;0;1;3c", "QDisableRandomization:1", "QEnvironmentHexEncoded:483d31",
      "QSetWorkingDir:2f746d70", "qSymbol::", "qRcmd,7768656e", "qXfer:auxv:read::0,1000",
      "qXfer:exec-file:read:1a2b:0,fff", "qXfer:libraries-svr4:read::0,fff", "vFile:setfs:0",
      "vFile:open:2f6c69622f6c6962632e736f2e36,0,1c0", "vFile:pread:5,3fff,0", "vFile:close:5",
      "vFile:fstat:5", "qThreadExtraInfo,p1a2.1a2", "Tp1a2.1a2", "P10=0010400000000000",
      "G00000000000000000000000000000000", "qMemoryRegionInfo:7ffff7fcc060", "qHostInfo",
      "qProcessInfo", "QThreadSuffixSupported", "QListThreadsInStopReply", "g;thread:1b;",
      "qRegisterInfo3a", "qWatchpointSupportInfo:", "jThreadsInfo", "k", "!", "QNonStop:0",
  };
  std::string session;
  int n = 0;
  for (const char* payload : packets) {
    std::string wire = backstep::rsp::encode_packet(payload);
    char name[32];
    std::snprintf(name, sizeof name, "packet-%02d", n++);
    write_file(dir / name, 0x01, bytes_of(wire));
    session += wire;
  }
  // The same packets in 3-byte reads, with an interrupt between two of them.
  session.insert(session.size() / 2, "\x03");
  write_file(dir / "session-no-ack", 0x01 | (2 << 2), bytes_of(session));
  // Run-length encoding as a client may send it ("0" repeated), and an escape.
  std::string raw = "G0*\"1}]";
  std::string rle = "$" + raw + "#" + backstep::rsp::hex_le(backstep::rsp::checksum(raw), 1);
  write_file(dir / "run-length", 0x00, bytes_of(rle));
  // A packet longer than the small limit.
  write_file(dir / "too-long", 0x03, bytes_of(backstep::rsp::encode_packet(std::string(100, 'a'))));
}

trace::Header small_header(trace::Codec codec) {
  trace::Header h;
  h.backstep_version = "0.1.0";
  h.argv = {"./buggy", "3"};
  h.envp = {"PATH=/usr/bin", "HOME=/root"};
  h.cwd = "/tmp";
  h.exe = "/tmp/buggy";
  h.cpuid = {{0, 0, 0xd, 0x756e6547, 0x6c65746e, 0x49656e69}, {7, 0, 1, 2, 3, 4}};
  h.counter_mode = "none";
  h.codec = codec;
  h.start_time_ns = 1700000000123456789ull;
  h.recorded_cpu = 1;
  return h;
}

// One event of each kind, each field used by at least one of them.
std::vector<trace::Event> small_events() {
  using trace::EventKind;
  trace::RegBlock regs{};
  for (std::size_t i = 0; i < regs.size(); ++i) regs[i] = 0x401000 + i * 8;
  std::vector<trace::Event> events;
  trace::Event exec{EventKind::Exec, 4242};
  exec.regs = regs;
  exec.mappings = {{0x400000, 0x401000, 5, 2, 0, trace::MappingKind::File, "files/buggy-0", "/tmp/buggy"},
                   {0x7ffffffde000, 0x7ffffffff000, 3, 0x22, 0, trace::MappingKind::Stack, "", "[stack]"}};
  exec.writes = {{0x7fffffffe000, {1, 2, 3, 4, 5, 6, 7, 8}}};
  exec.status = 0x405000;
  events.push_back(exec);
  trace::Event write{EventKind::Syscall, 4242};
  write.regs = regs;
  write.reg_changes = {{10, 6}};
  write.echoes = {{1, {'h', 'e', 'l', 'l', 'o', '\n'}}};
  events.push_back(write);
  trace::Event rdtsc{EventKind::Rdtsc, 4242};
  rdtsc.regs = regs;
  rdtsc.reg_changes = {{10, 0x1234}, {12, 0}};
  events.push_back(rdtsc);
  trace::Event signal{EventKind::Signal, 4242};
  signal.regs = regs;
  signal.siginfo.assign(128, 0);
  signal.siginfo[0] = 11;
  signal.xstate.assign(576, 0x7f);
  signal.status = 11;
  events.push_back(signal);
  trace::Event fatal{EventKind::FatalSignal, 4242};
  fatal.status = 11;
  events.push_back(fatal);
  trace::Event exit{EventKind::Exit, 4242};
  exit.status = 0x8b;
  events.push_back(exit);
  return events;
}

void trace_seeds(const fs::path& dir) {
  fs::create_directories(dir);
  char tmpl[] = "/tmp/make_seeds.XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) throw std::runtime_error("mkdtemp failed");
  fs::path tmp = tmpl;
  for (trace::Codec codec : {trace::Codec::Zstd, trace::Codec::Zlib}) {
    std::string name = codec == trace::Codec::Zstd ? "zstd" : "zlib";
    fs::path trace_dir = tmp / name;
    {
      trace::TraceWriter writer(trace_dir.string(), small_header(codec));
      for (const trace::Event& e : small_events()) writer.write(e);
      writer.finish();
    }
    std::vector<std::uint8_t> header = slurp(trace_dir / trace::kHeaderFile);
    std::vector<std::uint8_t> events = slurp(trace_dir / trace::kEventsFile);
    if (codec == trace::Codec::Zstd) {
      write_file(dir / "header-fixed-crc", 0, header);
      write_file(dir / "header", 1, header);
    }
    // The whole stream for the reader mode: the event to seek to, then the
    // events file after its preamble.
    std::span<const std::uint8_t> rest = std::span(events).subspan(trace::kPreambleSize);
    std::vector<std::uint8_t> stream{3};
    stream.insert(stream.end(), rest.begin(), rest.end());
    write_file(dir / ("events-file-" + name), 4, stream);
    // Every chunk of the events file (a trace this small has one).
    for (int n = 0; !rest.empty(); ++n) {
      trace::ChunkHeader h = trace::decode_chunk_header(rest.first(trace::kChunkHeaderSize));
      std::span<const std::uint8_t> whole = rest.first(trace::kChunkHeaderSize + h.compressed_len);
      write_file(dir / ("chunk-" + name + "-" + std::to_string(n)), 2, whole);
      if (codec == trace::Codec::Zstd && n == 0) {
        std::vector<std::uint8_t> raw;
        trace::Decompressor().decompress(h.codec, whole.subspan(trace::kChunkHeaderSize), h.raw_len, raw);
        write_file(dir / "events-raw", 3, raw);
      }
      rest = rest.subspan(whole.size());
    }
  }
  fs::remove_all(tmp);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_seeds CORPUS_DIR\n");
    return 2;
  }
  try {
    rsp_seeds(fs::path(argv[1]) / "rsp");
    trace_seeds(fs::path(argv[1]) / "trace");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_seeds: %s\n", e.what());
    return 1;
  }
  return 0;
}
