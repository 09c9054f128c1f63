// The `files/` directory of a trace: one copy (or hard link) of every file the
// tracee mapped, so that replay never depends on the host's files. Private to
// engine/trace; TraceWriter::add_file is its public face.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <string>

namespace backstep::trace {

class FileStore {
 public:
  // `trace_dir` is the trace directory; its `files/` subdirectory must exist.
  explicit FileStore(std::string trace_dir);

  // See TraceWriter::add_file. Throws TraceError.
  std::string add(const std::string& source, const std::string& name_hint, bool may_link);

  // The file name used for `name_hint`'s n-th stored file: the hint's base
  // name with anything but [A-Za-z0-9._+-] replaced, then "-n".
  static std::string stored_name(const std::string& name_hint, uint64_t n);

 private:
  // What makes two paths the same file, as far as the trace cares: a file
  // rewritten in place gets a new mtime (and usually size) and is stored again.
  struct Identity {
    uint64_t dev = 0, ino = 0;
    int64_t size = 0, mtime_sec = 0, mtime_nsec = 0;
    auto operator<=>(const Identity&) const = default;
  };

  std::string dir_;
  std::map<Identity, std::string> stored_;
  uint64_t next_id_ = 0;
};

}  // namespace backstep::trace
