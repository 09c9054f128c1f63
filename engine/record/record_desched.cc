// Buffered calls that block (preload/desched.c has the library's side).
//
// Only one thread runs user code at a time (record_threads.cc). A call the
// library makes through the untraced instruction is invisible to the
// recorder: if it waits (a read of an empty pipe whose writer is another
// thread), the program would wait for ever for a thread the recorder holds.
// So around a call that may block the library arms a perf event that
// counts the thread's context switches and signals the recording thread
// (the wake signal: it interrupts our wait). At that wake-up, and at every
// tick while several threads live, the recorder looks whether the running
// thread is blocked at the untraced instruction (/proc/TID/syscall); if
// so, it interrupts it, gives the interrupted call the result
// BS_RESULT_ABANDONED, and the library makes the call again on the traced
// path, with every register as the program had them: the recorder sees its
// entry and lets other threads run while it waits, as for any call.
//
// The same abandonment applies when a signal of the program's interrupts an
// untraced call: the signal is held back to the next event (record_signals.cc),
// and the traced call it then interrupts gets it, with the program's handler,
// as it would natively.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "values/log.h"
#include "engine/core/restart_codes.h"
#include "engine/core/syscalls/syscall_table.h"
#include "engine/record/record_session.h"
#include "preload/preload_interface.h"

namespace backstep {
namespace {

// How long an interrupt of a blocked thread may take before it is sent
// again (a stray second stop is passed over).
constexpr uint64_t kDeschedAgainNs = 4'000'000;

// A call a signal (or our interrupt) stopped before it did anything.
bool interrupted_result(int64_t ret) { return ret == -EINTR || is_restart_code(ret); }

// A signal the call itself raised as it failed: SIGPIPE with EPIPE (a write
// to a pipe or socket nobody reads), SIGXFSZ with EFBIG (past the file size
// limit), sent by the kernel on behalf of the caller (SI_USER from its own
// process). The call did nothing; made again on the traced path, it raises
// the signal again right at its return, where it is delivered as natively.
bool raised_by_call(const siginfo_t& info, int64_t ret, pid_t pid) {
  if (info.si_code != SI_USER || info.si_pid != pid) return false;
  return (info.si_signo == SIGPIPE && ret == -EPIPE) || (info.si_signo == SIGXFSZ && ret == -EFBIG);
}

// The user pc of a thread blocked in a system call, from /proc/TID/syscall
// ("NR ARG1 .. ARG6 SP PC" in hex, or "running"); nullopt when it runs.
std::optional<uint64_t> blocked_call_pc(pid_t tid) {
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/%d/syscall", tid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  char text[256];
  ssize_t n = read(fd, text, sizeof(text) - 1);
  close(fd);
  if (n <= 0) return std::nullopt;
  text[n] = '\0';
  if (std::strncmp(text, "running", 7) == 0) return std::nullopt;
  const char* last = std::strrchr(text, ' ');
  if (!last) return std::nullopt;
  char* end = nullptr;
  uint64_t pc = std::strtoull(last + 1, &end, 16);
  if (end == last + 1) return std::nullopt;
  return pc;
}

}  // namespace

void RecordSession::check_blocked_call(RecordTask& t) {
  if (!t.buffer || t.run != RunState::Running || live_threads() < 2) return;
  uint64_t now = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
  // The kernel may drop an interrupt that crosses another stop: ask again
  // if none came for a while.
  if (t.desched_pending && now - t.desched_sent_ns < kDeschedAgainNs) return;
  std::optional<uint64_t> pc = blocked_call_pc(t.tid());
  if (!pc || *pc != BS_UNTRACED_SYSCALL_IP) return;
  BS_LOG(Record, "thread " << t.tid() << " blocks in a buffered call: interrupting it");
  t.task.interrupt();
  t.desched_pending = true;
  t.desched_sent_ns = now;
}

RecordSession::Abandoned RecordSession::abandon_interrupted_call(RecordTask& t, const siginfo_t* signal) {
  if (!t.buffer) return Abandoned::No;
  Registers regs = t.task.regs();
  if (regs.ip() != BS_UNTRACED_SYSCALL_IP) return Abandoned::No;
  // The library's own untraced calls (its desched event's) are left alone.
  const sys::SyscallInfo* info = sys::lookup(static_cast<long>(regs.syscallno()));
  if (!info || !info->bufferable) return Abandoned::No;
  int64_t ret = static_cast<int64_t>(regs.raw().rax);
  Abandoned why;
  if (interrupted_result(ret)) why = Abandoned::Interrupted;
  else if (signal && raised_by_call(*signal, ret, process_of(t.task))) why = Abandoned::RaisesSignal;
  else return Abandoned::No;
  // Not a restart code any more: the kernel does not restart the call when
  // the thread resumes, and the library sees the abandonment.
  regs.raw().rax = static_cast<uint64_t>(BS_RESULT_ABANDONED);
  t.task.set_regs(regs);
  BS_LOG(Record, "thread " << t.tid() << ": buffered " << info->name << " abandoned; traced instead");
  return why;
}

}  // namespace backstep
