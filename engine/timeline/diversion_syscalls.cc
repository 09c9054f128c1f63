// What a function the debugger calls during replay may do through the
// kernel (diversion.h). The copy it runs in has the replay's memory but
// none of the recording's world: no files, no sockets, no other processes.
// So only calls that need nothing of that world run: the address space,
// signal masks and handlers, clocks and sleeps, futexes, random numbers,
// writes to stdout and stderr (the server's, where the replay echoes the
// program's output), and leaving. The process's identity comes from the
// recording. Everything else fails with ENOSYS, as an unimplemented call
// would, and the called function sees an error it can handle.
#include <errno.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <algorithm>
#include <array>

#include "engine/timeline/diversion.h"

namespace backstep {
namespace {

// Calls the kernel runs as they are.
constexpr std::array kRunnable = {
    SYS_brk,          SYS_munmap,          SYS_mprotect,     SYS_mremap,
    SYS_madvise,      SYS_rt_sigprocmask, SYS_rt_sigaction,   SYS_sigaltstack,  SYS_rt_sigreturn,
    SYS_clock_gettime, SYS_clock_getres, SYS_gettimeofday,    SYS_time,         SYS_nanosleep,
    SYS_clock_nanosleep, SYS_sched_yield, SYS_getrandom,      SYS_futex,        SYS_exit,
    SYS_exit_group,
};

// Calls that write to a descriptor: run only for stdout and stderr.
constexpr std::array kWrites = {SYS_write, SYS_writev};

bool member(long nr, const auto& list) { return std::find(list.begin(), list.end(), nr) != list.end(); }

}  // namespace

DiversionCall diversion_call(const Registers& entry, const DiversionIdentity& who) {
  long nr = static_cast<long>(entry.syscallno());
  DiversionCall call;
  if (member(nr, kRunnable)) return call;
  // Anonymous memory only: a descriptor here is not the program's.
  if (nr == SYS_mmap && (entry.arg(3) & MAP_ANONYMOUS)) return call;
  if (member(nr, kWrites) && (entry.arg(0) == 1 || entry.arg(0) == 2)) return call;
  call.action = DiversionCall::Action::Answer;
  if (nr == SYS_getpid) {
    call.result = who.pid;
  } else if (nr == SYS_gettid) {
    call.result = who.tid;
  } else {
    call.result = -ENOSYS;
  }
  return call;
}

}  // namespace backstep
