// Reads a trace directory written by TraceWriter, validating everything.
// Depends on nothing in record/ or replay/.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "engine/trace/event.h"

namespace backstep::trace {

class TraceReader {
 public:
  // Opens and validates the header. Throws TraceError (naming the file) if the
  // directory is missing, not a trace, of another format version, or corrupt.
  explicit TraceReader(const std::string& dir);
  ~TraceReader();
  TraceReader(const TraceReader&) = delete;
  TraceReader& operator=(const TraceReader&) = delete;

  const Header& header() const;
  const std::string& dir() const;

  // The next event, or nullopt at the end of the stream. Throws TraceError
  // naming the file, the event number and the byte offset when a chunk or an
  // event is corrupt. A final chunk cut short (the recorder was killed) is not
  // an error: next() returns nullopt and truncated() becomes true. When the
  // stream ends without Exit or Abort but the writer left a `stop-reason`
  // (writing the trace failed), next() returns one more event, an Abort
  // carrying that reason, and truncated() stays false.
  std::optional<Event> next();

  // Positions the reader so that next() returns event `event` (or ends, if
  // the stream has fewer events). Whole chunks before it are skipped by
  // their headers, without decompressing them.
  void seek(uint64_t event);

  // Number of the event next() will return.
  uint64_t next_event_number() const;

  // True once next() found the stream cut short (no complete final chunk,
  // or no Exit/Abort event at the end).
  bool truncated() const;

  // Absolute path of a trace-relative file (as returned by add_file).
  // Throws TraceError if it escapes the trace directory or does not exist.
  std::string file_path(const std::string& relative) const;

  // file_path() of a File mapping's copy, once the copy is checked to hold
  // what was recorded: its size and content hash. Throws TraceError naming
  // the file and what changed. A file is hashed once per process while it
  // stays unchanged (same inode, size, mtime and ctime), so checkpoints and
  // later mappings of it cost one stat. (Defined in file_check.cc.)
  std::string verified_file_path(const Mapping& mapping) const;

  // Checks every copy listed in the trace's files.sums the same way, so that
  // a changed copy stops a replay before it starts rather than at the mmap
  // that needs it. Throws TraceError. (Defined in file_check.cc.)
  void verify_files() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace backstep::trace
