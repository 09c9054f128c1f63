// Byte reader/writer helpers and the encoding of one Event. The field tags
// and layouts are documented in docs/trace-format.md; keep the two in step.
#include "engine/trace/encoding.h"

#include <bit>
#include <cstdio>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>

#include "engine/trace/written_data.h"

namespace backstep::trace {

// ---- ByteWriter / ByteReader ----------------------------------------------

void ByteWriter::blob(const void* data, std::size_t size) {
  // Lengths are u32 on disk; a longer blob would silently wrap.
  if (size > std::numeric_limits<uint32_t>::max())
    throw FormatError("blob of " + std::to_string(size) + " bytes is too long to encode");
  u32(static_cast<uint32_t>(size));
  raw(data, size);
}

void ByteWriter::end_length(std::size_t mark) {
  std::size_t len = out_.size() - mark - 4;
  if (len > std::numeric_limits<uint32_t>::max())
    throw FormatError("field of " + std::to_string(len) + " bytes is too long to encode");
  for (int i = 0; i < 4; ++i) out_[mark + i] = static_cast<uint8_t>(len >> (8 * i));
}

void ByteReader::overrun(std::size_t n) const {
  throw FormatError("needs " + std::to_string(n) + " bytes at offset " + std::to_string(pos_) +
                    ", only " + std::to_string(remaining()) + " left");
}

std::vector<uint8_t> ByteReader::blob() {
  auto s = bytes(u32());
  return {s.begin(), s.end()};
}

std::string ByteReader::string() {
  auto s = bytes(u32());
  return {s.begin(), s.end()};
}

std::vector<uint8_t> ByteReader::rest_bytes() {
  auto s = bytes(remaining());
  return {s.begin(), s.end()};
}

std::string ByteReader::rest_string() {
  auto s = bytes(remaining());
  return {s.begin(), s.end()};
}

std::size_t ByteReader::count(std::size_t min_element_size) {
  uint32_t n = u32();
  if (min_element_size != 0 && n > remaining() / min_element_size)
    throw FormatError("count " + std::to_string(n) + " does not fit in the " +
                      std::to_string(remaining()) + " bytes left");
  return n;
}

void ByteReader::expect_end(const char* what) const {
  if (!empty())
    throw FormatError(std::to_string(remaining()) + " unexpected bytes at the end of " + what);
}

// ---- Event ----------------------------------------------------------------

namespace {

// Event field tags. Never reuse a number: bump kFormatVersion instead.
enum EventTag : uint8_t {
  kTagRegs = 1,
  kTagRegChanges = 2,
  kTagWrites = 3,
  kTagXstate = 4,
  kTagMappings = 5,
  kTagSiginfo = 6,
  kTagEchoes = 7,
  kTagStatus = 8,
  kTagMessage = 9,
  kTagWritten = 10,
  kTagPosition = 11,
  kTagCloneFlags = 12,
  kTagArgv = 13,
  kTagObjectWrites = 14,
  kTagStoredState = 15,
};

// nullptr for tags this version does not know.
constexpr const char* event_tag_name(uint8_t tag) {
  constexpr const char* kNames[] = {nullptr,    "regs",    "reg_changes", "writes",  "xstate", "mappings",
                                    "siginfo",  "echoes",  "status",      "message", "written",
                                    "position", "clone_flags", "argv", "object_writes", "stored_state"};
  return tag <= kTagStoredState ? kNames[tag] : nullptr;
}

// Sizes of the smallest possible list elements, for ByteReader::count().
constexpr std::size_t kRegChangeSize = 1 + 8;
constexpr std::size_t kMinWriteSize = 8 + 4;
constexpr std::size_t kMinMappingSize = 8 + 8 + 4 + 4 + 8 + 1 + 4 + 4 + 8 + 8 + 8;
constexpr std::size_t kMinEchoSize = 4 + 4;
constexpr std::size_t kSiginfoSize = 128;
constexpr std::size_t kPageRangeSize = 8 + 8;
// A Position field's flags byte: a fixpoint, or counted (the arrivals follow).
constexpr uint8_t kPositionFixpoint = 1;
constexpr uint8_t kPositionCounted = 2;

bool valid_kind(uint8_t k) {
  return k >= static_cast<uint8_t>(EventKind::Exec) && k <= static_cast<uint8_t>(EventKind::TraceeChange);
}

bool valid_mapping_kind(uint8_t k) {
  return k >= static_cast<uint8_t>(MappingKind::Anonymous) &&
         k <= static_cast<uint8_t>(MappingKind::ForkDropped);
}

void encode_mapping(ByteWriter& w, const Mapping& m) {
  w.u64(m.start);
  w.u64(m.end);
  w.u32(m.prot);
  w.u32(m.flags);
  w.u64(m.offset);
  w.u8(static_cast<uint8_t>(m.kind));
  w.string(m.file);
  w.string(m.name);
  w.u64(m.file_size);
  w.u64(m.file_hash);
  w.u64(m.shared_object);
}

Mapping decode_mapping(ByteReader& r) {
  Mapping m;
  m.start = r.u64();
  m.end = r.u64();
  m.prot = r.u32();
  m.flags = r.u32();
  m.offset = r.u64();
  uint8_t kind = r.u8();
  if (!valid_mapping_kind(kind)) throw FormatError("bad mapping kind " + std::to_string(kind));
  m.kind = static_cast<MappingKind>(kind);
  m.file = r.string();
  m.name = r.string();
  m.file_size = r.u64();
  m.file_hash = r.u64();
  m.shared_object = r.u64();
  return m;
}

// Writes the list fields; each is omitted when empty so that a typical
// syscall event costs a handful of bytes beyond its registers.
void encode_lists(ByteWriter& w, const Event& e, std::span<const BorrowedWrite> first) {
  if (!e.reg_changes.empty()) {
    auto f = w.begin_field(kTagRegChanges);
    w.u32(static_cast<uint32_t>(e.reg_changes.size()));
    for (const RegChange& c : e.reg_changes) {
      w.u8(c.index);
      w.u64(c.value);
    }
    w.end_field(f);
  }
  if (!e.writes.empty() || !first.empty()) {
    auto f = w.begin_field(kTagWrites);
    w.u32(static_cast<uint32_t>(first.size() + e.writes.size()));
    auto put = [&](uint64_t addr, std::span<const uint8_t> data) {
      w.u64(addr);
      w.blob(data.data(), data.size());
    };
    for (const BorrowedWrite& m : first) put(m.addr, m.data);
    for (const MemoryWrite& m : e.writes) put(m.addr, m.data);
    w.end_field(f);
  }
  if (!e.mappings.empty()) {
    auto f = w.begin_field(kTagMappings);
    w.u32(static_cast<uint32_t>(e.mappings.size()));
    for (const Mapping& m : e.mappings) encode_mapping(w, m);
    w.end_field(f);
  }
  if (!e.echoes.empty()) {
    auto f = w.begin_field(kTagEchoes);
    w.u32(static_cast<uint32_t>(e.echoes.size()));
    for (const StdioEcho& echo : e.echoes) {
      w.i32(echo.fd);
      w.blob(echo.data.data(), echo.data.size());
    }
    w.end_field(f);
  }
}

void encode_written(ByteWriter& w, const WrittenData& d) {
  auto f = w.begin_field(kTagWritten);
  w.u8(static_cast<uint8_t>(d.form));
  w.u64(d.size);
  switch (d.form) {
    case WrittenData::Form::Bytes: w.raw(d.bytes.data(), d.bytes.size()); break;
    case WrittenData::Form::BlockHashes:
      for (uint64_t h : d.block_hashes) w.u64(h);
      break;
    case WrittenData::Form::Echoed: break;
  }
  w.end_field(f);
}

WrittenData decode_written(ByteReader& f) {
  WrittenData d;
  uint8_t form = f.u8();
  if (form < static_cast<uint8_t>(WrittenData::Form::Bytes) || form > static_cast<uint8_t>(WrittenData::Form::Echoed))
    throw FormatError("bad written-data form " + std::to_string(form));
  d.form = static_cast<WrittenData::Form>(form);
  d.size = f.u64();
  switch (d.form) {
    case WrittenData::Form::Bytes: d.bytes = f.rest_bytes(); break;
    case WrittenData::Form::BlockHashes:
      d.block_hashes.resize(f.remaining() / 8);
      for (uint64_t& h : d.block_hashes) h = f.u64();
      break;
    case WrittenData::Form::Echoed: break;
  }
  return d;
}

void encode_page_ranges(ByteWriter& w, const std::vector<PageRange>& ranges) {
  w.u32(static_cast<uint32_t>(ranges.size()));
  for (const PageRange& r : ranges) {
    w.u64(r.start);
    w.u64(r.end);
  }
}

std::vector<PageRange> decode_page_ranges(ByteReader& f) {
  std::vector<PageRange> ranges(f.count(kPageRangeSize));
  for (PageRange& r : ranges) {
    r.start = f.u64();
    r.end = f.u64();
  }
  return ranges;
}

void encode_stored_state(ByteWriter& w, const StoredState& s) {
  auto f = w.begin_field(kTagStoredState);
  w.u8(static_cast<uint8_t>(s.kind));
  w.u64(s.base);
  encode_page_ranges(w, s.ranges);
  encode_page_ranges(w, s.zeroed);
  w.end_field(f);
}

StoredState decode_stored_state(ByteReader& f) {
  StoredState s;
  uint8_t kind = f.u8();
  if (kind != static_cast<uint8_t>(StoredState::Kind::Full) &&
      kind != static_cast<uint8_t>(StoredState::Kind::Incremental)) {
    throw FormatError("bad stored state kind " + std::to_string(kind));
  }
  s.kind = static_cast<StoredState::Kind>(kind);
  s.base = f.u64();
  s.ranges = decode_page_ranges(f);
  s.zeroed = decode_page_ranges(f);
  return s;
}

void encode_raw_field(ByteWriter& w, uint8_t tag, const void* data, std::size_t size) {
  if (size == 0) return;
  auto f = w.begin_field(tag);
  w.raw(data, size);
  w.end_field(f);
}

// Decodes the field `tag` (a known one) into `e`.
void decode_field(uint8_t tag, ByteReader& f, Event& e) {
  switch (tag) {
    case kTagRegs: {
      RegBlock regs;
      for (uint64_t& word : regs) word = f.u64();
      e.regs = regs;
      break;
    }
    case kTagRegChanges: {
      e.reg_changes.resize(f.count(kRegChangeSize));
      for (RegChange& c : e.reg_changes) {
        c.index = f.u8();
        c.value = f.u64();
      }
      break;
    }
    case kTagWrites: {
      e.writes.resize(f.count(kMinWriteSize));
      for (MemoryWrite& m : e.writes) {
        m.addr = f.u64();
        m.data = f.blob();
      }
      break;
    }
    case kTagXstate: e.xstate = f.rest_bytes(); break;
    case kTagMappings: {
      std::size_t n = f.count(kMinMappingSize);
      e.mappings.reserve(n);
      for (std::size_t i = 0; i < n; ++i) e.mappings.push_back(decode_mapping(f));
      break;
    }
    case kTagSiginfo: e.siginfo = f.rest_bytes(); break;
    case kTagEchoes: {
      e.echoes.resize(f.count(kMinEchoSize));
      for (StdioEcho& echo : e.echoes) {
        echo.fd = f.i32();
        echo.data = f.blob();
      }
      break;
    }
    case kTagStatus: e.status = f.i64(); break;
    case kTagMessage: e.message = f.rest_string(); break;
    case kTagWritten: e.written = decode_written(f); break;
    case kTagPosition: {
      ForcedPosition p;
      p.digest = f.u64();
      uint8_t flags = f.u8();
      if (flags > kPositionCounted) throw FormatError("bad position flags " + std::to_string(flags));
      p.fixpoint = flags == kPositionFixpoint;
      if (flags == kPositionCounted) {
        p.arrivals = f.u64();
        if (p.arrivals == 0) throw FormatError("a counted position with no arrivals");
      }
      e.position = p;
      break;
    }
    case kTagCloneFlags: e.clone_flags = f.u64(); break;
    case kTagObjectWrites: {
      e.object_writes.resize(f.count(8 + 8 + 4));
      for (ObjectWrite& o : e.object_writes) {
        o.object = f.u64();
        o.offset = f.u64();
        o.data = f.blob();
      }
      break;
    }
    case kTagStoredState: e.stored_state = decode_stored_state(f); break;
    case kTagArgv: {
      e.argv.resize(f.count(4));
      for (std::string& a : e.argv) a = f.string();
      break;
    }
  }
  f.expect_end("the field");
}

}  // namespace

void encode_event(const Event& e, std::vector<uint8_t>& out, std::span<const BorrowedWrite> first) {
  ByteWriter w(out);
  w.u8(static_cast<uint8_t>(e.kind));
  w.u32(e.tid);
  auto payload = w.begin_length();
  if (e.regs) {
    auto f = w.begin_field(kTagRegs);
    // Little-endian words, as u64() writes them: one copy instead of 27
    // (this is most of the cost of encoding an rdtsc event).
    static_assert(std::endian::native == std::endian::little);
    w.raw(e.regs->data(), e.regs->size() * sizeof(uint64_t));
    w.end_field(f);
  }
  encode_lists(w, e, first);
  encode_raw_field(w, kTagXstate, e.xstate.data(), e.xstate.size());
  encode_raw_field(w, kTagSiginfo, e.siginfo.data(), e.siginfo.size());
  if (e.status != 0) {
    auto f = w.begin_field(kTagStatus);
    w.i64(e.status);
    w.end_field(f);
  }
  encode_raw_field(w, kTagMessage, e.message.data(), e.message.size());
  if (e.written) encode_written(w, *e.written);
  if (e.position) {
    auto f = w.begin_field(kTagPosition);
    w.u64(e.position->digest);
    if (e.position->counted()) {
      w.u8(kPositionCounted);
      w.u64(e.position->arrivals);
    } else {
      w.u8(e.position->fixpoint ? kPositionFixpoint : 0);
    }
    w.end_field(f);
  }
  if (e.clone_flags != 0) {
    auto f = w.begin_field(kTagCloneFlags);
    w.u64(e.clone_flags);
    w.end_field(f);
  }
  if (!e.object_writes.empty()) {
    auto f = w.begin_field(kTagObjectWrites);
    w.u32(static_cast<uint32_t>(e.object_writes.size()));
    for (const ObjectWrite& o : e.object_writes) {
      w.u64(o.object);
      w.u64(o.offset);
      w.blob(o.data.data(), o.data.size());
    }
    w.end_field(f);
  }
  if (e.stored_state) encode_stored_state(w, *e.stored_state);
  if (!e.argv.empty()) {
    auto f = w.begin_field(kTagArgv);
    w.u32(static_cast<uint32_t>(e.argv.size()));
    for (const std::string& a : e.argv) w.string(a);
    w.end_field(f);
  }
  w.end_length(payload);
}

Event decode_event(ByteReader& r) {
  Event e;
  uint8_t kind = r.u8();
  if (!valid_kind(kind)) throw FormatError("bad event kind " + std::to_string(kind));
  e.kind = static_cast<EventKind>(kind);
  e.tid = r.u32();
  ByteReader payload = r.sub(r.u32());
  for_each_field(payload, [&](uint8_t tag, ByteReader& f) {
    // The format version is exact, so an unknown tag is damage, not news.
    if (event_tag_name(tag) == nullptr) throw FormatError("unknown field tag " + std::to_string(tag));
    try {
      decode_field(tag, f, e);
    } catch (const FormatError& err) {
      throw FormatError(std::string("field ") + event_tag_name(tag) + ": " + err.what());
    }
  });
  validate_event(e);
  return e;
}

namespace {

// What an event's `status` may hold depends on its kind (event.h).
void validate_status(const Event& e) {
  const int64_t s = e.status;
  auto out_of_range = [&](const std::string& what) {
    throw FormatError(what + " " + std::to_string(s) + " is out of range");
  };
  switch (e.kind) {
    case EventKind::Signal:
    case EventKind::FatalSignal:
      if (s < 1 || s > kMaxSignal) out_of_range("signal number");
      break;
    case EventKind::Exit: {
      // A wait(2) status: exited (code << 8) or killed (signal, and 0x80
      // for a core dump); never stopped or continued, nothing above 16 bits.
      int64_t sig = s & 0x7f;
      bool exited = s >= 0 && s <= 0xff00 && (s & 0xff) == 0;
      bool killed = s >= 0 && s <= 0xff && sig >= 1 && sig <= kMaxSignal;
      if (!exited && !killed) out_of_range("exit status");
      break;
    }
    case EventKind::Syscall:
    case EventKind::SyscallEntered:
      if (s != 0 && s != kSyscallAbiI386) out_of_range("system call ABI");
      break;
    case EventKind::Exec:
      if (s < 0) out_of_range("program break");
      break;
    case EventKind::ThreadStart:
    case EventKind::ProcessStart:
      if (s < 1 || s > kMaxTid) out_of_range("creating thread id");
      break;
    default:
      if (s != 0) throw FormatError(std::string("a status of ") + std::to_string(s) + " on a " + to_string(e.kind) + " event");
      break;
  }
}

// A File mapping's copy: a path inside the trace ("files/NAME"), checked
// here so that no consumer ever sees one that leaves it.
void validate_file_path(const std::string& path) {
  auto bad = [&](const char* why) { throw FormatError(std::string("mapped file path ") + why); };
  if (path.empty()) bad("is empty");
  if (path[0] == '/') bad("is absolute");
  if (path.find('\0') != std::string::npos) bad("holds a NUL byte");
  for (std::size_t start = 0; start <= path.size();) {
    std::size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    std::string_view part(path.data() + start, end - start);
    if (part.empty() || part == "." || part == "..") bad("has an empty, . or .. component");
    start = end + 1;
  }
}

std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

std::string range_text(uint64_t start, uint64_t end) { return hex(start) + "-" + hex(end); }

bool page_aligned(uint64_t v) { return v % kStatePageSize == 0; }

// `spans` (of `what`) are page-aligned, not empty, in address order and
// disjoint; `apart` asks for a gap between each two as well (a canonical
// list, where adjacent ones would be one).
template <typename Span, typename Bounds>
void check_spans(const std::vector<Span>& spans, const char* what, bool apart, Bounds bounds) {
  uint64_t previous_end = 0;
  bool first = true;
  for (const Span& span : spans) {
    auto [start, end] = bounds(span);
    std::string text = std::string("stored state ") + what + " " + range_text(start, end);
    if (!page_aligned(start) || !page_aligned(end)) throw FormatError(text + " is not page-aligned");
    if (start >= end) throw FormatError(text + " is empty or wraps around");
    if (!first && (start < previous_end || (apart && start == previous_end)))
      throw FormatError(text + " is out of order or overlaps the one before");
    previous_end = end;
    first = false;
  }
}

// Whether every span (in address order) lies inside one range of `ranges`
// (in address order, apart); the first that does not, if any.
template <typename Span, typename Bounds>
std::optional<std::pair<uint64_t, uint64_t>> outside(const std::vector<Span>& spans,
                                                     const std::vector<PageRange>& ranges, Bounds bounds) {
  std::size_t i = 0;
  for (const Span& span : spans) {
    auto [start, end] = bounds(span);
    while (i < ranges.size() && ranges[i].end <= start) ++i;
    if (i == ranges.size() || start < ranges[i].start || end > ranges[i].end) return std::make_pair(start, end);
  }
  return std::nullopt;
}

// A stored state (event.h, StoredState) describes whole pages in address
// order, each inside the writable ranges it lists, so that replay can lay
// it over the previous one without checking anything itself.
void validate_stored_state(const Event& e, std::span<const BorrowedWrite> first) {
  const StoredState& s = *e.stored_state;
  if (e.xstate.empty()) throw FormatError("a stored state without its XSAVE area");
  if (!first.empty()) throw FormatError("a stored state with borrowed memory writes");
  if (s.kind == StoredState::Kind::Full && (s.base != 0 || !s.zeroed.empty()))
    throw FormatError("a full stored state with a base state or zeroed pages");
  auto of_range = [](const PageRange& r) { return std::make_pair(r.start, r.end); };
  auto of_write = [](const MemoryWrite& w) { return std::make_pair(w.addr, w.addr + w.data.size()); };
  check_spans(s.ranges, "range", true, of_range);
  check_spans(s.zeroed, "zeroed pages", false, of_range);
  check_spans(e.writes, "pages", false, of_write);
  if (auto bad = outside(s.zeroed, s.ranges, of_range))
    throw FormatError("stored state zeroed pages " + range_text(bad->first, bad->second) + " lie outside its ranges");
  if (auto bad = outside(e.writes, s.ranges, of_write))
    throw FormatError("stored state pages " + range_text(bad->first, bad->second) + " lie outside its ranges");
  // Zeroed and written pages are disjoint: both lists are in order.
  std::size_t z = 0;
  for (const MemoryWrite& w : e.writes) {
    uint64_t end = w.addr + w.data.size();
    while (z < s.zeroed.size() && s.zeroed[z].end <= w.addr) ++z;
    if (z < s.zeroed.size() && s.zeroed[z].start < end)
      throw FormatError("stored state pages " + range_text(w.addr, end) + " are also zeroed");
  }
}

// The fields of a Position event (event.h, ForcedPosition and StoredState).
void validate_position(const Event& e, std::span<const BorrowedWrite> first) {
  if (!e.regs) throw FormatError("a position event without registers");
  const ForcedPosition& p = *e.position;
  if (p.counted() && (p.fixpoint || p.digest || !e.writes.empty() || e.stored_state || !e.xstate.empty())) {
    throw FormatError("a counted position with a digest, a fixpoint or a stored state");
  }
  if (p.fixpoint && e.stored_state) throw FormatError("a fixpoint position with a stored state");
  if (!e.stored_state && (!e.writes.empty() || !first.empty() || !e.xstate.empty()))
    throw FormatError("a position with memory or an XSAVE area but no stored state");
  if (e.stored_state) validate_stored_state(e, first);
}

}  // namespace

void validate_event(const Event& e, std::span<const BorrowedWrite> first) {
  auto check_write = [](uint64_t addr, std::size_t size) {
    if (size > std::numeric_limits<uint64_t>::max() - addr)
      throw FormatError("memory write at " + std::to_string(addr) + " wraps around");
  };
  for (const BorrowedWrite& m : first) check_write(m.addr, m.data.size());
  if (!valid_kind(static_cast<uint8_t>(e.kind)))
    throw FormatError("bad event kind " + std::to_string(static_cast<unsigned>(e.kind)));
  if (e.tid < 1 || e.tid > kMaxTid) throw FormatError("thread id " + std::to_string(e.tid) + " is out of range");
  validate_status(e);
  if (!e.xstate.empty() && (e.xstate.size() < kMinXstateSize || e.xstate.size() > kMaxXstateSize))
    throw FormatError("an XSAVE area of " + std::to_string(e.xstate.size()) + " bytes, expected " +
                      std::to_string(kMinXstateSize) + " to " + std::to_string(kMaxXstateSize));
  for (const RegChange& c : e.reg_changes)
    if (c.index >= kRegWords) throw FormatError("bad register index " + std::to_string(c.index));
  for (const MemoryWrite& m : e.writes) check_write(m.addr, m.data.size());
  for (const ObjectWrite& o : e.object_writes) {
    if (o.object == 0) throw FormatError("a file write without a shared object");
    if (o.data.size() > std::numeric_limits<int64_t>::max() - o.offset)
      throw FormatError("file write at offset " + std::to_string(o.offset) + " wraps around");
  }
  for (const Mapping& m : e.mappings) {
    if (!valid_mapping_kind(static_cast<uint8_t>(m.kind)))
      throw FormatError("bad mapping kind " + std::to_string(static_cast<unsigned>(m.kind)));
    if (m.kind == MappingKind::FileSize) {
      // A size note, not a range: it names a shared object.
      if (m.shared_object == 0 || m.start != 0 || m.end != 0)
        throw FormatError("size note without a shared object, or with a range");
      continue;
    }
    if (m.kind == MappingKind::File) validate_file_path(m.file);
    if (m.start >= m.end)
      throw FormatError("empty or inverted mapping " + std::to_string(m.start) + "-" +
                        std::to_string(m.end));
  }
  if (!e.siginfo.empty() && e.siginfo.size() != kSiginfoSize)
    throw FormatError("siginfo of " + std::to_string(e.siginfo.size()) + " bytes, expected " +
                      std::to_string(kSiginfoSize));
  for (const StdioEcho& echo : e.echoes)
    if (echo.fd != 1 && echo.fd != 2)
      throw FormatError("echo to fd " + std::to_string(echo.fd) + ", expected 1 or 2");
  if (e.written) {
    std::string problem = written_data_problem(*e.written, e.echoes);
    if (!problem.empty()) throw FormatError(problem);
  }
  if ((e.kind == EventKind::Position) != e.position.has_value())
    throw FormatError(e.position ? "a position field on an event that is not a position"
                                 : "a position event without its position field");
  if (e.stored_state && e.kind != EventKind::Position)
    throw FormatError("a stored state on an event that is not a position");
  if (e.position) validate_position(e, first);
  if (kind_traits(e.kind).requires_registers && !e.regs)
    throw FormatError(std::string("a ") + to_string(e.kind) + " event without registers");
}

}  // namespace backstep::trace
