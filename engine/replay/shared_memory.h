// Shared memory in replay: every MAP_SHARED mapping (of a file or anonymous)
// is backed by a memfd per recorded object, mapped at each of its aliases, so
// that a store through one alias is seen through the others as it was when
// recorded, in one process or in several processes of a tree.
//
// backstep itself holds each memfd; a replayed process that maps an object
// opens backstep's descriptor through /proc for the one mmap and closes it
// again, so no replayed process's descriptor table holds anything of ours,
// and every process reaches the same objects whatever its table (tables
// are copied at fork and unshared at exec). A checkpoint gets copies of the
// objects its processes map, so that running a checkpoint never changes the
// live replay's memory, nor the other way round. An object mapped only
// privately (a library's reservation past its file's end) is not copied:
// the checkpoint shares its memfd until one of the sessions writes to or
// resizes the object, which first gives that session its own copy (the
// memfd of a shared library would otherwise be copied at every checkpoint).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/task.h"
#include "engine/trace/event.h"
#include "engine/trace/reader.h"

namespace backstep {

class SharedObjects {
 public:
  SharedObjects() = default;
  ~SharedObjects();
  SharedObjects(SharedObjects&& other) noexcept;
  SharedObjects& operator=(SharedObjects&& other) noexcept;
  SharedObjects(const SharedObjects&) = delete;
  SharedObjects& operator=(const SharedObjects&) = delete;

  // Maps `m` (MAP_SHARED) in `task` over the memfd of its object, creating
  // or extending the memfd from the trace's copy of the file as needed.
  // Returns the mmap result (a negative errno on failure).
  int64_t map(Task& task, const trace::Mapping& m, const trace::TraceReader& reader);

  // Applies a size note (trace::MappingKind::FileSize): the file behind
  // object `object` is now `size` bytes long. Objects not mapped are left
  // alone (a later mmap starts from the trace's newer copy). Returns "" or
  // what failed.
  std::string resize(Task& task, uint64_t object, uint64_t size);

  // A system call wrote `data` at `offset` into the file behind `object`:
  // every mapping of it sees the bytes (nothing to do for an object no
  // longer mapped: a later mapping starts from the trace's newer copy).
  // Returns "" or what failed.
  std::string write(uint64_t object, uint64_t offset, const std::vector<uint8_t>& data);

  // The address spaces of the session (one task of each), which decide
  // whether an object is still mapped anywhere; without it, the task at
  // hand alone.
  void set_spaces(std::function<std::vector<Task*>()> spaces) { spaces_ = std::move(spaces); }

  // For a checkpoint whose address spaces (one task each) were forked from
  // the ones these objects belong to: gives them copies of every object
  // still mapped, at the same addresses, and returns the copies' table.
  SharedObjects copy_into(const std::vector<Task*>& spaces) const;

  bool empty() const { return fds_.empty(); }

 private:
  // Objects no address space maps any more are closed and forgotten (a file
  // mapped again later starts from the trace's newer copy, which holds
  // whatever was written to it meanwhile).
  void forget_unmapped(Task& task);
  // A new memfd of `size` bytes, in backstep, for object `id`; -errno.
  int create(uint64_t id, uint64_t size);
  void close_all();
  // Before a write or a resize: an object whose memfd another session
  // shares gets its own copy, mapped at every alias of this session's.
  // Returns "" or what failed.
  std::string unshare(uint64_t id, Task* also);

  std::map<uint64_t, int> fds_;  // object id -> backstep's descriptor of its memfd
  // Objects whose memfd other sessions use too (the count says how many).
  mutable std::map<uint64_t, std::shared_ptr<const int>> shares_;
  uint64_t next_anonymous_ = 0;
  std::function<std::vector<Task*>()> spaces_;
};

}  // namespace backstep
