// The `files/` directory of a trace: a copy of every file the tracee mapped,
// so that replay never depends on the host's files. Never a hard link to a
// host file: a trace must not be able to change the host (and the host's
// later changes must not change the trace). Copies of the same content are
// shared between the traces of one trace root through SharedFiles. Private to
// engine/trace; TraceWriter::add_file is its public face.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/trace/event.h"
#include "engine/trace/shared_files.h"

namespace backstep::trace {

class FileStore {
 public:
  // `trace_dir` is the trace directory; its `files/` subdirectory must exist.
  // The shared store is `.backstep-files` beside it, used only if it exists.
  explicit FileStore(std::string trace_dir);

  // See TraceWriter::add_file. Throws TraceError.
  StoredFile add(const std::string& source, const std::string& name_hint);

  // The file name used for `name_hint`'s n-th stored file: the hint's base
  // name with anything but [A-Za-z0-9._+-] replaced, then "-n".
  static std::string stored_name(const std::string& name_hint, uint64_t n);

  // The mode of a copy of a file of mode `source_mode`: its read and execute
  // bits, never write, set-id or sticky; plus read for the owner (the
  // recorder, who could read the source), so that replay can open it.
  static mode_t copy_mode(mode_t source_mode) { return (source_mode & 0555) | 0400; }

 private:
  // What makes two paths the same file, as far as the trace cares: a file
  // rewritten in place gets a new mtime (and usually size) and is stored again.
  struct Identity {
    uint64_t dev = 0, ino = 0;
    int64_t size = 0, mtime_sec = 0, mtime_nsec = 0;
    auto operator<=>(const Identity&) const = default;
  };

  // Rewrites the trace's files.sums from `listed_`: a new file renamed over
  // the old, so a recorder killed at any point leaves a whole list.
  void write_sums() const;

  std::string dir_;
  std::optional<SharedFiles> shared_;
  std::vector<StoredFile> listed_;
  std::map<Identity, StoredFile> stored_;
  uint64_t next_id_ = 0;
};

}  // namespace backstep::trace
