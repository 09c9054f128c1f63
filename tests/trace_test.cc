// Unit tests of the trace format: round trips, and every way a trace can be
// damaged (flipped bytes, truncation, wrong version) ending in a TraceError
// that names the file, never in a crash.
#define BOOST_TEST_MODULE trace
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <thread>

#include "engine/trace/codec.h"
#include "engine/trace/encoding.h"
#include "engine/trace/format.h"
#include "engine/trace/reader.h"
#include "engine/trace/stored_state.h"
#include "engine/trace/trace_error.h"
#include "engine/trace/writer.h"
#include "engine/trace/written_data.h"
#include "tests/support/temp_dir.h"

using namespace backstep::trace;
namespace fs = std::filesystem;

namespace {

struct TempDir : backstep::testing::TempDir {
  TempDir() : backstep::testing::TempDir("trace_test") {}
};

std::vector<uint8_t> slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void spit(const std::string& path, const std::vector<uint8_t>& bytes) {
  fs::permissions(path, fs::perms::owner_write, fs::perm_options::add);
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

Header sample_header(Codec codec) {
  Header h;
  h.backstep_version = "0.1.0";
  h.argv = {"./prog", "arg with space", ""};
  h.envp = {"PATH=/usr/bin", "HOME=/root"};
  h.cwd = "/home/user";
  h.exe = "/home/user/prog";
  h.cpuid = {{0, 0, 0xd, 0x756e6547, 0x6c65746e, 0x49656e69}, {7, 0, 1, 2, 3, 4}};
  h.counter_mode = "none";
  h.codec = codec;
  h.start_time_ns = 1700000000123456789ull;
  h.recorded_cpu = 3;
  return h;
}

std::vector<uint8_t> random_bytes(std::mt19937_64& rng, std::size_t n) {
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng() % 7);  // compressible, like real memory
  return v;
}

// A `status` the decoder accepts for an event of `kind`.
int64_t valid_status(std::mt19937_64& rng, EventKind kind) {
  switch (kind) {
    case EventKind::Exec: return static_cast<int64_t>(rng() >> 17);  // a program break
    case EventKind::Syscall: return rng() % 2 ? kSyscallAbiI386 : 0;
    case EventKind::Signal:
    case EventKind::FatalSignal: return static_cast<int64_t>(1 + rng() % kMaxSignal);
    case EventKind::Exit: return rng() % 2 ? static_cast<int64_t>(rng() % 256) << 8 : static_cast<int64_t>(1 + rng() % 64);
    default: return 0;
  }
}

// An event of kind 1 + i % 7 with a random subset of fields filled in.
Event make_event(std::mt19937_64& rng, uint64_t i) {
  Event e;
  e.kind = static_cast<EventKind>(1 + i % 7);
  e.tid = 1000 + static_cast<uint32_t>(i % 3);
  // Exec, Syscall, Rdtsc and Signal events always have registers.
  if (e.kind <= EventKind::Signal || rng() % 4 != 0) {
    RegBlock regs;
    for (auto& r : regs) r = rng();
    e.regs = regs;
  }
  for (int n = rng() % 3; n > 0; --n) e.reg_changes.push_back({static_cast<uint8_t>(rng() % kRegWords), rng()});
  for (int n = rng() % 3; n > 0; --n) e.writes.push_back({rng() >> 16, random_bytes(rng, rng() % 300)});
  if (rng() % 5 == 0) e.writes.push_back({0x1000, {}});  // an empty write survives too
  if (rng() % 8 == 0) e.xstate = random_bytes(rng, 832);
  if (e.kind == EventKind::Exec || rng() % 10 == 0) {
    e.mappings.push_back({0x400000, 0x401000, 5, 2, 0, MappingKind::File, "files/prog-0", "/home/user/prog"});
    e.mappings.push_back({0x7ffd0000, 0x7ffff000, 3, 0x22, 0, MappingKind::Stack, "", "[stack]"});
  }
  if (e.kind == EventKind::Signal || e.kind == EventKind::FatalSignal) e.siginfo = random_bytes(rng, 128);
  if (rng() % 6 == 0) e.echoes.push_back({static_cast<int32_t>(1 + rng() % 2), random_bytes(rng, rng() % 40)});
  if (e.kind == EventKind::Signal || e.kind == EventKind::FatalSignal || rng() % 2 == 0)
    e.status = valid_status(rng, e.kind);
  if (e.kind == EventKind::Abort) e.message = "unsupported syscall " + std::to_string(i);
  if (e.kind == EventKind::Syscall && rng() % 7 == 0) {
    e.object_writes.push_back({1 + rng() % 5, rng() >> 20, random_bytes(rng, rng() % 200)});
  }
  if (e.kind == EventKind::Exec && rng() % 2 == 0) {
    e.message = "/bin/prog";
    e.argv = {"prog", "", "an argument with spaces"};
  }
  if (rng() % 9 == 0) e.clone_flags = rng();
  return e;
}

std::vector<Event> make_events(std::size_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Event> events;
  for (std::size_t i = 0; i < count; ++i) events.push_back(make_event(rng, i));
  return events;
}

void write_trace(const std::string& dir, const Header& header, const std::vector<Event>& events) {
  TraceWriter w(dir, header);
  for (std::size_t i = 0; i < events.size(); ++i) BOOST_REQUIRE_EQUAL(w.write(events[i]), i);
  w.finish();
}

// Reads every event; throws what the reader throws.
std::vector<Event> read_all(TraceReader& r) {
  std::vector<Event> out;
  while (auto e = r.next()) out.push_back(std::move(*e));
  return out;
}

// Polls until a reader of `trace` decodes at least `count` events; false at
// the deadline.
bool events_decoded_within(const std::string& trace, std::size_t count, std::chrono::seconds deadline_s) {
  auto deadline = std::chrono::steady_clock::now() + deadline_s;
  for (;;) {
    TraceReader r(trace);
    if (read_all(r).size() >= count) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// The chunks of an events file: (byte offset, header). Assumes it is valid.
std::vector<std::pair<std::size_t, ChunkHeader>> chunks_of(const std::vector<uint8_t>& file) {
  std::vector<std::pair<std::size_t, ChunkHeader>> out;
  for (std::size_t off = kPreambleSize; off < file.size();) {
    ChunkHeader h = decode_chunk_header(std::span(file).subspan(off, kChunkHeaderSize));
    out.emplace_back(off, h);
    off += kChunkHeaderSize + h.compressed_len;
  }
  return out;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Runs `f`, requiring a TraceError whose message contains `part`.
void expect_error(const std::function<void()>& f, const std::string& part) {
  try {
    f();
  } catch (const TraceError& e) {
    BOOST_CHECK_MESSAGE(contains(e.what(), part), "message \"" << e.what() << "\" lacks \"" << part << "\"");
    return;
  }
  BOOST_ERROR("no TraceError (expected one mentioning \"" << part << "\")");
}

// A trace whose events file holds one chunk with `raw` as its content, for
// events the writer would refuse to write.
std::string trace_with_raw_chunk(const TempDir& tmp, const std::vector<uint8_t>& raw, uint32_t count) {
  std::string dir = tmp.sub("raw");
  write_trace(dir, sample_header(Codec::Zstd), {});
  std::vector<uint8_t> file = encode_events_preamble();
  file.resize(kPreambleSize + kChunkHeaderSize);
  Compressor(Codec::Zstd).compress(raw, file);
  ChunkHeader h{Codec::Zstd, static_cast<uint32_t>(raw.size()),
                static_cast<uint32_t>(file.size() - kPreambleSize - kChunkHeaderSize), 0, count, 0};
  h.data_crc = chunk_data_check(file.data() + kPreambleSize + kChunkHeaderSize, h.compressed_len);
  encode_chunk_header(h, file.data() + kPreambleSize);
  spit(dir + "/events", file);
  return dir;
}

// The same with several chunks: `chunks` holds each one's content and
// event count, in order. Returns the directory and each chunk's offset.
std::pair<std::string, std::vector<uint64_t>> trace_with_raw_chunks(
    const TempDir& tmp, const std::vector<std::pair<std::vector<uint8_t>, uint32_t>>& chunks) {
  std::string dir = tmp.sub("raw");
  write_trace(dir, sample_header(Codec::Zstd), {});
  std::vector<uint8_t> file = encode_events_preamble();
  std::vector<uint64_t> offsets;
  uint64_t first = 0;
  for (const auto& [raw, count] : chunks) {
    std::size_t at = file.size();
    offsets.push_back(at);
    file.resize(at + kChunkHeaderSize);
    Compressor(Codec::Zstd).compress(raw, file);
    ChunkHeader h{Codec::Zstd, static_cast<uint32_t>(raw.size()),
                  static_cast<uint32_t>(file.size() - at - kChunkHeaderSize), first, count, 0};
    h.data_crc = chunk_data_check(file.data() + at + kChunkHeaderSize, h.compressed_len);
    encode_chunk_header(h, file.data() + at);
    first += count;
  }
  spit(dir + "/events", file);
  return {dir, offsets};
}

}  // namespace

BOOST_AUTO_TEST_CASE(enum_names) {
  BOOST_TEST(std::string(to_string(EventKind::FatalSignal)) == "fatal-signal");
  BOOST_TEST(std::string(to_string(Codec::Zlib)) == "zlib");
}

BOOST_AUTO_TEST_CASE(round_trip_both_codecs) {
  for (Codec codec : {Codec::Zstd, Codec::Zlib}) {
    TempDir tmp;
    std::string dir = tmp.sub("t");
    std::vector<Event> events = make_events(10000, 42);
    // A big event in the middle, and one that is all defaults.
    std::mt19937_64 rng(7);
    events[5000].writes.push_back({0x10000, random_bytes(rng, 3u << 20)});
    events[5001] = Event{EventKind::Syscall, 1, RegBlock{}};
    events.push_back(Event{EventKind::Exit, 1000});
    write_trace(dir, sample_header(codec), events);

    TraceReader r(dir + "/");
    BOOST_TEST(r.dir() == dir);
    BOOST_TEST((r.header() == sample_header(codec)));
    std::vector<Event> back = read_all(r);
    BOOST_REQUIRE_EQUAL(back.size(), events.size());
    for (std::size_t i = 0; i < events.size(); ++i) BOOST_REQUIRE_MESSAGE(back[i] == events[i], "event " << i);
    BOOST_TEST(!r.truncated());
    BOOST_TEST(r.next_event_number() == events.size());
    BOOST_TEST(!r.next().has_value());

    // Chunks are cut by count and size; the big event sits alone.
    auto chunks = chunks_of(slurp(dir + "/events"));
    BOOST_TEST(chunks.size() >= 4u);
    bool big_alone = false;
    for (auto& [off, h] : chunks) {
      BOOST_TEST((h.codec == codec));
      BOOST_TEST(h.event_count <= kChunkMaxEvents);
      big_alone |= h.first_event == 5000 && h.event_count == 1;
    }
    BOOST_TEST(big_alone);
  }
}

BOOST_AUTO_TEST_CASE(empty_and_unfinished_traces_are_truncated) {
  TempDir tmp;
  write_trace(tmp.sub("empty"), sample_header(Codec::Zstd), {});
  TraceReader empty(tmp.sub("empty"));
  BOOST_TEST(!empty.next().has_value());
  BOOST_TEST(empty.truncated());

  // No Exit/Abort at the end: the stream ends cleanly but the recording did not.
  write_trace(tmp.sub("noexit"), sample_header(Codec::Zstd), {Event{EventKind::Syscall, 1, RegBlock{}}});
  TraceReader noexit(tmp.sub("noexit"));
  BOOST_TEST(read_all(noexit).size() == 1u);
  BOOST_TEST(noexit.truncated());
}

BOOST_AUTO_TEST_CASE(writer_rejects_bad_input) {
  TempDir tmp;
  expect_error([&] { TraceWriter(tmp.sub("no/such/parent"), Header{}); }, "parent does not exist");
  expect_error([&] { TraceWriter(tmp.path, Header{}); }, "already exists");
  Header bad_codec;
  bad_codec.codec = static_cast<Codec>(9);
  expect_error([&] { TraceWriter(tmp.sub("c"), bad_codec); }, "unknown codec 9");

  TraceWriter w(tmp.sub("t"), Header{});
  Event e{EventKind::Syscall, 1, RegBlock{}};
  e.reg_changes.push_back({40, 1});
  expect_error([&] { w.write(e); }, "bad register index 40");
  e.reg_changes.clear();
  e.siginfo.resize(12);
  expect_error([&] { w.write(e); }, "siginfo of 12 bytes");
  e.siginfo.clear();
  BOOST_TEST(w.write(e) == 0u);  // the writer is still usable
  w.finish();
  w.finish();
  expect_error([&] { w.write(e); }, "after the trace was finished");
}

BOOST_AUTO_TEST_CASE(destructor_finishes) {
  TempDir tmp;
  std::vector<Event> events = make_events(100, 1);
  {
    TraceWriter w(tmp.sub("t"), Header{});
    for (auto& e : events) w.write(e);
  }
  TraceReader r(tmp.sub("t"));
  BOOST_TEST((read_all(r) == events));
}

BOOST_AUTO_TEST_CASE(full_chunks_reach_disk_before_finish) {
  // What a recorder killed by SIGKILL leaves behind: every full chunk.
  TempDir tmp;
  // Small events, so that the chunk is cut by count, not size.
  Event small{EventKind::Syscall, 1, RegBlock{}};
  std::vector<Event> events(kChunkMaxEvents + 10, small);
  TraceWriter w(tmp.sub("t"), Header{});
  for (auto& e : events) w.write(e);
  // A chunk's header and body are two writes: polled on what a reader
  // decodes, not on the file's size.
  BOOST_REQUIRE_MESSAGE(events_decoded_within(tmp.sub("t"), kChunkMaxEvents, std::chrono::seconds(20)),
                        "a full chunk did not reach the file in 20 s");
  TraceReader r(tmp.sub("t"));
  std::vector<Event> back = read_all(r);
  BOOST_TEST(back.size() == kChunkMaxEvents);
  BOOST_TEST(r.truncated());
  w.finish();
}

BOOST_AUTO_TEST_CASE(write_errors_are_reported) {
  // A file size limit makes the background thread's write(2) fail with EFBIG,
  // as a full disk would with ENOSPC.
  TempDir tmp;
  struct rlimit old;
  BOOST_REQUIRE(::getrlimit(RLIMIT_FSIZE, &old) == 0);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = {64 << 10, old.rlim_max};
  BOOST_REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  TraceWriter w(tmp.sub("t"), Header{});
  std::vector<Event> events = make_events(3 * kChunkMaxEvents, 17);
  // The background thread meets the error whenever it gets to the first
  // chunk: write() reports it if that happened already, finish() always.
  std::string from_write, from_finish;
  try {
    for (auto& e : events) w.write(e);
  } catch (const TraceError& e) {
    from_write = e.what();
  }
  try {
    w.finish();
  } catch (const TraceError& e) {
    from_finish = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  const std::string expected = tmp.sub("t/events") + ": write failed: File too large";
  BOOST_CHECK_MESSAGE(contains(from_finish, expected), "finish() said \"" << from_finish << "\"");
  if (!from_write.empty()) BOOST_CHECK_MESSAGE(contains(from_write, expected), "write() said \"" << from_write << "\"");
  BOOST_CHECK_THROW(w.write(events[0]), TraceError);
  BOOST_CHECK_NO_THROW(w.finish());  // reported once; the destructor stays quiet
}

BOOST_AUTO_TEST_CASE(missing_and_foreign_directories) {
  TempDir tmp;
  expect_error([&] { TraceReader r(tmp.sub("nope")); }, tmp.sub("nope") + ": no such trace directory");
  expect_error([&] { TraceReader r(tmp.path); }, tmp.path + ": not a backstep trace (no header file)");
  std::ofstream(tmp.sub("header")) << "#!/bin/sh\n";
  expect_error([&] { TraceReader r(tmp.path); }, tmp.sub("header") + ": not a backstep trace (bad magic)");
}

BOOST_AUTO_TEST_CASE(wrong_version) {
  TempDir tmp;
  std::string dir = tmp.sub("t");
  write_trace(dir, sample_header(Codec::Zstd), {Event{EventKind::Exit, 1}});
  std::vector<uint8_t> header = slurp(dir + "/header");
  const std::string ours = std::to_string(kFormatVersion);
  header[8] = static_cast<uint8_t>(kFormatVersion + 1);
  // A consistent file of another version: the checksum is right.
  uint32_t crc = crc32_of(header.data(), header.size() - 4);
  for (int i = 0; i < 4; ++i) header[header.size() - 4 + i] = static_cast<uint8_t>(crc >> (8 * i));
  spit(dir + "/header", header);
  expect_error([&] { TraceReader r(dir); }, dir + "/header: trace format version " + std::to_string(kFormatVersion + 1) +
                                             ", this backstep reads version " + ours);

  std::string dir2 = tmp.sub("t2");
  write_trace(dir2, sample_header(Codec::Zstd), {Event{EventKind::Exit, 1}});
  std::vector<uint8_t> events = slurp(dir2 + "/events");
  events[8] = static_cast<uint8_t>(kFormatVersion + 2);
  spit(dir2 + "/events", events);
  expect_error([&] { TraceReader r(dir2); }, dir2 + "/events: trace format version " + std::to_string(kFormatVersion + 2) +
                                               ", this backstep reads version " + ours);
}

BOOST_AUTO_TEST_CASE(every_flipped_header_byte_is_reported) {
  TempDir tmp;
  std::string dir = tmp.sub("t");
  write_trace(dir, sample_header(Codec::Zlib), {Event{EventKind::Exit, 1}});
  const std::vector<uint8_t> good = slurp(dir + "/header");
  for (std::size_t i = 0; i < good.size(); ++i) {
    std::vector<uint8_t> bad = good;
    bad[i] ^= 0x10;
    spit(dir + "/header", bad);
    expect_error([&] { TraceReader r(dir); }, dir + "/header: ");
  }
  spit(dir + "/header", good);
  BOOST_CHECK_NO_THROW(TraceReader r(dir));
}

BOOST_AUTO_TEST_CASE(flipped_event_bytes_are_reported) {
  TempDir tmp;
  std::string dir = tmp.sub("t");
  std::vector<Event> events = make_events(2 * kChunkMaxEvents + 100, 9);
  write_trace(dir, sample_header(Codec::Zstd), events);
  const std::vector<uint8_t> good = slurp(dir + "/events");
  auto chunks = chunks_of(good);
  BOOST_REQUIRE_GE(chunks.size(), 3u);

  // Every byte near the start of each chunk (its header and first data
  // bytes), and a sample of the rest.
  std::vector<std::size_t> offsets;
  for (std::size_t i = 0; i < kPreambleSize; ++i) offsets.push_back(i);
  for (auto& [off, h] : chunks)
    for (std::size_t i = 0; i < kChunkHeaderSize + 16; ++i) offsets.push_back(off + i);
  for (std::size_t i = 0; i < good.size(); i += good.size() / 40) offsets.push_back(i);
  offsets.push_back(good.size() - 1);

  for (std::size_t at : offsets) {
    std::vector<uint8_t> bad = good;
    bad[at] ^= 0x01;
    spit(dir + "/events", bad);
    std::optional<TraceReader> r;
    try {
      r.emplace(dir);
      read_all(*r);
      BOOST_ERROR("flip at byte " << at << " went unnoticed");
    } catch (const TraceError& e) {
      BOOST_CHECK_MESSAGE(contains(e.what(), dir + "/events: "), e.what());
      if (at >= kPreambleSize) BOOST_CHECK_MESSAGE(contains(e.what(), "corrupt chunk at byte offset"), e.what());
      // Once broken, the reader stays broken rather than skipping ahead.
      if (r) BOOST_CHECK_THROW(r->next(), TraceError);
    }
  }

  // The exact message, for a flip in the second chunk's data.
  std::vector<uint8_t> bad = good;
  bad[chunks[1].first + kChunkHeaderSize + 100] ^= 0x80;
  spit(dir + "/events", bad);
  TraceReader r(dir);
  expect_error([&] { read_all(r); }, dir + "/events: corrupt chunk at byte offset " + std::to_string(chunks[1].first) +
                                         " (events from " + std::to_string(chunks[1].second.first_event) +
                                         "): checksum mismatch");
  BOOST_TEST(r.next_event_number() == chunks[1].second.first_event);
}

BOOST_AUTO_TEST_CASE(truncation_is_not_corruption) {
  TempDir tmp;
  std::string dir = tmp.sub("t");
  std::vector<Event> events = make_events(2 * kChunkMaxEvents + 100, 11);
  // Only the last event ends the recording, so every cut short of the end,
  // even one on a chunk boundary, reads as truncated.
  for (Event& e : events)
    if (e.kind == EventKind::Exit || e.kind == EventKind::Abort) {
      e.kind = EventKind::Rdtsc;
      e.status = 0;
      e.regs = RegBlock{};
    }
  events.push_back(Event{EventKind::Exit, 1});
  write_trace(dir, sample_header(Codec::Zlib), events);
  const std::vector<uint8_t> good = slurp(dir + "/events");
  auto chunks = chunks_of(good);

  std::vector<std::size_t> cuts;
  for (std::size_t i = 0; i < kPreambleSize + 2 * kChunkHeaderSize; ++i) cuts.push_back(i);
  for (auto& [off, h] : chunks)
    for (std::size_t i = off - 3; i < off + kChunkHeaderSize + 3; ++i) cuts.push_back(i);
  for (std::size_t i = 0; i < good.size(); i += good.size() / 40) cuts.push_back(i);
  cuts.push_back(good.size() - 1);

  for (std::size_t cut : cuts) {
    spit(dir + "/events", std::vector<uint8_t>(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(cut)));
    // Events in the chunks that end at or before the cut survive.
    std::size_t complete = 0;
    for (auto& [off, h] : chunks)
      if (off + kChunkHeaderSize + h.compressed_len <= cut) complete = h.first_event + h.event_count;
    TraceReader r(dir);
    std::vector<Event> back = read_all(r);
    BOOST_REQUIRE_MESSAGE(back.size() == complete, "cut at " << cut);
    BOOST_TEST(std::equal(back.begin(), back.end(), events.begin()));
    BOOST_REQUIRE_MESSAGE(r.truncated(), "cut at " << cut << " of " << good.size());
  }
  spit(dir + "/events", good);
  TraceReader r(dir);
  BOOST_TEST(read_all(r).size() == events.size());
  BOOST_TEST(!r.truncated());
}

BOOST_AUTO_TEST_CASE(bad_events_inside_a_valid_chunk) {
  struct Case {
    std::function<void(std::vector<uint8_t>&)> damage;
    std::string message;
  };
  Event sig{EventKind::Signal, 1, RegBlock{}};
  sig.status = 11;
  sig.reg_changes.push_back({4, 1});  // its index is at byte 239, after the 221 bytes of registers
  const std::vector<Case> cases = {
      {[](auto& raw) { raw[0] = 15; }, "event 0: bad event kind 15"},
      {[](auto& raw) { raw[239] = 40; }, "event 0: bad register index 40"},
      {[](auto& raw) { raw[9] = 60; }, "event 0: unknown field tag 60"},
      {[](auto& raw) { raw.push_back(0); }, "1 bytes after the last event"},
      {[](auto& raw) { raw[5] += 1; }, "event 0: needs"},  // payload longer than the chunk
  };
  for (const Case& c : cases) {
    TempDir tmp;
    std::vector<uint8_t> raw;
    encode_event(sig, raw);
    c.damage(raw);
    std::string dir = trace_with_raw_chunk(tmp, raw, 1);
    TraceReader r(dir);
    expect_error([&] { read_all(r); }, dir + "/events: corrupt chunk at byte offset 12 (events from 0): ");
    expect_error([&] { r.next(); }, c.message);
  }
}

// The reader decodes the chunk after the current one on another thread,
// ahead of need: a bad event there fails where it would have, after every
// good event before it, with the same message.
BOOST_AUTO_TEST_CASE(bad_events_in_a_chunk_read_ahead) {
  Event sig{EventKind::Signal, 1, RegBlock{}};
  sig.status = 11;
  sig.reg_changes.push_back({4, 1});
  std::vector<uint8_t> one;
  encode_event(sig, one);
  for (std::size_t damaged = 0; damaged < 3; ++damaged) {
    TempDir tmp;
    std::vector<uint8_t> good, second;
    for (int i = 0; i < 2; ++i) good.insert(good.end(), one.begin(), one.end());
    for (std::size_t i = 0; i < 3; ++i) {
      std::size_t at = second.size();
      second.insert(second.end(), one.begin(), one.end());
      if (i == damaged) second[at] = 15;  // its kind: one past the last
    }
    auto [dir, offsets] = trace_with_raw_chunks(tmp, {{good, 2}, {second, 3}, {good, 2}});
    TraceReader r(dir);
    std::size_t read = 0;
    expect_error(
        [&] {
          while (r.next()) ++read;
        },
        dir + "/events: corrupt chunk at byte offset " + std::to_string(offsets[1]) + " (events from 2): event " +
            std::to_string(2 + damaged) + ": bad event kind 15");
    BOOST_TEST(read == 2 + damaged);
  }
  // Bytes after the last event of a chunk read ahead.
  TempDir tmp;
  std::vector<uint8_t> good = one, trailing = one;
  trailing.push_back(0);
  auto [dir, offsets] = trace_with_raw_chunks(tmp, {{good, 1}, {trailing, 1}});
  TraceReader r(dir);
  BOOST_TEST(r.next().has_value());
  expect_error([&] { r.next(); }, "corrupt chunk at byte offset " + std::to_string(offsets[1]) +
                                      " (events from 1): 1 bytes after the last event");
}

BOOST_AUTO_TEST_CASE(byte_reader_never_overruns) {
  const uint8_t data[] = {5, 0, 0, 0, 1, 2};
  ByteReader r(data, sizeof data);
  BOOST_CHECK_THROW(r.u64(), FormatError);
  BOOST_TEST(r.offset() == 0u);  // a failed read consumes nothing
  ByteReader blob(data, sizeof data);
  BOOST_CHECK_THROW(blob.blob(), FormatError);  // claims 5 bytes, has 2
  ByteReader count(data, sizeof data);
  BOOST_CHECK_THROW(count.count(1), FormatError);
  const std::vector<uint8_t> twice = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0};
  ByteReader dup_fields(twice);
  BOOST_CHECK_THROW(for_each_field(dup_fields, [](uint8_t, ByteReader&) {}), FormatError);
}

BOOST_AUTO_TEST_CASE(random_damage_to_encoded_events) {
  // decode_event on garbage: a FormatError or a valid event, nothing else.
  std::mt19937_64 rng(5);
  std::vector<Event> events = make_events(300, 13);
  for (int round = 0; round < 20000; ++round) {
    std::vector<uint8_t> raw;
    encode_event(events[round % events.size()], raw);
    for (int n = 1 + rng() % 4; n > 0; --n) raw[rng() % raw.size()] ^= static_cast<uint8_t>(1 + rng() % 255);
    if (rng() % 4 == 0) raw.resize(rng() % raw.size());
    ByteReader r(raw);
    try {
      decode_event(r);
    } catch (const FormatError&) {
    }
  }
}

BOOST_AUTO_TEST_CASE(add_file_copies_and_dedupes) {
  TempDir tmp;
  std::string src = tmp.sub("lib weird (deleted)");
  std::ofstream(src) << std::string(3 << 20, 'x') << "end";
  std::string other = tmp.sub("libother.so");
  std::ofstream(other) << "other";

  TraceWriter w(tmp.sub("t"), Header{});
  // A big copy takes the reflink or copy_file_range path.
  std::string first = w.add_file(src, "/usr/lib/lib weird (deleted)").path;
  BOOST_TEST(first == "files/lib_weird__deleted_-0");
  BOOST_TEST(!fs::equivalent(src, tmp.sub("t/" + first)));
  BOOST_TEST((slurp(tmp.sub("t/" + first)) == slurp(src)));
  // Same file through another path (a /proc magic link, like the recorder's).
  int fd = ::open(src.c_str(), O_RDONLY);
  BOOST_TEST(w.add_file("/proc/self/fd/" + std::to_string(fd), "libc.so.6").path == first);
  ::close(fd);

  std::string copied = w.add_file(other, "libother.so").path;
  BOOST_TEST(copied == "files/libother.so-1");
  BOOST_TEST((slurp(tmp.sub("t/" + copied)) == slurp(other)));
  // Rewritten in place: a new mtime makes it a new file.
  struct timespec times[2] = {{0, UTIME_OMIT}, {12345, 0}};
  BOOST_REQUIRE(::utimensat(AT_FDCWD, other.c_str(), times, 0) == 0);
  BOOST_TEST(w.add_file(other, "").path == "files/file-2");
  expect_error([&] { w.add_file(tmp.sub("missing"), "x"); }, tmp.sub("missing") + ": cannot store");
  w.finish();

  TraceReader r(tmp.sub("t"));
  BOOST_TEST(r.file_path(copied) == tmp.sub("t/" + copied));
  for (std::string bad : {"../x", "files/../../etc/passwd", "/etc/passwd", "..", ""})
    expect_error([&] { r.file_path(bad); }, tmp.sub("t") + ": trace file path");
  expect_error([&] { r.file_path("files/absent-9"); }, "missing from the trace");
}

BOOST_AUTO_TEST_CASE(add_file_from_proc_magic_link) {
  TempDir tmp;
  TraceWriter w(tmp.sub("t"), Header{});
  std::string rel = w.add_file("/proc/self/exe", "trace_test").path;
  BOOST_TEST((slurp(tmp.sub("t/" + rel)) == slurp("/proc/self/exe")));
}

BOOST_AUTO_TEST_CASE(written_data_summaries) {
  std::vector<uint8_t> small(100, 'a');
  WrittenData d = summarize_written(small, {});
  BOOST_TEST(static_cast<int>(d.form) == static_cast<int>(WrittenData::Form::Bytes));
  BOOST_TEST(compare_written(d, {}, small) == "");
  std::vector<uint8_t> other = small;
  other[37] = 'b';
  BOOST_TEST(compare_written(d, {}, other) == "written data differs (first difference at byte 37 of 100)");
  other.resize(50);
  other[37] = 'a';
  BOOST_TEST(compare_written(d, {}, other) == "written data differs (first difference at byte 50 of 100)");

  std::vector<StdioEcho> echoes{{1, small}};
  WrittenData e = summarize_written(small, echoes);
  BOOST_TEST(static_cast<int>(e.form) == static_cast<int>(WrittenData::Form::Echoed));
  BOOST_TEST(e.bytes.empty());
  BOOST_TEST(compare_written(e, echoes, small) == "");
  BOOST_TEST(written_data_problem(e, echoes) == "");
  BOOST_TEST(written_data_problem(e, {}) != "");

  std::mt19937_64 rng(3);
  std::vector<uint8_t> big = random_bytes(rng, 3 * kWrittenBlock + 10);
  WrittenData h = summarize_written(big, {});
  BOOST_TEST(static_cast<int>(h.form) == static_cast<int>(WrittenData::Form::BlockHashes));
  BOOST_TEST(h.block_hashes.size() == 4u);
  BOOST_TEST(compare_written(h, {}, big) == "");
  big[2 * kWrittenBlock + 5] ^= 1;
  BOOST_TEST(compare_written(h, {}, big) == "written data differs (first difference in bytes 8192..12287 of 12298)");
  big[2 * kWrittenBlock + 5] ^= 1;
  big.pop_back();
  BOOST_TEST(compare_written(h, {}, big) == "written data differs (first difference in bytes 12288..12297 of 12298)");
}

BOOST_AUTO_TEST_CASE(written_data_round_trips_and_is_validated) {
  TempDir tmp;
  std::string dir = tmp.sub("t");
  std::mt19937_64 rng(5);
  Event a{EventKind::Syscall, 7, RegBlock{}};
  a.written = summarize_written(random_bytes(rng, 20), {});
  Event b{EventKind::Syscall, 7, RegBlock{}};
  b.written = summarize_written(random_bytes(rng, 9000), {});
  Event c{EventKind::Syscall, 7, RegBlock{}};
  c.echoes = {{1, random_bytes(rng, 30)}};
  c.written = summarize_written(c.echoes[0].data, c.echoes);
  write_trace(dir, sample_header(Codec::Zstd), {a, b, c});
  TraceReader r(dir);
  std::vector<Event> back = read_all(r);
  BOOST_REQUIRE_EQUAL(back.size(), 3u);
  BOOST_TEST((back[0] == a));
  BOOST_TEST((back[1] == b));
  BOOST_TEST((back[2] == c));

  // An Echoed summary without its echo cannot be written.
  Event bad = c;
  bad.echoes.clear();
  TraceWriter w(tmp.sub("bad"), sample_header(Codec::Zstd));
  expect_error([&] { w.write(bad); }, "written data refers to an echo of 30 bytes that the event lacks");
}

// --- What a crash leaves, and privacy (the writer's side of "nothing is lost")

namespace {

// Polls until `events` is longer than its preamble; false at the deadline.
bool events_reach_disk(const std::string& trace, std::chrono::seconds deadline_s) {
  auto deadline = std::chrono::steady_clock::now() + deadline_s;
  while (fs::file_size(trace + "/events") <= kPreambleSize) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

}  // namespace

BOOST_AUTO_TEST_CASE(partial_chunk_reaches_disk_while_the_recorder_waits) {
  // A recorder that waits for a tracee that computes (or sleeps) for long
  // must not keep its last events in memory: a SIGKILL would lose them.
  TempDir tmp;
  std::vector<Event> events = make_events(10, 5);
  TraceWriter w(tmp.sub("t"), Header{});
  for (auto& e : events) w.write(e);
  {
    TraceWriter::Idle idle(w);
    // The chunk's header and body are two writes: the file may grow before
    // the whole chunk is there, so the poll is on what a reader decodes.
    BOOST_REQUIRE_MESSAGE(events_decoded_within(tmp.sub("t"), events.size(), std::chrono::seconds(30)),
                          "10 events written, then idle: they did not all reach the file in 30 s");
    TraceReader r(tmp.sub("t"));
    BOOST_TEST((read_all(r) == events));
    BOOST_TEST(r.truncated());
  }
  // Writing goes on after the idle spell, numbering included.
  BOOST_TEST(w.write(events[0]) == 10u);
  w.finish();
  TraceReader r(tmp.sub("t"));
  BOOST_TEST(read_all(r).size() == 11u);
}

BOOST_AUTO_TEST_CASE(partial_chunk_reaches_disk_while_the_recorder_writes) {
  // Events that trickle in, never filling a chunk, still reach the file
  // (at the next write after the flush interval).
  TempDir tmp;
  Event small{EventKind::Syscall, 1, RegBlock{}};
  TraceWriter w(tmp.sub("t"), Header{});
  bool reached = false;
  for (uint32_t i = 0; i < kChunkMaxEvents / 2 && !reached; ++i) {
    w.write(small);
    reached = events_reach_disk(tmp.sub("t"), std::chrono::seconds(0));
    if (!reached) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  BOOST_TEST_MESSAGE("events in the file after " << w.events_written() << " writes");
  BOOST_TEST(reached);
  w.finish();
}

BOOST_AUTO_TEST_CASE(trace_files_are_private) {
  TempDir tmp;
  mode_t old_umask = ::umask(0);  // so that the modes are the writer's own
  {
    TraceWriter w(tmp.sub("t"), Header{});
    w.write(make_events(1, 3)[0]);
    w.finish();
  }
  ::umask(old_umask);
  auto mode = [](const std::string& p) { return fs::status(p).permissions(); };
  using fs::perms;
  BOOST_TEST((mode(tmp.sub("t")) == perms::owner_all));
  BOOST_TEST((mode(tmp.sub("t/files")) == perms::owner_all));
  BOOST_TEST((mode(tmp.sub("t/header")) == (perms::owner_read | perms::owner_write)));
  BOOST_TEST((mode(tmp.sub("t/events")) == (perms::owner_read | perms::owner_write)));
  // A trace that finished cleanly has no stop-reason file.
  BOOST_TEST(!fs::exists(tmp.sub(std::string("t/") + kStopReasonFile)));
}

BOOST_AUTO_TEST_CASE(a_failed_write_leaves_its_reason_for_the_reader) {
  // The file size limit stands in for a full disk. In a child process, so
  // that the limit binds nothing else.
  TempDir tmp;
  std::string dir = tmp.sub("t");
  pid_t pid = ::fork();
  BOOST_REQUIRE(pid >= 0);
  if (pid == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit small = {256 << 10, RLIM_INFINITY};
    ::setrlimit(RLIMIT_FSIZE, &small);
    TraceWriter w(dir, Header{});
    try {
      std::mt19937_64 rng(9);
      Event e{EventKind::Syscall, 1, RegBlock{}};
      e.writes.push_back({0x1000, std::vector<uint8_t>(4096)});
      for (int i = 0; i < 100000; ++i) {
        for (auto& b : e.writes[0].data) b = static_cast<uint8_t>(rng());  // incompressible
        w.write(e);
      }
      w.finish();
    } catch (const TraceError&) {
      try {
        w.finish();  // as the recorder does; reported once already
      } catch (const TraceError&) {
      }
      ::_exit(0);
    }
    ::_exit(1);  // the limit never bit
  }
  int status = 0;
  BOOST_REQUIRE(::waitpid(pid, &status, 0) == pid);
  BOOST_REQUIRE_MESSAGE(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the writer met no error");
  TraceReader r(dir);
  std::vector<Event> back = read_all(r);
  BOOST_REQUIRE(!back.empty());
  const Event& last = back.back();
  BOOST_TEST((last.kind == EventKind::Abort));
  BOOST_TEST(contains(last.message, "writing the trace failed"));
  BOOST_TEST(contains(last.message, "File too large"));
  BOOST_TEST(!r.truncated());
  for (std::size_t i = 0; i + 1 < back.size(); ++i) BOOST_TEST((back[i].kind == EventKind::Syscall));
  // Seeking past it and back finds it again, once.
  r.seek(0);
  BOOST_TEST(read_all(r).size() == back.size());
}

BOOST_AUTO_TEST_CASE(an_empty_stop_reason_means_nothing) {
  // What a recorder killed by SIGKILL leaves: the reserved, unused file.
  TempDir tmp;
  std::vector<Event> events = make_events(5, 8);
  write_trace(tmp.sub("t"), Header{}, events);
  std::vector<uint8_t> zeros(kStopReasonReserve);
  std::ofstream(tmp.sub(std::string("t/") + kStopReasonFile), std::ios::binary)
      .write(reinterpret_cast<const char*>(zeros.data()), zeros.size());
  fs::resize_file(tmp.sub("t/events"), fs::file_size(tmp.sub("t/events")) - 1);
  TraceReader r(tmp.sub("t"));
  BOOST_TEST(read_all(r).empty());
  BOOST_TEST(r.truncated());
}

BOOST_AUTO_TEST_CASE(size_notes_round_trip_and_are_validated) {
  TempDir tmp;
  TraceWriter w(tmp.sub("t"), Header{});
  Event e{EventKind::Syscall, 1};
  e.regs = RegBlock{};
  Mapping note;
  note.kind = MappingKind::FileSize;
  note.shared_object = 3;
  note.file_size = 12288;
  e.mappings.push_back(note);
  BOOST_TEST(w.write(e) == 0u);
  Event bad = e;
  bad.mappings[0].shared_object = 0;
  expect_error([&] { w.write(bad); }, "size note without a shared object");
  bad = e;
  bad.mappings[0].end = 4096;
  expect_error([&] { w.write(bad); }, "size note without a shared object, or with a range");
  w.finish();
  TraceReader r(tmp.sub("t"));
  std::optional<Event> back = r.next();
  BOOST_REQUIRE(back.has_value());
  BOOST_TEST((back->mappings == e.mappings));
}

BOOST_AUTO_TEST_CASE(sparse_files_are_copied_with_their_holes) {
  TempDir tmp;
  std::string src = tmp.sub("heap");
  int fd = ::open(src.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
  BOOST_REQUIRE(fd >= 0);
  constexpr off_t kSize = off_t{1} << 30;  // 1 GiB, two pages of data
  BOOST_REQUIRE(::ftruncate(fd, kSize) == 0);
  BOOST_REQUIRE(::pwrite(fd, "start", 5, 4096) == 5);
  BOOST_REQUIRE(::pwrite(fd, "end", 3, kSize - 3) == 3);
  ::close(fd);
  struct stat source {};
  BOOST_REQUIRE(::stat(src.c_str(), &source) == 0);
  if (source.st_blocks * 512 > (1 << 20)) return;  // this filesystem does not keep holes

  TraceWriter w(tmp.sub("t"), Header{});
  StoredFile stored = w.add_file(src, "heap");
  BOOST_TEST(stored.size == static_cast<uint64_t>(kSize));
  struct stat copy {};
  BOOST_REQUIRE(::stat(tmp.sub("t/" + stored.path).c_str(), &copy) == 0);
  BOOST_TEST(copy.st_size == kSize);
  BOOST_TEST(copy.st_blocks * 512 <= 1 << 20, "the copy takes " << copy.st_blocks * 512 << " bytes");
  int in = ::open(tmp.sub("t/" + stored.path).c_str(), O_RDONLY);
  char buf[8] = {};
  BOOST_TEST(::pread(in, buf, 5, 4096) == 5);
  BOOST_TEST(std::string(buf, 5) == "start");
  BOOST_TEST(::pread(in, buf, 3, kSize - 3) == 3);
  BOOST_TEST(std::string(buf, 3) == "end");
  BOOST_TEST(::pread(in, buf, 4, 1 << 20) == 4);
  BOOST_TEST(std::string(buf, 4) == std::string(4, '\0'));
  ::close(in);
  // Dense files still go the ordinary way (checked by add_file_copies_and_dedupes).
}

BOOST_AUTO_TEST_CASE(positions_round_trip_and_are_validated) {
  TempDir tmp;
  TraceWriter w(tmp.sub("t"), Header{});
  Event fix{EventKind::Position, 1};
  fix.regs = RegBlock{};
  (*fix.regs)[16] = 0x401000;  // rip
  fix.position = ForcedPosition{0x1234567890abcdefull, true};
  Event image = fix;
  image.position = ForcedPosition{42, false};
  image.writes.push_back({0x600000, std::vector<uint8_t>(4096, 7)});
  image.xstate = std::vector<uint8_t>(576, 1);
  image.stored_state = StoredState{StoredState::Kind::Full, 0, {{0x600000, 0x602000}}, {}};
  Event counted = fix;
  counted.position = ForcedPosition{};
  counted.position->arrivals = 12345678901ull;
  BOOST_TEST(w.write(fix) == 0u);
  BOOST_TEST(w.write(image) == 1u);
  BOOST_TEST(w.write(counted) == 2u);
  Event bad = counted;
  bad.position->fixpoint = true;
  expect_error([&] { w.write(bad); }, "a counted position with a digest, a fixpoint or a stored state");
  bad = counted;
  bad.writes = image.writes;
  expect_error([&] { w.write(bad); }, "a counted position with a digest, a fixpoint or a stored state");
  bad = counted;
  bad.stored_state = image.stored_state;
  bad.xstate = image.xstate;
  expect_error([&] { w.write(bad); }, "a counted position with a digest, a fixpoint or a stored state");
  bad = fix;
  bad.position.reset();
  expect_error([&] { w.write(bad); }, "a position event without its position field");
  bad = fix;
  bad.kind = EventKind::Syscall;
  expect_error([&] { w.write(bad); }, "a position field on an event that is not a position");
  bad = fix;
  bad.regs.reset();
  expect_error([&] { w.write(bad); }, "a position event without registers");
  w.finish();
  TraceReader r(tmp.sub("t"));
  std::optional<Event> a = r.next(), b = r.next(), c = r.next();
  BOOST_REQUIRE(a.has_value());
  BOOST_REQUIRE(b.has_value());
  BOOST_REQUIRE(c.has_value());
  BOOST_TEST((*a == fix));
  BOOST_TEST((*b == image));
  BOOST_TEST((*c == counted));
  BOOST_TEST(c->position->counted());
  BOOST_TEST(std::string(to_string(EventKind::Position)) == "position");
}

// --- Values out of range: the decoder refuses them, so that no consumer
// (dump, ps, replay) ever sees one. The writer refuses them too.

namespace {

// A valid event of `kind`, to be damaged by one field.
Event valid_event(EventKind kind) {
  Event e{kind, 4242, RegBlock{}};
  if (kind == EventKind::Signal || kind == EventKind::FatalSignal) e.status = 11;
  if (kind == EventKind::Exit) e.status = 0x8b;  // killed by SIGSEGV, core dumped
  return e;
}

// Reads `e`, encoded as it is (the writer would refuse it), as event 0 of a
// trace, requiring a TraceError that names the event and contains `part`.
void expect_refused(const Event& e, const std::string& part) {
  TempDir tmp;
  std::vector<uint8_t> raw;
  encode_event(e, raw);
  std::string dir = trace_with_raw_chunk(tmp, raw, 1);
  TraceReader r(dir);
  expect_error([&] { read_all(r); }, "event 0: " + part);
  TraceWriter w(tmp.sub("w"), Header{});
  expect_error([&] { w.write(e); }, part);
}

}  // namespace

BOOST_AUTO_TEST_CASE(signal_numbers_out_of_range_are_refused) {
  for (EventKind kind : {EventKind::Signal, EventKind::FatalSignal}) {
    for (int64_t sig : std::initializer_list<int64_t>{0, 65, 200, -1, int64_t{1} << 40}) {
      Event e = valid_event(kind);
      e.status = sig;
      expect_refused(e, "signal number " + std::to_string(sig) + " is out of range");
    }
  }
  // wait(2) statuses: killed by signal 0x7f & s, exited with s >> 8.
  for (int64_t status : std::initializer_list<int64_t>{0x41, 0x7f, 0xc8, 0x1ff, 0x10000, -1, 0x17f, 0x57f}) {
    Event e = valid_event(EventKind::Exit);
    e.status = status;
    expect_refused(e, "exit status " + std::to_string(status) + " is out of range");
  }
  // Every status in range reads back.
  TempDir tmp;
  std::vector<Event> good;
  for (int64_t sig = 1; sig <= 64; ++sig) {
    Event s = valid_event(EventKind::Signal);
    s.status = sig;
    good.push_back(s);
    Event killed = valid_event(EventKind::Exit);
    killed.status = sig | (sig % 2 ? 0x80 : 0);
    good.push_back(killed);
  }
  for (int64_t code : std::initializer_list<int64_t>{0, 1, 125, 255}) {
    Event exited = valid_event(EventKind::Exit);
    exited.status = code << 8;
    good.push_back(exited);
  }
  write_trace(tmp.sub("t"), Header{}, good);
  TraceReader r(tmp.sub("t"));
  BOOST_TEST((read_all(r) == good));
}

BOOST_AUTO_TEST_CASE(other_values_out_of_range_are_refused) {
  Event e = valid_event(EventKind::Syscall);
  e.tid = 0;
  expect_refused(e, "thread id 0 is out of range");
  e.tid = kMaxTid + 1;
  expect_refused(e, "thread id " + std::to_string(kMaxTid + 1) + " is out of range");

  e = valid_event(EventKind::Syscall);
  e.status = 3;
  expect_refused(e, "system call ABI 3 is out of range");
  e = valid_event(EventKind::ProcessStart);
  expect_refused(e, "creating thread id 0 is out of range");
  e.status = int64_t{kMaxTid} + 1;
  expect_refused(e, "creating thread id " + std::to_string(kMaxTid + 1) + " is out of range");
  e = valid_event(EventKind::Exec);
  e.status = -4096;
  expect_refused(e, "program break -4096 is out of range");
  e = valid_event(EventKind::Rdtsc);
  e.status = 7;
  expect_refused(e, "a status of 7 on a rdtsc event");

  e = valid_event(EventKind::Signal);
  e.xstate.assign(100, 0);
  expect_refused(e, "an XSAVE area of 100 bytes");
  e.xstate.assign(kMaxXstateSize + 1, 0);
  expect_refused(e, "an XSAVE area of " + std::to_string(kMaxXstateSize + 1) + " bytes");

  for (EventKind kind : {EventKind::Exec, EventKind::Syscall, EventKind::Rdtsc, EventKind::Signal}) {
    e = valid_event(kind);
    e.regs.reset();
    expect_refused(e, std::string("a ") + to_string(kind) + " event without registers");
  }

  // A mapped file's copy is a path inside the trace.
  for (const char* path : {"", "/etc/passwd", "../../etc/passwd", "files/../../x", "files//x", "files/./x"}) {
    e = valid_event(EventKind::Exec);
    e.mappings.push_back({0x400000, 0x401000, 5, 2, 0, MappingKind::File, path, "/prog"});
    expect_refused(e, "mapped file path");
  }
}

// --- Stored states (event.h, StoredState): a Position's state, whole or as
// the pages that changed since the process's previous one.

namespace {

constexpr uint64_t kP = kStatePageSize;

std::vector<uint8_t> page_of(uint8_t fill, std::size_t pages = 1) { return std::vector<uint8_t>(pages * kP, fill); }

// A Position event by state with a stored state of `kind`.
Event stored_position(StoredState::Kind kind, uint64_t base = 0) {
  Event e{EventKind::Position, 77, RegBlock{}};
  (*e.regs)[16] = 0x401000;  // rip
  e.position = ForcedPosition{0xfeedull, false};
  e.xstate = std::vector<uint8_t>(576, 3);
  e.stored_state = StoredState{kind, base, {{0x10000, 0x20000}, {0x7f0000, 0x800000}}, {}};
  return e;
}

// The byte offset of field `tag` in an encoded event (kind, tid, length,
// then TLV fields), or npos.
// Decodes `raw` as one event, requiring a FormatError whose message
// contains `part`.
void expect_decode_error(const std::vector<uint8_t>& raw, const std::string& part) {
  ByteReader r(raw.data(), raw.size());
  try {
    decode_event(r);
  } catch (const FormatError& e) {
    BOOST_CHECK_MESSAGE(contains(e.what(), part), "message \"" << e.what() << "\" lacks \"" << part << "\"");
    return;
  }
  BOOST_ERROR("no FormatError (expected one mentioning \"" << part << "\")");
}

std::size_t field_offset(const std::vector<uint8_t>& raw, uint8_t tag) {
  for (std::size_t at = 9; at + 5 <= raw.size();) {
    uint32_t len = raw[at + 1] | raw[at + 2] << 8 | raw[at + 3] << 16 | static_cast<uint32_t>(raw[at + 4]) << 24;
    if (raw[at] == tag) return at;
    at += 5 + len;
  }
  return std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_CASE(stored_states_round_trip) {
  TempDir tmp;
  Event full = stored_position(StoredState::Kind::Full);
  full.writes.push_back({0x10000, page_of(1, 2)});
  full.writes.push_back({0x7f3000, page_of(2)});
  Event incremental = stored_position(StoredState::Kind::Incremental, 0);
  incremental.writes.push_back({0x11000, page_of(9)});
  incremental.stored_state->zeroed = {{0x7f3000, 0x7f4000}};
  // Nothing changed since the base: a state with no pages at all.
  Event unchanged = stored_position(StoredState::Kind::Incremental, 1);
  write_trace(tmp.sub("t"), Header{}, {full, incremental, unchanged});
  TraceReader r(tmp.sub("t"));
  std::vector<Event> back = read_all(r);
  BOOST_REQUIRE(back.size() == 3u);
  BOOST_TEST((back[0] == full));
  BOOST_TEST((back[1] == incremental));
  BOOST_TEST((back[2] == unchanged));
  BOOST_TEST(std::string(to_string(StoredState::Kind::Full)) == "full");
  BOOST_TEST(std::string(to_string(StoredState::Kind::Incremental)) == "incremental");
}

BOOST_AUTO_TEST_CASE(stored_state_field_layout) {
  // Field 15 as docs/trace-format.md gives it: u8 kind, u64 base, the
  // ranges, the zeroed pages.
  Event e = stored_position(StoredState::Kind::Incremental, 0x0102030405060708ull);
  e.stored_state->ranges = {{0x1000, 0x3000}};
  e.stored_state->zeroed = {{0x2000, 0x3000}};
  std::vector<uint8_t> raw;
  encode_event(e, raw);
  std::size_t at = field_offset(raw, 15);
  BOOST_REQUIRE(at != std::string::npos);
  const std::vector<uint8_t> golden = {
      15,   1 + 8 + 4 + 16 + 4 + 16, 0, 0, 0,           // tag, length
      2,                                                   // incremental
      0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,     // base
      1,    0,    0,    0,                                 // one range
      0x00, 0x10, 0,    0,    0,    0,    0,    0,    0x00, 0x30, 0, 0, 0, 0, 0, 0,
      1,    0,    0,    0,                                 // one zeroed run
      0x00, 0x20, 0,    0,    0,    0,    0,    0,    0x00, 0x30, 0, 0, 0, 0, 0, 0};
  BOOST_REQUIRE(raw.size() >= at + golden.size());
  BOOST_TEST((std::vector<uint8_t>(raw.begin() + static_cast<long>(at), raw.begin() + static_cast<long>(at + golden.size())) ==
              golden));
}

BOOST_AUTO_TEST_CASE(stored_states_are_validated) {
  Event e = stored_position(StoredState::Kind::Full);
  e.xstate.clear();
  expect_refused(e, "a stored state without its XSAVE area");
  e = stored_position(StoredState::Kind::Full, 3);
  expect_refused(e, "a full stored state with a base state or zeroed pages");
  e = stored_position(StoredState::Kind::Full);
  e.stored_state->zeroed = {{0x10000, 0x11000}};
  expect_refused(e, "a full stored state with a base state or zeroed pages");
  e = stored_position(StoredState::Kind::Full);
  e.position->fixpoint = true;
  expect_refused(e, "a fixpoint position with a stored state");
  e = stored_position(StoredState::Kind::Full);
  e.stored_state.reset();
  expect_refused(e, "a position with memory or an XSAVE area but no stored state");
  e = valid_event(EventKind::Syscall);
  e.stored_state = StoredState{};
  expect_refused(e, "a stored state on an event that is not a position");

  e = stored_position(StoredState::Kind::Full);
  e.stored_state->ranges = {{0x10000, 0x10800}};
  expect_refused(e, "stored state range 0x10000-0x10800 is not page-aligned");
  e.stored_state->ranges = {{0x20000, 0x20000}};
  expect_refused(e, "stored state range 0x20000-0x20000 is empty");
  e.stored_state->ranges = {{0x20000, 0x30000}, {0x10000, 0x11000}};
  expect_refused(e, "stored state range 0x10000-0x11000 is out of order");
  e.stored_state->ranges = {{0x10000, 0x20000}, {0x20000, 0x30000}};  // adjacent: one range
  expect_refused(e, "stored state range 0x20000-0x30000 is out of order or overlaps");

  e = stored_position(StoredState::Kind::Full);
  e.writes = {{0x10000, std::vector<uint8_t>(100, 1)}};
  expect_refused(e, "stored state pages 0x10000-0x10064 is not page-aligned");
  e.writes = {{0x11000, page_of(1)}, {0x10000, page_of(1)}};
  expect_refused(e, "stored state pages 0x10000-0x11000 is out of order");
  e.writes = {{0x1f000, page_of(1, 2)}};
  expect_refused(e, "stored state pages 0x1f000-0x21000 lie outside its ranges");
  e.writes = {{0x900000, page_of(1)}};
  expect_refused(e, "stored state pages 0x900000-0x901000 lie outside its ranges");

  e = stored_position(StoredState::Kind::Incremental, 5);
  e.stored_state->zeroed = {{0x30000, 0x31000}};
  expect_refused(e, "stored state zeroed pages 0x30000-0x31000 lie outside its ranges");
  e.stored_state->zeroed = {{0x10000, 0x12000}};
  e.writes = {{0x11000, page_of(1)}};
  expect_refused(e, "stored state pages 0x11000-0x12000 are also zeroed");
}

BOOST_AUTO_TEST_CASE(damaged_stored_states_are_refused) {
  Event e = stored_position(StoredState::Kind::Incremental, 9);
  e.writes.push_back({0x10000, page_of(5)});
  std::vector<uint8_t> good;
  encode_event(e, good);
  std::size_t at = field_offset(good, 15);
  BOOST_REQUIRE(at != std::string::npos);

  // An unknown kind.
  std::vector<uint8_t> raw = good;
  raw[at + 5] = 3;
  expect_decode_error(raw, "field stored_state: bad stored state kind 3");
  {
    TempDir tmp;
    TraceReader r(trace_with_raw_chunk(tmp, raw, 1));
    expect_error([&] { read_all(r); }, "event 0: field stored_state: bad stored state kind 3");
  }
  // A count of ranges larger than the field holds.
  raw = good;
  raw[at + 5 + 1 + 8 + 3] = 0x10;
  expect_decode_error(raw, "field stored_state: count 268435458 does not fit");
  // Cut short: the field and the payload end 8 bytes early (the lengths
  // agree; the ranges no longer fit).
  raw = good;
  uint32_t field_len = raw[at + 1] | raw[at + 2] << 8 | raw[at + 3] << 16 | static_cast<uint32_t>(raw[at + 4]) << 24;
  std::size_t field_end = at + 5 + field_len;
  raw.erase(raw.begin() + static_cast<long>(field_end - 8), raw.begin() + static_cast<long>(field_end));
  auto put32 = [&](std::size_t where, uint32_t v) {
    for (int i = 0; i < 4; ++i) raw[where + i] = static_cast<uint8_t>(v >> (8 * i));
  };
  put32(at + 1, field_len - 8);
  uint32_t payload = raw[5] | raw[6] << 8 | raw[7] << 16 | static_cast<uint32_t>(raw[8]) << 24;
  put32(5, payload - 8);
  expect_decode_error(raw, "field stored_state: count 2 does not fit in the 28 bytes left");
  // Without the zeroed list's count.
  raw = good;
  raw.erase(raw.begin() + static_cast<long>(field_end - 4), raw.begin() + static_cast<long>(field_end));
  put32(at + 1, field_len - 4);
  put32(5, payload - 4);
  expect_decode_error(raw, "field stored_state: needs 4 bytes");
  // Truncated anywhere: never a crash, always a FormatError.
  for (std::size_t n = 0; n < good.size(); n += 97) {
    ByteReader r(good.data(), n);
    BOOST_CHECK_THROW(decode_event(r), FormatError);
  }
  // Through a whole trace: the reader names the event.
  e = stored_position(StoredState::Kind::Full);
  e.stored_state->ranges = {{0x10000, 0x10001}};
  expect_refused(e, "stored state range 0x10000-0x10001 is not page-aligned");
}

BOOST_AUTO_TEST_CASE(older_formats_are_refused) {
  // Version 5 stored every page with each state; version 6 had no stub area
  // below the executable. Their traces are not read.
  TempDir tmp;
  std::string dir = tmp.sub("t");
  write_trace(dir, sample_header(Codec::Zstd), {Event{EventKind::Exit, 1}});
  std::vector<uint8_t> header = slurp(dir + "/header");
  header[8] = 6;
  uint32_t crc = crc32_of(header.data(), header.size() - 4);
  for (int i = 0; i < 4; ++i) header[header.size() - 4 + i] = static_cast<uint8_t>(crc >> (8 * i));
  spit(dir + "/header", header);
  expect_error([&] { TraceReader r(dir); }, dir + "/header: trace format version 6, this backstep reads version " +
                                                    std::to_string(kFormatVersion));
}

BOOST_AUTO_TEST_CASE(state_images_follow_a_chain) {
  // Event 10: a full state of three pages.
  Event full = stored_position(StoredState::Kind::Full);
  full.writes = {{0x10000, page_of(1, 2)}, {0x7f0000, page_of(2)}};
  StateImage::Applied a = StateImage::apply(nullptr, full, 10);
  BOOST_REQUIRE(a.image);
  BOOST_TEST(a.image->event() == 10u);
  BOOST_REQUIRE(a.image->pages().size() == 3u);
  BOOST_TEST(a.image->bytes() == 3 * kP);

  // Event 20 on it: page 0x11000 changed, 0x12000 is new, 0x10000 is zero
  // now, and the mapping at 0x7f0000 is gone (not in the ranges).
  Event inc = stored_position(StoredState::Kind::Incremental, 10);
  inc.stored_state->ranges = {{0x10000, 0x20000}};
  inc.stored_state->zeroed = {{0x10000, 0x11000}};
  inc.writes = {{0x11000, page_of(8, 2)}};
  StateImage::Applied b = StateImage::apply(a.image, inc, 20);
  BOOST_REQUIRE_MESSAGE(b.image, b.problem);
  const std::vector<StateImage::Entry>& pages = b.image->pages();
  BOOST_REQUIRE(pages.size() == 2u);
  BOOST_TEST(pages[0].addr == 0x11000u);
  BOOST_TEST(pages[1].addr == 0x12000u);
  BOOST_TEST((*pages[0].page)[0] == 8);
  BOOST_TEST(a.image->pages().size() == 3u, "the base image is unchanged");

  // Event 30: nothing changed but the pages elsewhere; the untouched ones
  // are the base's own, not copies.
  Event more = stored_position(StoredState::Kind::Incremental, 20);
  more.stored_state->ranges = {{0x10000, 0x20000}, {0x900000, 0x901000}};
  more.writes = {{0x900000, page_of(4)}};
  StateImage::Applied c = StateImage::apply(b.image, more, 30);
  BOOST_REQUIRE(c.image);
  BOOST_REQUIRE(c.image->pages().size() == 3u);
  BOOST_TEST(c.image->pages()[0].page == pages[0].page);
  BOOST_TEST(c.image->pages()[2].addr == 0x900000u);

  // A state on another base, or without one, is not rebuilt.
  Event wrong = stored_position(StoredState::Kind::Incremental, 25);
  StateImage::Applied d = StateImage::apply(c.image, wrong, 40);
  BOOST_TEST(!d.image);
  BOOST_TEST(d.problem == "an incremental state on event 25, and the state held is event 30's");
  StateImage::Applied e = StateImage::apply(nullptr, wrong, 40);
  BOOST_TEST(!e.image);
  BOOST_TEST(e.problem == "an incremental state on event 25, and no stored state of the process is held");
  // A full state needs nothing.
  StateImage::Applied f = StateImage::apply(c.image, full, 50);
  BOOST_REQUIRE(f.image);
  BOOST_TEST(f.image->pages().size() == 3u);
  BOOST_TEST(f.image->pages()[2].addr == 0x7f0000u);
}
