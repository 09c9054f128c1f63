// TraceReader: validates the header up front, then reads `events` one chunk
// at a time and decodes its events one by one. Any inconsistency is a
// TraceError naming the file, the chunk's byte offset and the event; a file
// that simply stops (the recorder was killed) is reported as truncation.
#include "engine/trace/reader.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <exception>
#include <future>
#include <memory>
#include <span>
#include <system_error>
#include <vector>

#include "engine/trace/codec.h"
#include "engine/trace/encoding.h"
#include "engine/trace/format.h"
#include "engine/trace/printable.h"
#include "engine/trace/trace_error.h"
#include "engine/trace/trace_file.h"

namespace backstep::trace {

namespace {

std::string errno_text(int err) { return std::system_category().message(err); }

std::string strip_trailing_slashes(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

// Bytes that are not zeroed when the buffer grows (the reader writes every
// byte before it reads it), and that stay allocated from chunk to chunk,
// except that a buffer that once held a huge chunk gives its memory back,
// so that one big event does not pin hundreds of MiB for the rest of the
// replay.
class ChunkBuffer {
 public:
  uint8_t* data() { return data_.get(); }
  std::size_t size() const { return size_; }
  std::span<uint8_t> span() { return {data_.get(), size_}; }
  void resize(std::size_t n) {
    if (capacity_ > 4 * kChunkTargetBytes && n <= 2 * kChunkTargetBytes) {
      data_.reset();
      capacity_ = 0;
    }
    if (n > capacity_) {
      data_.reset();
      data_.reset(new uint8_t[n]);
      capacity_ = n;
    }
    size_ = n;
  }

 private:
  std::unique_ptr<uint8_t[]> data_;
  std::size_t size_ = 0, capacity_ = 0;
};

std::string absolute(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  char cwd[PATH_MAX];
  if (::getcwd(cwd, sizeof cwd) == nullptr) throw TraceError(path + ": cannot resolve: " + errno_text(errno));
  return std::string(cwd) + "/" + path;
}

// Reads exactly `size` bytes at `offset`; fewer only at end of file.
std::size_t pread_full(int fd, uint8_t* buf, std::size_t size, uint64_t offset, const std::string& path) {
  std::size_t done = 0;
  while (done < size) {
    ssize_t n = ::pread(fd, buf + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw TraceError(path + ": read failed at byte offset " + std::to_string(offset + done) + ": " + errno_text(errno));
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  return done;
}

// The CPUs this process could use when its first reader was made, before
// replay pinned itself and its tracees to one CPU (replay_session.cc): the
// read-ahead thread (below) inherits that pin and would take its CPU time
// from the program it reads ahead for, so it runs on these instead.
const cpu_set_t& cpus_at_start() {
  static const cpu_set_t set = [] {
    cpu_set_t s;
    CPU_ZERO(&s);
    if (sched_getaffinity(0, sizeof s, &s) != 0) CPU_ZERO(&s);
    return s;
  }();
  return set;
}

// One chunk of `events`, read, checked and decompressed, or why not.
struct FetchedChunk {
  enum class Outcome { Loaded, Truncated, Corrupt };
  uint64_t offset = 0;  // where it was looked for
  uint64_t first = 0;   // the event it must start with
  Outcome outcome = Outcome::Loaded;
  std::string why;          // Corrupt
  uint32_t event_count = 0;  // Loaded: its events, in `raw`
  uint64_t end = 0;          // Loaded: the next chunk's offset
  ChunkBuffer raw;
  // Read ahead, its first events are decoded too: those that decode and
  // pass the checks next_unchecked() makes after each. The rest (from the
  // first that does not, which then fails there as it would have) are
  // decoded from `raw` at byte `undecoded`.
  std::vector<Event> decoded;
  std::size_t taken = 0;  // of `decoded`
  std::size_t undecoded = 0;
};

// Decodes the events of a loaded chunk ahead of need (FetchedChunk::decoded).
void decode_ahead(FetchedChunk& c) {
  c.decoded.clear();
  c.taken = 0;
  c.undecoded = 0;
  ByteReader r(c.raw.data(), c.raw.size());
  for (uint32_t i = 0; i < c.event_count; ++i) {
    Event e;
    try {
      e = decode_event(r);
    } catch (const FormatError&) {
      return;
    }
    const bool last = i + 1 == c.event_count;
    if (last != r.empty()) return;  // bytes after the last event, or events short
    c.decoded.push_back(std::move(e));
    c.undecoded = r.offset();
  }
}

// Fills `c` (whose offset and first are set) from the file. Only what
// comes before `file_size` is looked at: a chunk that needs more was cut
// short (the recorder was killed), not damaged.
void fetch_chunk(int fd, const std::string& path, uint64_t file_size, Decompressor& decompressor,
                 ChunkBuffer& compressed, FetchedChunk& c) {
  c.outcome = FetchedChunk::Outcome::Loaded;
  c.why.clear();
  auto corrupt = [&](std::string why) {
    c.outcome = FetchedChunk::Outcome::Corrupt;
    c.why = std::move(why);
  };
  uint8_t head[kChunkHeaderSize];
  if (file_size - c.offset < sizeof head || pread_full(fd, head, sizeof head, c.offset, path) < sizeof head) {
    c.outcome = FetchedChunk::Outcome::Truncated;
    return;
  }
  ChunkHeader h;
  try {
    h = decode_chunk_header(head);
  } catch (const FormatError& e) {
    return corrupt(e.what());
  }
  if (h.first_event != c.first) return corrupt("chunk claims to start at event " + std::to_string(h.first_event));
  // Only now is compressed_len trusted (its checksum matched).
  if (file_size - c.offset - sizeof head < h.compressed_len) {
    c.outcome = FetchedChunk::Outcome::Truncated;
    return;
  }
  compressed.resize(h.compressed_len);
  if (pread_full(fd, compressed.data(), compressed.size(), c.offset + sizeof head, path) < compressed.size()) {
    c.outcome = FetchedChunk::Outcome::Truncated;
    return;
  }
  if (chunk_data_check(compressed.data(), compressed.size()) != h.data_crc) return corrupt("checksum mismatch");
  c.raw.resize(h.raw_len);
  try {
    decompressor.decompress(h.codec, compressed.span(), c.raw.span());
  } catch (const FormatError& e) {
    return corrupt(e.what());
  }
  c.event_count = h.event_count;
  c.end = c.offset + sizeof head + h.compressed_len;
}

std::vector<uint8_t> read_header_file(const std::string& dir, const std::string& path) {
  std::optional<OpenedTraceFile> f = open_trace_file_if_present(path);
  if (!f) throw TraceError(dir + ": not a backstep trace (no header file)");
  if (static_cast<uint64_t>(f->st.st_size) > kMaxHeaderFileSize)
    throw TraceError(path + ": not a backstep trace (header file of " + std::to_string(f->st.st_size) + " bytes)");
  std::vector<uint8_t> bytes(static_cast<std::size_t>(f->st.st_size));
  bytes.resize(pread_full(f->fd.get(), bytes.data(), bytes.size(), 0, path));
  return bytes;
}

// The text of the trace's stop-reason file up to its first NUL, or "" when
// there is none. Like every trace file, only a regular file is read.
std::string read_stop_reason(const std::string& dir) {
  std::string path = dir + "/" + kStopReasonFile;
  std::optional<OpenedTraceFile> f = open_trace_file_if_present(path);
  if (!f) return "";
  std::vector<uint8_t> bytes(kStopReasonReserve);
  bytes.resize(pread_full(f->fd.get(), bytes.data(), bytes.size(), 0, path));
  std::string text(bytes.begin(), bytes.end());
  text.resize(std::strlen(text.c_str()));
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

void check_trace_dir(const std::string& dir) {
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) throw TraceError(dir + ": no such trace directory: " + errno_text(errno));
  if (!S_ISDIR(st.st_mode)) throw TraceError(dir + ": not a backstep trace (not a directory)");
}

}  // namespace

struct TraceReader::Impl {
  explicit Impl(const std::string& dir);

  void open_events();
  std::optional<Event> next_unchecked();
  bool load_chunk();
  [[noreturn]] void chunk_error(uint64_t offset, uint64_t first, const std::string& why) const;

  const std::string dir;
  const std::string abs_dir;
  const std::string events_path;
  Header header;

  TraceFileFd events;
  uint64_t file_size = 0;
  uint64_t offset = kPreambleSize;  // of the next chunk
  uint64_t next_event = 0;

  Decompressor decompressor;
  ChunkBuffer compressed;
  FetchedChunk current;  // the chunk whose events are decoded
  ByteReader in_chunk;   // over current.raw
  uint32_t events_left = 0;
  uint64_t chunk_offset = 0;
  uint64_t chunk_first = 0;

  bool ended = false;
  bool truncated = false;
  bool stop_reason_given = false;
  std::optional<EventKind> last_kind;
  uint32_t last_tid = 0;
  std::string failure;  // set once next() threw; every later call rethrows it

  // The chunk after `current`, read and decompressed by another thread
  // while the events of `current` are decoded and replayed: replay runs
  // one thread of the program at a time, and the machine's other core
  // does this. Used when the next chunk wanted is that one (a seek may
  // have moved elsewhere). Last, so that it is waited for first.
  Decompressor ahead_decompressor;
  ChunkBuffer ahead_compressed;
  FetchedChunk ahead;
  std::future<void> ahead_done;
};

TraceReader::Impl::Impl(const std::string& d)
    : dir(strip_trailing_slashes(d)), abs_dir(absolute(dir)), events_path(dir + "/" + kEventsFile) {
  check_trace_dir(dir);
  cpus_at_start();
  std::string header_path = dir + "/" + kHeaderFile;
  header = decode_header_file(read_header_file(dir, header_path), header_path);
  open_events();
}

void TraceReader::Impl::open_events() {
  OpenedTraceFile f = open_trace_file(events_path);
  events = std::move(f.fd);
  file_size = static_cast<uint64_t>(f.st.st_size);
  uint8_t preamble[kPreambleSize];
  std::size_t got = pread_full(events.get(), preamble, sizeof preamble, 0, events_path);
  if (got == sizeof preamble) {
    check_events_preamble(preamble, events_path);
    return;
  }
  // Shorter than the preamble: the recorder died at once if what is there
  // is the start of a preamble; anything else is not an events file.
  std::vector<uint8_t> expected = encode_events_preamble();
  if (std::memcmp(preamble, expected.data(), got) != 0)
    throw TraceError(events_path + ": not a backstep events file (bad magic)");
  ended = truncated = true;
}

void TraceReader::Impl::chunk_error(uint64_t at, uint64_t first, const std::string& why) const {
  throw TraceError(events_path + ": corrupt chunk at byte offset " + std::to_string(at) + " (events from " +
                   std::to_string(first) + "): " + why);
}

// Reads, checks and decompresses the chunk at `offset` (or takes it from
// the read ahead). Returns false at the end of the stream, setting
// `truncated` if the stream ends inside a chunk.
bool TraceReader::Impl::load_chunk() {
  if (offset == file_size) return false;
  bool taken = false;
  if (ahead_done.valid()) {
    std::exception_ptr failed;
    try {
      ahead_done.get();
    } catch (...) {
      failed = std::current_exception();
    }
    taken = ahead.offset == offset && ahead.first == next_event;
    if (taken && failed) std::rethrow_exception(failed);  // what reading it here would have thrown
    if (taken) std::swap(current, ahead);
  }
  if (!taken) {
    current.offset = offset;
    current.first = next_event;
    fetch_chunk(events.get(), events_path, file_size, decompressor, compressed, current);
  }
  if (current.outcome == FetchedChunk::Outcome::Truncated) {
    truncated = true;
    return false;
  }
  if (current.outcome == FetchedChunk::Outcome::Corrupt) chunk_error(offset, next_event, current.why);
  chunk_offset = offset;
  chunk_first = next_event;
  offset = current.end;
  if (!taken) {
    current.decoded.clear();
    current.taken = current.undecoded = 0;
  }
  in_chunk = ByteReader(current.raw.data() + current.undecoded, current.raw.size() - current.undecoded);
  events_left = current.event_count;
  if (offset < file_size) {
    ahead.offset = offset;
    ahead.first = next_event + current.event_count;
    ahead_done = std::async(std::launch::async, [this] {
      if (CPU_COUNT(&cpus_at_start()) > 1) sched_setaffinity(0, sizeof(cpu_set_t), &cpus_at_start());
      fetch_chunk(events.get(), events_path, file_size, ahead_decompressor, ahead_compressed, ahead);
      if (ahead.outcome == FetchedChunk::Outcome::Loaded) decode_ahead(ahead);
    });
  }
  return true;
}

std::optional<Event> TraceReader::Impl::next_unchecked() {
  if (events_left == 0 && !load_chunk()) {
    ended = true;
    // A recording that ran to its end closes with Exit or Abort.
    if (last_kind && kind_traits(*last_kind).can_close_trace) return std::nullopt;
    // Otherwise the writer may have said why it could not go on.
    if (!stop_reason_given) {
      if (std::string why = read_stop_reason(dir); !why.empty()) {
        stop_reason_given = true;
        truncated = false;
        Event abort;
        abort.kind = EventKind::Abort;
        abort.tid = last_tid;
        abort.message = why;
        ++next_event;
        last_kind = EventKind::Abort;
        return abort;
      }
    }
    truncated = true;
    return std::nullopt;
  }
  Event event;
  if (current.taken < current.decoded.size()) {
    // Decoded ahead, and checked as below.
    event = std::move(current.decoded[current.taken++]);
    --events_left;
    ++next_event;
    last_kind = event.kind;
    last_tid = event.tid;
    return event;
  }
  try {
    event = decode_event(in_chunk);
  } catch (const FormatError& e) {
    chunk_error(chunk_offset, chunk_first, "event " + std::to_string(next_event) + ": " + e.what());
  }
  if (--events_left == 0 && !in_chunk.empty())
    chunk_error(chunk_offset, chunk_first, std::to_string(in_chunk.remaining()) + " bytes after the last event");
  if (events_left != 0 && in_chunk.empty())
    chunk_error(chunk_offset, chunk_first, "ends after event " + std::to_string(next_event) + ", " +
                                               std::to_string(events_left) + " events short");
  ++next_event;
  last_kind = event.kind;
  last_tid = event.tid;
  return event;
}

TraceReader::TraceReader(const std::string& dir) : impl_(std::make_unique<Impl>(dir)) {}

TraceReader::~TraceReader() = default;

const Header& TraceReader::header() const { return impl_->header; }

const std::string& TraceReader::dir() const { return impl_->dir; }

std::optional<Event> TraceReader::next() {
  if (!impl_->failure.empty()) throw TraceError(impl_->failure);
  if (impl_->ended) return std::nullopt;
  try {
    return impl_->next_unchecked();
  } catch (const TraceError& e) {
    impl_->failure = e.what();
    throw;
  }
}

void TraceReader::seek(uint64_t event) {
  Impl& m = *impl_;
  if (!m.failure.empty()) throw TraceError(m.failure);
  if (event < m.next_event) {
    // Backwards: start over.
    m.offset = kPreambleSize;
    m.next_event = 0;
    m.events_left = 0;
    m.ended = false;
    m.truncated = false;
    m.stop_reason_given = false;
    m.last_kind.reset();
  }
  if (m.events_left == 0 && !m.ended) {
    // Skip whole chunks that end before `event`, reading only their headers.
    while (m.offset < m.file_size && m.file_size - m.offset >= kChunkHeaderSize) {
      uint8_t head[kChunkHeaderSize];
      if (pread_full(m.events.get(), head, sizeof head, m.offset, m.events_path) < sizeof head) break;
      ChunkHeader h;
      try {
        h = decode_chunk_header(head);
      } catch (const FormatError&) {
        break;  // next() reports it
      }
      if (h.first_event != m.next_event || h.first_event + h.event_count > event) break;
      if (m.file_size - m.offset - sizeof head < h.compressed_len) break;
      m.offset += sizeof head + h.compressed_len;
      m.next_event = h.first_event + h.event_count;
    }
  }
  while (m.next_event < event && next()) {
  }
}

uint64_t TraceReader::next_event_number() const { return impl_->next_event; }

bool TraceReader::truncated() const { return impl_->truncated; }

std::string TraceReader::file_path(const std::string& relative) const {
  auto reject = [&](const char* why) {
    throw TraceError(impl_->dir + ": trace file path \"" + printable(relative) + "\" " + why);
  };
  if (relative.empty()) reject("is empty");
  if (relative[0] == '/') reject("is absolute");
  for (std::size_t start = 0; start <= relative.size();) {
    std::size_t end = relative.find('/', start);
    if (end == std::string::npos) end = relative.size();
    if (relative.compare(start, end - start, "..") == 0) reject("leaves the trace directory");
    start = end + 1;
  }
  // Neither `files/` nor the file may be a link: a link inside a trace
  // could point anywhere on the host.
  check_no_linked_directories(impl_->abs_dir, relative);
  std::string path = impl_->abs_dir + "/" + relative;
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0)
    throw TraceError(printable(path) + ": missing from the trace: " + errno_text(errno));
  if (!S_ISREG(st.st_mode))
    throw TraceError("trace file " + printable(path) + " is " + file_type_name(st.st_mode) + ", not a regular file");
  return path;
}

}  // namespace backstep::trace
