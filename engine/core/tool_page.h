// backstep's own pages in every tracee, at the same address in record and in
// replay: a `syscall` instruction the engine runs remote system calls from,
// and scratch memory for their arguments (paths). Recorded as a mapping of
// kind Tool so the address-space layout is identical in both.
#pragma once

#include <signal.h>

#include <array>
#include <cstdint>
#include <vector>

#include "engine/core/proc_maps.h"
#include "engine/core/remote_ptr.h"

namespace backstep {

class Task;

inline constexpr uint64_t kToolPageAddr = 0x70000000;  // BS_TOOL_PAGE_ADDR (preload/preload_interface.h)
inline constexpr uint64_t kToolPageSize = 2 * 4096;
inline constexpr remote_ptr<void> kToolSyscallInsn{kToolPageAddr};          // syscall; int3
inline constexpr remote_ptr<void> kToolScratch{kToolPageAddr + 4096};        // 4 KiB scratch
inline constexpr uint64_t kToolScratchSize = 4096;

// Maps the tool pages into a task stopped right after execve (at a
// PTRACE_EVENT_EXEC stop): borrows the instruction at the entry point for one
// mmap, then restores it. Throws if the address is taken.
// A signal that stops the task during the page's mmap (a recorded
// program's timer) is not delivered: its siginfo goes to *held when given,
// else the mmap throws TaskGone.
void install_tool_page(Task& task, std::vector<siginfo_t>* held = nullptr);

// A second stub area (the layout of preload/preload_interface.h,
// BS_STUB_AREA_SIZE bytes, read and execute) just below the program's
// executable, mapped by the recorder at the exec stop after the tool page:
// a patched site in the executable jumps to its stub with a rel32 jump, and
// the library's own area lies with the other libraries, out of that reach.
// `maps` are the task's mappings after the exec. Recorded as a mapping of
// kind Tool, which replay maps again where the trace says. Returns its
// address, or 0 where there is no room below the executable.
uint64_t install_executable_stub_area(Task& task, const std::vector<MapsEntry>& maps,
                                      std::vector<siginfo_t>* held = nullptr);

// Runs `nr` in the task from the tool page.
int64_t tool_syscall(Task& task, long nr, uint64_t a0 = 0, uint64_t a1 = 0, uint64_t a2 = 0,
                     uint64_t a3 = 0, uint64_t a4 = 0, uint64_t a5 = 0);

// The same for a recorded task, which real signals may reach meanwhile:
// those are appended to `held` instead of delivered (Task::remote_syscall).
int64_t tool_syscall_holding(Task& task, std::vector<siginfo_t>& held, long nr, std::array<uint64_t, 6> args);

}  // namespace backstep
