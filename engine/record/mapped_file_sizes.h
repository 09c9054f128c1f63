// The sizes of files mapped MAP_SHARED. Touching a page of a file mapping
// past the file's end raises SIGBUS, and replay runs the program's memory
// accesses for real: the memfd that stands for the file in replay
// (engine/replay/shared_memory.h) must have the file's size at every moment.
// A file's size changes by ftruncate, write past its end, fallocate, an
// O_TRUNC open, ... so instead of knowing every such call, the size of each
// watched file is checked after every system call, and a change becomes a
// size note (trace::MappingKind::FileSize) on that call's event.
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

  // Watches the file behind `fd_path` (a /proc/PID/fd/N link), the trace's
  // shared object `object`, whose size is `size` now (the trace's copy).
  // Watching an object twice is harmless.
  void watch(const std::string& fd_path, uint64_t object, uint64_t size);

  // Stops watching every object not in `mapped`: with no mapping left, its
  // size no longer matters to replay (a later mapping starts from the
  // trace's copy made then), and each watched file costs an fstat per event.
  void keep_only(const std::set<uint64_t>& mapped);

  // Appends a size note to `event` for each watched file whose size changed
  // since it was last noted.
  void note_changes(trace::Event& event);

 private:
  struct Watched {
    int fd = -1;  // an O_PATH descriptor of ours: the file, however renamed or unlinked
    uint64_t object = 0;
    uint64_t size = 0;
  };
  std::vector<Watched> watched_;
};

}  // namespace backstep
