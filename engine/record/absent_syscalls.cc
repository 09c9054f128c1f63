// Calls whose effect replay could not reproduce, recorded as a kernel
// built without them would answer: -ENOSYS, which programs and libraries
// expect and fall back from (to threads, read(2), plain memfd_create...).
// The kernel never runs them: the recorder turns the call into number -1 at
// its entry, so that nothing of what they would start exists natively
// either. rr answers userfaultfd the same way.
//
//   userfaultfd            page faults served by the program's own reads
//                          and ioctls, outside any system call's results
//   io_uring_*             rings the kernel fills between system calls
//   memfd_secret           memory that neither ptrace nor /proc/PID/mem can
//                          read, so the recorder could not see what it holds
#include "engine/record/syscall_context.h"

namespace backstep {
namespace {

constexpr uint64_t kNoSuchCall = ~uint64_t{0};  // -1: every kernel answers -ENOSYS

void enter_absent(SyscallContext& ctx) {
  ctx.entry.set_syscallno(kNoSuchCall);
  ctx.task.set_regs(ctx.entry);
  ctx.entry_rewritten = true;
}

}  // namespace

namespace recorders {
extern const SyscallRecorder absent{enter_absent, nullptr};
}  // namespace recorders

}  // namespace backstep
