// One ptrace request of a recorded tracer, as the emulation answers it
// (ptrace_syscalls.cc has the table of requests; ptrace_state_requests.cc
// those that read or change a tracee's registers, extended state and
// signal state). Internal to engine/record.
#pragma once

#include <sys/types.h>
#include <sys/user.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "values/registers.h"
#include "engine/record/ptrace_emulation.h"
#include "engine/record/syscall_context.h"

namespace backstep {

class RecordSession;
struct RecordTask;

struct PtraceCall {
  SyscallContext& ctx;
  RecordSession& session;
  RecordTask& caller;
  pid_t tid;               // argument 1: the task asked about
  uint64_t addr, data;     // arguments 2 and 3
  RecordTask* target;      // that task, when it is recorded and alive
  EmulatedTracee* tracee;  // the caller's process traces it
};

// The answer to one request: 0 or a value, or -errno.
using Emulate = int64_t (*)(PtraceCall&);

namespace ptrace_calls {

// Writes into the caller's memory, recorded as the call's output; false
// where the address is not the caller's to write (the kernel's EFAULT).
bool put(PtraceCall& c, uint64_t addr, const void* bytes, std::size_t len);
int64_t put_result(PtraceCall& c, uint64_t addr, const void* bytes, std::size_t len);

// The tracee's registers as its tracer sees them in the stop (see the
// definition for a thread that waits in the kernel).
std::optional<Registers> tracee_regs(RecordTask& t);

// The kernel's own ptrace(request, tid, addr, data) on a real thread the
// recorder holds in a stop: its result, or -errno.
long kernel_ptrace(long request, pid_t tid, uint64_t addr, void* data);

// A thread that waits in a blocking call is in no ptrace stop of the
// recorder's: a request that only the kernel can answer for it ends the
// recording (refused).
void refuse_in_kernel(PtraceCall& c, const char* request);

// Before a change to a stopped tracee: its stop's position goes into the
// trace first, or the recording ends where it cannot.
void before_change(PtraceCall& c, const char* request);

// Registers and extended state (ptrace_state_requests.cc).
int64_t peek_user(PtraceCall& c);
int64_t poke_user(PtraceCall& c);
int64_t get_regs(PtraceCall& c);
int64_t set_regs(PtraceCall& c);
int64_t get_fpregs(PtraceCall& c);
int64_t set_fpregs(PtraceCall& c);
int64_t get_regset(PtraceCall& c);
int64_t set_regset(PtraceCall& c);
int64_t fpx_regs(PtraceCall& c);
int64_t arch_prctl(PtraceCall& c);
int64_t get_thread_area(PtraceCall& c);
// Signal state of the stop.
int64_t get_sigmask(PtraceCall& c);
int64_t set_sigmask(PtraceCall& c);
int64_t peek_siginfo(PtraceCall& c);
int64_t set_siginfo(PtraceCall& c);
// The tracee's seccomp filters and rseq registration
// (ptrace_kernel_queries.cc).
int64_t seccomp_get_filter(PtraceCall& c);
int64_t seccomp_get_metadata(PtraceCall& c);
int64_t get_rseq_configuration(PtraceCall& c);

}  // namespace ptrace_calls
}  // namespace backstep
