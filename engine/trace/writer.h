// Writes a trace directory: `header`, `events` (chunked, compressed), `files/`.
// Compression and disk writes happen on a background thread so that the
// recorder (and the tracee waiting on it) never waits for zstd or the disk.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "engine/trace/event.h"

namespace backstep::trace {

class TraceWriter {
 public:
  // Creates `dir` (which must not exist yet, its parent must) and writes the
  // header. Throws TraceError on failure.
  TraceWriter(const std::string& dir, const Header& header);
  ~TraceWriter();  // finishes if finish() was not called
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  // Appends an event. Events are numbered from 0 in the order written.
  // Returns the event's number.
  uint64_t write(const Event& event);
  uint64_t events_written() const;

  // Stores a file that the tracee maps, returning its trace-relative path
  // (e.g. "files/libc.so.6-0"), size and content hash, which replay checks
  // before mapping it. `source` is a path the recorder can open (such as
  // /proc/PID/map_files/... or /proc/PID/fd/N); `name_hint` is the file's
  // name on the host. The same file (device, inode, size, mtime) is stored
  // once. Always a copy, never a link to the host's file (reflinked where
  // the filesystem can), read-only; see FileStore for sharing between traces.
  StoredFile add_file(const std::string& source, const std::string& name_hint);

  // Flushes everything, waits for the background thread, fsyncs nothing
  // (a crash loses at most the unflushed chunk). Throws TraceError if a
  // write failed.
  void finish();

  const std::string& dir() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace backstep::trace
