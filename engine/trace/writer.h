// Writes a trace directory: `header`, `events` (chunked, compressed), `files/`.
// Compression and disk writes happen on a background thread so that the
// recorder (and the tracee waiting on it) never waits for zstd or the disk.
// Events reach the file within about kFlushInterval of being written (see
// docs/trace-format.md, "What a crash leaves"), so that a recorder killed by
// SIGKILL loses only its last moments.
#pragma once

#include <sched.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "engine/trace/encoding.h"
#include "engine/trace/event.h"

namespace backstep::trace {

// The longest an event waits in the recorder's memory before the background
// thread sends it to the file (plus the time to compress and write it).
inline constexpr std::chrono::milliseconds kFlushInterval{250};

class TraceWriter {
 public:
  // Creates `dir` (which must not exist yet, its parent must) with mode 0700,
  // its files with 0600 (a trace holds the program's memory, input and
  // environment), and writes the header. Throws TraceError on failure.
  TraceWriter(const std::string& dir, const Header& header);
  ~TraceWriter();  // finishes if finish() was not called
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  // Appends an event. Events are numbered from 0 in the order written.
  // Returns the event's number. `first`: memory writes held elsewhere,
  // recorded as the event's first ones (encoding.h, BorrowedWrite).
  uint64_t write(const Event& event, std::span<const BorrowedWrite> first = {});
  uint64_t events_written() const;

  // While an Idle scope lives, the caller promises not to write: it is
  // waiting (for the tracee, typically). The background thread may then take
  // the events written so far and send them to the file, so that a tracee
  // that computes or sleeps for long does not keep them in memory. Costs two
  // atomic operations, no lock and no system call.
  class Idle {
   public:
    explicit Idle(TraceWriter& writer);
    ~Idle();
    Idle(const Idle&) = delete;
    Idle& operator=(const Idle&) = delete;

   private:
    TraceWriter& writer_;
  };

  // Stores a file that the tracee maps, returning its trace-relative path
  // (e.g. "files/libc.so.6-0"), size and content hash, which replay checks
  // before mapping it. `source` is a path the recorder can open (such as
  // /proc/PID/map_files/... or /proc/PID/fd/N); `name_hint` is the file's
  // name on the host. The same file (device, inode, size, mtime) is stored
  // once. Always a copy, never a link to the host's file (reflinked where
  // the filesystem can), read-only; see FileStore for sharing between traces.
  StoredFile add_file(const std::string& source, const std::string& name_hint);

  // Flushes everything, waits for the background thread, fsyncs nothing
  // (a crash of the machine may lose what the kernel had not written yet).
  // Throws TraceError if a write failed. When writing `events` fails, the
  // background thread records why in the trace's `stop-reason` file (space
  // for it is reserved when the trace is created), so that readers can say
  // why the stream ends early even when the disk is full.
  void finish();

  // Lets the background thread run on `cpus` (sched_setaffinity's mask).
  // The recorder pins itself to the tracee's CPU; its writer, which only
  // compresses and writes, should not take turns with them there.
  // Returns false if the kernel refused the mask.
  bool place_background(const cpu_set_t& cpus);

  const std::string& dir() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace backstep::trace
