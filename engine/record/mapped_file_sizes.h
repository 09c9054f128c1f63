// The sizes of files that replay maps over an object following the file's
// size: MAP_SHARED mappings, and private ones that reach past the file's
// end. Touching a page of a file mapping past the file's end raises SIGBUS,
// and replay runs the program's memory accesses for real: the memfd that
// stands for the file in replay (engine/replay/shared_memory.h) must have
// the file's size at every moment such a mapping exists. A file's size
// changes by ftruncate, write past its end, fallocate, an O_TRUNC open, ...
// so instead of knowing every such call, the size of each watched file is
// checked after every system call, and a change becomes a size note
// (trace::MappingKind::FileSize) on that call's event.
//
// Each watched file costs an fstat per event, so a file is watched only
// while it matters, and the address ranges where it does are kept here: all
// of a shared mapping; of a private one, the part past the file's end when
// it was mapped (the part within reads the same bytes whatever the size
// does, unless the file shrinks: the limit that private mappings made
// within the file's end, which replay maps from the trace's copy, have
// always had). ld.so maps each library past its end once, then maps the
// segments and the zeroed memory over it: from then on the library is not
// watched, and the recording of a write costs no fstat.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "engine/trace/event.h"

namespace backstep {

class MappedFileSizes {
 public:
  MappedFileSizes() = default;
  ~MappedFileSizes();
  MappedFileSizes(const MappedFileSizes&) = delete;
  MappedFileSizes& operator=(const MappedFileSizes&) = delete;

  // [start, end) now maps the file behind `fd_path` (a /proc/PID/fd/N
  // link), the trace's shared object `object`, whose size is `size` now
  // (the trace's copy), over an object that follows the file's size.
  void watch(const std::string& fd_path, uint64_t object, uint64_t size, uint64_t start, uint64_t end);

  // [start, start+len) no longer maps what it did (munmap, a mapping made
  // over it). Files left without a watched range are no longer watched.
  void unmapped(uint64_t start, uint64_t len);

  // mremap moved (or grew, shrank, or copied) `old_len` bytes at
  // `old_addr` to [new_addr, new_addr+new_len): the watched parts go with
  // them, at the same offsets. The old ones are gone unless `old_kept`
  // (MREMAP_DONTUNMAP, old_len 0).
  void remapped(uint64_t old_addr, uint64_t old_len, bool old_kept, uint64_t new_addr, uint64_t new_len);

  // Appends a size note to `event` for each watched file whose size changed
  // since it was last noted.
  void note_changes(trace::Event& event);

  // The objects watched now, for tests.
  std::set<uint64_t> watched() const;

 private:
  struct Range {
    uint64_t start = 0, end = 0;
  };
  struct Watched {
    int fd = -1;  // an O_PATH descriptor of ours: the file, however renamed or unlinked
    uint64_t object = 0;
    uint64_t size = 0;
    std::vector<Range> ranges;
  };
  void cut(uint64_t start, uint64_t len);  // without dropping files
  void drop_unmapped();
  std::vector<Watched> watched_;
};

}  // namespace backstep
