// System call numbers the table does not list: syscall(-1), numbers above
// the table, the never-used 335..423 gap, x32 numbers (bit 30). The kernel
// answers -ENOSYS to them and writes nothing, so the recorder lets them run
// and records exactly that. What it cannot vouch for is refused at entry.
#pragma once

#include <cstdint>

#include "engine/core/syscalls/syscall_table.h"

namespace backstep {

struct SyscallContext;

// The table entry an unknown number is recorded under: supported, no
// outputs, no handler (nr -1, so no recorder is dispatched).
const sys::SyscallInfo& unknown_syscall_info();

// Throws RecordingRefused when the kernel may run the call for real: a
// number whose upper 32 bits are not a sign extension (the kernel only looks
// at the low 32 bits), an x32 number while this kernel runs x32 calls, or a
// number in the range the kernel gives new calls (newer than the table).
void check_unknown_syscall_entry(uint64_t orig_rax, uint64_t event);

// At the exit stop: the kernel answered -ENOSYS (or the program's seccomp
// filter an error or a trap); a success means the kernel ran a call whose
// effects were not recorded (refuses).
void check_unknown_syscall_exit(const SyscallContext& ctx);

}  // namespace backstep
