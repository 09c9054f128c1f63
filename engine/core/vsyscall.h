// The vsyscall page: the fixed page at 0xffffffffff600000 that old static
// binaries (glibc before 2.14's vDSO use) call for gettimeofday, time and
// getcpu. Its code is not run: executing it faults, and the kernel emulates
// the call (vsyscall=xonly or emulate). No syscall instruction runs, so
// PTRACE_SYSCALL never stops there; only a seccomp filter sees the call
// (SECCOMP_RET_TRACE gives a seccomp stop at the page's address, orig_rax
// the call's number). The tracer answers it there: orig_rax -1 skips the
// kernel's work, rax is the result, and the kernel then emulates the
// `ret` (ip from the stack, sp + 8). The tracer may not move ip at that
// stop (the kernel kills the process with SIGSYS).
//
// backstep's filters trace calls from the page in every recorded process
// (record_session.cc) and every replayed one (replay_session.cc); the
// recorder answers the call itself (engine/record/vsyscall_call.cc), and
// replay answers it with the recorded result and bytes.
#pragma once

#include <signal.h>

#include <cstdint>
#include <vector>

#include "values/registers.h"

namespace backstep {

class Task;

inline constexpr uint64_t kVsyscallPage = 0xffffffffff600000ull;

inline bool in_vsyscall_page(uint64_t ip) { return ip >= kVsyscallPage && ip < kVsyscallPage + 4096; }

// Installs, in the calling process, a seccomp filter that stops calls from
// the vsyscall page for the tracer (SECCOMP_RET_TRACE) and lets every other
// call through; without CAP_SYS_ADMIN it sets no_new_privs first. For a
// child between fork and exec: async-signal-safe. Returns false (errno set)
// when the kernel refuses.
bool install_vsyscall_filter();

// At a seccomp stop in the vsyscall page (or stopped in user code at the
// page's address, where running faults into that stop): skips the kernel's
// call with `result` in rax, lets the kernel return to the caller, and
// stops the task there (a breakpoint at the return address), out of the
// kernel. Signals that stop the task meanwhile are not delivered: their
// siginfo goes to *held (without `held`, such a stop throws TaskGone).
// Returns the registers at the caller.
Registers finish_vsyscall(Task& task, int64_t result, std::vector<siginfo_t>* held);

// At a seccomp stop in the vsyscall page, for a call that is reached but not
// to be answered yet (replay stops before the event): takes the task out of
// the kernel without a trace of the call, back to user code at the page's
// address with the same registers, where the tracer may move it (a
// checkpoint's fork) and from where running makes the same call again.
void back_out_of_vsyscall(Task& task);

}  // namespace backstep
