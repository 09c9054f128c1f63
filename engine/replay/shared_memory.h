// Shared memory in replay: every MAP_SHARED mapping (of a file or anonymous)
// is backed by a memfd per recorded object, mapped at each of its aliases, so
// that a store through one alias is seen through the others as it was when
// recorded. The memfds stay open in the replayed process (whose descriptor
// table is backstep's own: replay performs none of the program's opens), and
// a checkpoint gets copies of them, so that running a checkpoint never
// changes the live replay's memory, nor the other way round.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "engine/core/task.h"
#include "engine/trace/event.h"
#include "engine/trace/reader.h"

namespace backstep {

class SharedObjects {
 public:
  // Maps `m` (MAP_SHARED) in `task` over the memfd of its object, creating
  // or extending the memfd from the trace's copy of the file as needed.
  // Returns the mmap result (a negative errno on failure).
  int64_t map(Task& task, const trace::Mapping& m, const trace::TraceReader& reader);

  // Applies a size note (trace::MappingKind::FileSize): the file behind
  // object `object` is now `size` bytes long. Objects not mapped are left
  // alone (a later mmap starts from the trace's newer copy). Returns "" or
  // what failed.
  std::string resize(Task& task, uint64_t object, uint64_t size);

  // After `child` was forked from the task these objects belong to: gives
  // the child copies of every object still mapped, at the same descriptor
  // numbers and addresses, and returns the child's table.
  SharedObjects copy_into(Task& child) const;

  bool empty() const { return fds_.empty(); }
  // Whether `task` maps any of these objects MAP_SHARED now (private
  // mappings of them, such as the holes ld.so leaves in a library's first
  // mapping, share nothing).
  bool mapped_in(Task& task) const;

 private:
  // Objects with no mapping left are closed and forgotten (a file mapped
  // again later starts from the trace's newer copy, which holds whatever
  // was written to it meanwhile).
  void forget_unmapped(Task& task);
  int64_t create(Task& task, uint64_t id, uint64_t size);

  std::map<uint64_t, int> fds_;  // object id -> descriptor in the replayed process
  uint64_t next_anonymous_ = 0;
};

}  // namespace backstep
