// TraceWriter: events are encoded on the caller's thread into the current
// chunk; full chunks go through a bounded queue to a background thread that
// compresses them and appends them to `events`. A chunk that is not full is
// sent too once kFlushInterval has passed: by the background thread itself
// when the recording thread is idle (waiting for the tracee), else by the
// recording thread at its next write, on the background thread's request.
#include "engine/trace/writer.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <functional>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "engine/trace/codec.h"
#include "engine/trace/encoding.h"
#include "engine/trace/file_store.h"
#include "engine/trace/format.h"
#include "engine/trace/trace_error.h"

namespace backstep::trace {

namespace {

// Chunks waiting for the background thread. When the disk or the compressor
// cannot keep up, the recorder blocks here instead of growing without bound.
constexpr std::size_t kMaxPendingChunks = 8;
// Emptied chunk buffers kept for reuse, so steady recording stops allocating.
constexpr std::size_t kMaxSpareBuffers = 4;

// Who may touch the current chunk: the recording thread (Busy), nobody while
// it waits (Idle), or the background thread, which is taking it (Taking).
enum ChunkOwner : int { kBusy, kIdle, kTaking };
// Bits of Impl::attention, which write() reads once per event.
constexpr uint8_t kFailedBit = 1;    // the background thread met an I/O error
constexpr uint8_t kFlushDueBit = 2;  // flush the current chunk at the next write

std::string errno_text(int err) { return std::system_category().message(err); }

// Returns 0 or the errno of the failed write.
int write_all(int fd, const uint8_t* data, std::size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return 0;
}

void write_new_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) throw TraceError(path + ": cannot create: " + errno_text(errno));
  int err = write_all(fd, bytes.data(), bytes.size());
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) throw TraceError(path + ": write failed: " + errno_text(err));
}

void make_trace_dir(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0700) == 0) return;
  int err = errno;
  if (err == EEXIST) throw TraceError(dir + ": cannot create trace directory: it already exists");
  if (err == ENOENT) throw TraceError(dir + ": cannot create trace directory: its parent does not exist");
  throw TraceError(dir + ": cannot create trace directory: " + errno_text(err));
}

std::string strip_trailing_slashes(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

// Creates the stop-reason file with its space allocated up front. Returns
// its descriptor.
int reserve_stop_reason(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) throw TraceError(path + ": cannot create: " + errno_text(errno));
  int err = ::posix_fallocate(fd, 0, static_cast<off_t>(kStopReasonReserve));
  if (err == EOPNOTSUPP || err == EINVAL) {
    // No fallocate on this filesystem: writing the bytes allocates them too.
    std::vector<uint8_t> zeros(kStopReasonReserve);
    err = write_all(fd, zeros.data(), zeros.size());
  }
  if (err != 0) {
    ::close(fd);
    throw TraceError(path + ": cannot reserve space: " + errno_text(err));
  }
  return fd;
}

// The bytes of memory an event carries: most of a big event's size.
std::size_t memory_bytes(const Event& event, std::span<const BorrowedWrite> first) {
  std::size_t n = 0;
  for (const BorrowedWrite& w : first) n += w.data.size();
  for (const MemoryWrite& w : event.writes) n += w.data.size();
  for (const ObjectWrite& w : event.object_writes) n += w.data.size();
  return n;
}

// Starts `body` on a thread that blocks every signal, so that the signals
// sent to the process (SIGTERM, SIGINT, ...) interrupt the recording
// thread's waits, not this one.
std::thread start_quiet_thread(std::function<void()> body) {
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  std::thread t;
  try {
    t = std::thread(std::move(body));
  } catch (...) {
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    throw;
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return t;
}

struct PendingChunk {
  uint64_t first_event = 0;
  uint32_t event_count = 0;
  std::vector<uint8_t> raw;
};

}  // namespace

struct TraceWriter::Impl {
  Impl(const std::string& dir, const Header& header);

  uint64_t write(const Event& event, std::span<const BorrowedWrite> first);
  void flush_chunk();
  void finish();
  void enter_idle();
  void leave_idle();
  // The background thread's loop and its steps.
  void drain();
  void take_idle_chunk();
  void record_stop_reason(const std::string& why);
  std::string store(Compressor& compressor, const PendingChunk& chunk, std::vector<uint8_t>& out);
  std::vector<uint8_t> fresh_buffer();
  std::string failure();

  const std::string dir;
  const std::string events_path;
  const Codec codec;
  int events_fd = -1;
  int stop_reason_fd = -1;
  FileStore files;

  // Touched by the recording thread, and by the background thread while it
  // holds `owner` (Taking).
  std::atomic<int> owner{kBusy};
  std::vector<uint8_t> chunk;
  uint64_t chunk_first = 0;
  uint32_t chunk_events = 0;
  uint64_t next_event = 0;
  // Touched by the recording thread only.
  bool finished = false;

  // Shared with the background thread; guarded by `mu`.
  std::mutex mu;
  std::condition_variable work_ready;
  std::condition_variable space_free;
  std::deque<PendingChunk> queue;
  std::vector<std::vector<uint8_t>> spares;
  bool closing = false;
  std::string io_error;  // the first failure; later chunks are dropped
  // kFailedBit mirrors !io_error.empty() without the lock, so that write()
  // can stop at once after a failure; kFlushDueBit asks it to flush. One
  // load per event for both.
  std::atomic<uint8_t> attention{0};

  std::thread thread;
};

TraceWriter::Impl::Impl(const std::string& d, const Header& header)
    : dir(strip_trailing_slashes(d)),
      events_path(dir + "/" + kEventsFile),
      codec(header.codec),
      files(dir) {
  std::vector<uint8_t> header_bytes;
  try {
    header_bytes = encode_header_file(header);
  } catch (const FormatError& e) {
    throw TraceError(dir + ": invalid trace header: " + e.what());
  }
  make_trace_dir(dir);
  std::string files_dir = dir + "/" + kFilesDir;
  if (::mkdir(files_dir.c_str(), 0700) != 0)
    throw TraceError(files_dir + ": cannot create: " + errno_text(errno));
  stop_reason_fd = reserve_stop_reason(dir + "/" + kStopReasonFile);
  events_fd = ::open(events_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  auto close_files = [&] {
    if (events_fd >= 0) ::close(events_fd);
    ::close(stop_reason_fd);
  };
  if (events_fd < 0) {
    int err = errno;
    close_files();
    throw TraceError(events_path + ": cannot create: " + errno_text(err));
  }
  std::vector<uint8_t> preamble = encode_events_preamble();
  if (int err = write_all(events_fd, preamble.data(), preamble.size())) {
    close_files();
    throw TraceError(events_path + ": write failed: " + errno_text(err));
  }
  // The header goes last: a directory with a header always has an events file.
  try {
    write_new_file(dir + "/" + kHeaderFile, header_bytes);
  } catch (...) {
    close_files();
    throw;
  }
  chunk = fresh_buffer();
  try {
    thread = start_quiet_thread([this] { drain(); });
  } catch (const std::system_error& e) {
    close_files();
    throw TraceError(dir + ": cannot start the trace writer thread: " + e.what());
  }
}

std::vector<uint8_t> TraceWriter::Impl::fresh_buffer() {
  {
    std::lock_guard lock(mu);
    if (!spares.empty()) {
      std::vector<uint8_t> b = std::move(spares.back());
      spares.pop_back();
      return b;
    }
  }
  std::vector<uint8_t> b;
  // Room for a full chunk plus the event that overflows it, so that a chunk
  // of ordinary events never reallocates.
  b.reserve(kChunkTargetBytes + (kChunkTargetBytes / 4));
  return b;
}

std::string TraceWriter::Impl::failure() {
  std::lock_guard lock(mu);
  return io_error;
}

uint64_t TraceWriter::Impl::write(const Event& event, std::span<const BorrowedWrite> first) {
  if (finished) throw TraceError(dir + ": event written after the trace was finished");
  const uint8_t flags = attention.load(std::memory_order_relaxed);
  if (flags & kFailedBit) throw TraceError(failure());
  // An event whose memory alone fills a chunk (a syscall buffer's flush,
  // a big read) gets a chunk of its own: the events before it go first, so
  // that it is encoded straight into an empty chunk instead of copied out
  // of a shared one below.
  if (chunk_events > 0 && memory_bytes(event, first) >= kChunkTargetBytes) flush_chunk();
  const std::size_t start = chunk.size();
  try {
    validate_event(event, first);
    encode_event(event, chunk, first);
  } catch (const FormatError& e) {
    chunk.resize(start);
    throw TraceError(events_path + ": cannot write event " + std::to_string(next_event) + ": " + e.what());
  }
  const std::size_t size = chunk.size() - start;
  if (size > kMaxChunkRawBytes) {
    chunk.resize(start);
    throw TraceError(events_path + ": cannot write event " + std::to_string(next_event) + ": its " +
                     std::to_string(size) + " bytes exceed the limit of " + std::to_string(kMaxChunkRawBytes));
  }
  if (size >= kChunkTargetBytes && chunk_events > 0) {
    // A big event gets a chunk of its own, so that no chunk grows past the
    // limit by sharing: send the events before it off first.
    std::vector<uint8_t> big(chunk.begin() + static_cast<std::ptrdiff_t>(start), chunk.end());
    chunk.resize(start);
    flush_chunk();
    chunk = std::move(big);
  }
  uint64_t number = next_event++;
  ++chunk_events;
  if (chunk.size() >= kChunkTargetBytes || chunk_events >= kChunkMaxEvents || (flags & kFlushDueBit))
    flush_chunk();
  return number;
}

// Hands the current chunk to the background thread, waiting while the queue
// is full. Then throws the thread's I/O error, if it has met one, so that the
// recorder stops soon after the disk fills up.
void TraceWriter::Impl::flush_chunk() {
  attention.fetch_and(static_cast<uint8_t>(~kFlushDueBit), std::memory_order_relaxed);
  if (chunk_events == 0) return;
  PendingChunk pending{chunk_first, chunk_events, std::move(chunk)};
  chunk_first = next_event;
  chunk_events = 0;
  {
    std::unique_lock lock(mu);
    space_free.wait(lock, [&] { return queue.size() < kMaxPendingChunks; });
    queue.push_back(std::move(pending));
  }
  work_ready.notify_one();
  chunk = fresh_buffer();
  if (std::string err = failure(); !err.empty()) throw TraceError(err);
}

void TraceWriter::Impl::enter_idle() { owner.store(kIdle, std::memory_order_release); }

void TraceWriter::Impl::leave_idle() {
  // Fails only while the background thread is taking the chunk: a few
  // microseconds (it moves a buffer; compressing happens later).
  int expected = kIdle;
  while (!owner.compare_exchange_weak(expected, kBusy, std::memory_order_acquire)) {
    expected = kIdle;
    std::this_thread::yield();
  }
}

// On the background thread, when no chunk came for kFlushInterval: takes the
// recording thread's partial chunk if it is idle, else asks it to flush.
void TraceWriter::Impl::take_idle_chunk() {
  int expected = kIdle;
  if (!owner.compare_exchange_strong(expected, kTaking, std::memory_order_acquire)) {
    attention.fetch_or(kFlushDueBit, std::memory_order_relaxed);
    return;
  }
  if (chunk_events > 0) {
    PendingChunk pending{chunk_first, chunk_events, std::move(chunk)};
    chunk_first = next_event;
    chunk_events = 0;
    chunk = fresh_buffer();
    // Queued before the recording thread may run again, so that chunks stay
    // in order; the bound on the queue is for the recording thread only.
    std::lock_guard lock(mu);
    queue.push_back(std::move(pending));
  }
  owner.store(kIdle, std::memory_order_release);
}

// Writes `why` over the reserved space of the stop-reason file. Shrinking
// the file afterwards frees space, it never needs any.
void TraceWriter::Impl::record_stop_reason(const std::string& why) {
  std::string text = "writing the trace failed: " + why;
  if (text.size() > kStopReasonReserve) text.resize(kStopReasonReserve);
  if (::pwrite(stop_reason_fd, text.data(), text.size(), 0) == static_cast<ssize_t>(text.size())) {
    if (::ftruncate(stop_reason_fd, static_cast<off_t>(text.size())) != 0) {
      // The NULs after the text are ignored by readers.
    }
  }
}

void TraceWriter::Impl::drain() {
  // Compressor and output buffer live as long as the thread: one allocation.
  Compressor compressor(codec);
  std::vector<uint8_t> out;
  for (;;) {
    PendingChunk pending;
    // After a failed write, later chunks are dropped: the file stays whole
    // chunks plus at most one partial one, which reads as a truncated trace.
    bool skip;
    {
      std::unique_lock lock(mu);
      if (!work_ready.wait_for(lock, kFlushInterval, [&] { return !queue.empty() || closing; })) {
        lock.unlock();
        take_idle_chunk();
        continue;
      }
      if (queue.empty()) return;
      pending = std::move(queue.front());
      queue.pop_front();
      skip = !io_error.empty();
    }
    space_free.notify_one();
    std::string err = skip ? std::string() : store(compressor, pending, out);
    if (!err.empty()) record_stop_reason(err);  // only the first: later chunks are skipped
    std::lock_guard lock(mu);
    if (!err.empty() && io_error.empty()) {
      io_error = err;
      attention.fetch_or(kFailedBit, std::memory_order_relaxed);
    }
    // Oversized buffers (one big event) are not worth keeping around.
    if (spares.size() < kMaxSpareBuffers && pending.raw.capacity() <= 2 * kChunkTargetBytes) {
      pending.raw.clear();
      spares.push_back(std::move(pending.raw));
    }
  }
}

// Compresses one chunk and appends it to the file. Returns an error message,
// empty on success.
std::string TraceWriter::Impl::store(Compressor& compressor, const PendingChunk& pending,
                                     std::vector<uint8_t>& out) {
  try {
    out.resize(kChunkHeaderSize);
    Codec used = compressor.compress(pending.raw, out);
    // A stored chunk's data is written from the pending buffer itself.
    const uint8_t* data = used == Codec::Stored ? pending.raw.data() : out.data() + kChunkHeaderSize;
    std::size_t data_len = used == Codec::Stored ? pending.raw.size() : out.size() - kChunkHeaderSize;
    ChunkHeader h;
    h.codec = used;
    h.raw_len = static_cast<uint32_t>(pending.raw.size());
    h.compressed_len = static_cast<uint32_t>(data_len);
    h.first_event = pending.first_event;
    h.event_count = pending.event_count;
    h.data_crc = chunk_data_check(data, data_len);
    encode_chunk_header(h, out.data());
    // The header, then the data from wherever it is (right after the
    // header for a compressed chunk).
    int err = write_all(events_fd, out.data(), kChunkHeaderSize);
    if (err == 0) err = write_all(events_fd, data, data_len);
    return err == 0 ? std::string() : events_path + ": write failed: " + errno_text(err);
  } catch (const std::exception& e) {
    return events_path + ": cannot compress events from " + std::to_string(pending.first_event) + ": " + e.what();
  }
}

void TraceWriter::Impl::finish() {
  if (finished) return;
  finished = true;
  try {
    flush_chunk();
  } catch (const TraceError&) {
    // Reported below, after the thread is joined.
  }
  {
    std::lock_guard lock(mu);
    closing = true;
  }
  work_ready.notify_one();
  thread.join();
  std::string err = failure();
  if (::close(events_fd) != 0 && err.empty()) err = events_path + ": close failed: " + errno_text(errno);
  events_fd = -1;
  ::close(stop_reason_fd);
  stop_reason_fd = -1;
  // A finished stream says how the recording ended by itself.
  if (err.empty()) ::unlink((dir + "/" + kStopReasonFile).c_str());
  if (!err.empty()) throw TraceError(err);
}

TraceWriter::TraceWriter(const std::string& dir, const Header& header)
    : impl_(std::make_unique<Impl>(dir, header)) {}

TraceWriter::~TraceWriter() {
  if (!impl_ || impl_->finished) return;
  try {
    impl_->finish();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "backstep: finishing the trace failed: %s\n", e.what());
  }
}

uint64_t TraceWriter::write(const Event& event, std::span<const BorrowedWrite> first) {
  return impl_->write(event, first);
}

uint64_t TraceWriter::events_written() const { return impl_->next_event; }

TraceWriter::Idle::Idle(TraceWriter& writer) : writer_(writer) { writer_.impl_->enter_idle(); }

TraceWriter::Idle::~Idle() { writer_.impl_->leave_idle(); }

StoredFile TraceWriter::add_file(const std::string& source, const std::string& name_hint) {
  return impl_->files.add(source, name_hint);
}

void TraceWriter::finish() { impl_->finish(); }

bool TraceWriter::place_background(const cpu_set_t& cpus) {
  return pthread_setaffinity_np(impl_->thread.native_handle(), sizeof(cpus), &cpus) == 0;
}

const std::string& TraceWriter::dir() const { return impl_->dir; }

}  // namespace backstep::trace
