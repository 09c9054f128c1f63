// Building the replayed address space: from the Exec event's snapshot at
// start, and mapping by mapping as recorded mmaps come.
#pragma once

#include <cstdint>
#include <string>

#include "values/registers.h"
#include "engine/core/task.h"
#include "engine/replay/shared_memory.h"
#include "engine/trace/event.h"
#include "engine/trace/reader.h"

namespace backstep {

// The trace's copy of a file that a replayed process holds open
// (close-on-exec) between recorded mmaps: the loader maps a library's
// segments one call (one event) each, and each open and close of the copy
// in the process is a remote call, two stops. One per process (its
// descriptor table): fd -1 when none.
struct OpenCopy {
  int64_t fd = -1;
  std::string file;  // trace-relative, as trace::Mapping::file
};

// Maps one recorded mapping at its recorded address (files from the trace's
// copies, a private one through `open`; MAP_SHARED ones over their object's
// memfd in `shared`). Returns the kernel's error as a negative errno, or 0.
int64_t map_recorded(Task& task, const trace::Mapping& mapping, const trace::TraceReader& reader,
                     SharedObjects& shared, OpenCopy& open);
// Closes the copy `open` holds, in the tracee.
void close_copy(Task& task, OpenCopy& open);

// The stub areas the recorder mapped at `exec` besides its tool page: the
// one below the executable (engine/core/tool_page.h), if any.
std::vector<uint64_t> recorded_stub_areas(const trace::Event& exec);

// Replaces everything in a freshly exec'd stub (with the tool page already
// installed) by the recorded address space, memory contents and registers.
// Throws std::runtime_error when the rebuilt layout differs.
void rebuild_address_space(Task& task, const trace::Event& exec, const trace::TraceReader& reader,
                           SharedObjects& shared);

// What an address-space syscall needs to be redone during replay.
struct ReplayMmCall {
  Task& task;
  const trace::TraceReader& reader;
  const trace::Event& event;
  const Registers& entry;   // recorded entry registers (the arguments)
  int64_t result;           // recorded result
  uint64_t& brk;            // the program break as replayed so far
  SharedObjects& shared;    // memfds behind MAP_SHARED mappings
  OpenCopy& open_copy;      // the process's open copy, kept for its next mmap
};

// Redoes mmap/munmap/mprotect/mremap/madvise/brk and the other calls the
// spec marks `replay=ACTION` in the tracee so the address space follows the
// recording. Returns an empty string on success, else what went wrong.
// Calls that shape nothing return "" at once.
std::string replay_address_space_call(ReplayMmCall& call);

}  // namespace backstep
