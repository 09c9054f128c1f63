// wait4 and waitid for emulated tracees (ptrace_emulation.h). The kernel
// does not know the tracer traces anyone, so a wait that names a tracee
// is answered here while one of its stops is unreported: the status (or
// siginfo) is written as the kernel writes it, and the spec's outputs
// record it. Otherwise:
//  - with WNOHANG, the kernel runs it where a real child could answer,
//    else it answers 0 (nothing yet);
//  - a blocking wait is held at its entry (record_tracees.cc) until a
//    tracee stops, or the kernel has something to report (a child that
//    ended and was not reaped: then the kernel runs it), or no tracee it
//    names is left.
#include <signal.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <cstddef>
#include <string>

#include "values/log.h"
#include "engine/core/signals.h"
#include "engine/record/record_session.h"
#include "engine/record/syscall_context.h"

namespace backstep {
namespace {

struct WaitCall {
  bool waitid = false;
  pid_t pid = -1;  // wait4's meaning: > 0 one task, -1 any, 0 or < -1 a process group
  int options = 0;
  uint64_t out = 0;     // wait4's int status, waitid's siginfo_t
  uint64_t rusage = 0;  // struct rusage, or 0
};

// The call's arguments, in wait4's terms; nullopt for what the kernel
// refuses or the emulation leaves to it (pidfds).
std::optional<WaitCall> read_call(const SyscallContext& ctx) {
  WaitCall w;
  if (ctx.info.nr == SYS_wait4) {
    w.pid = static_cast<pid_t>(ctx.arg(0));
    w.out = ctx.arg(1);
    w.options = static_cast<int>(ctx.arg(2));
    w.rusage = ctx.arg(3);
    if (w.options & ~(WNOHANG | WUNTRACED | WCONTINUED | __WNOTHREAD | __WCLONE | __WALL)) return std::nullopt;
    return w;
  }
  w.waitid = true;
  auto id = static_cast<pid_t>(ctx.arg(1));
  switch (static_cast<idtype_t>(ctx.arg(0))) {
    case P_ALL: w.pid = -1; break;
    case P_PID: w.pid = id; break;
    case P_PGID: w.pid = id == 0 ? 0 : -id; break;
    default: return std::nullopt;
  }
  w.out = ctx.arg(2);
  w.options = static_cast<int>(ctx.arg(3));
  w.rusage = ctx.arg(4);
  if (!(w.options & (WEXITED | WSTOPPED | WCONTINUED))) return std::nullopt;
  return w;
}

// A null pointer is no output (the kernel writes nothing there).
bool write_out(SyscallContext& ctx, uint64_t addr, const void* bytes, std::size_t len) {
  return addr == 0 || ctx.write_output(addr, bytes, len);
}

uid_t owner(pid_t tid) {
  struct stat st{};
  std::string path = "/proc/" + std::to_string(tid);
  return ::stat(path.c_str(), &st) == 0 ? st.st_uid : 0;
}

// Reports tracee `tid`'s stop, as the kernel's wait does. The spec records
// what was written (wait4's status and rusage, waitid's siginfo and rusage).
int64_t report(SyscallContext& ctx, const WaitCall& w, pid_t tid, int status) {
  struct rusage usage {};  // a stopped tracee's usage is not followed: zero
  if (!write_out(ctx, w.rusage, &usage, sizeof(usage))) return -EFAULT;
  if (!w.waitid) return write_out(ctx, w.out, &status, sizeof(status)) ? tid : -EFAULT;
  siginfo_t info{};
  info.si_signo = SIGCHLD;
  info.si_pid = tid;
  info.si_uid = owner(tid);
  describe_child_status(info, status);
  return write_out(ctx, w.out, &info, sizeof(info)) ? 0 : -EFAULT;
}

// WNOHANG and nothing to report: 0, and waitid's siginfo fields zeroed.
int64_t nothing_yet(SyscallContext& ctx, const WaitCall& w) {
  if (w.waitid) {
    siginfo_t info{};
    if (!write_out(ctx, w.out, &info, offsetof(siginfo_t, si_status) + sizeof(int))) return -EFAULT;
  }
  return 0;
}

// Whether a thread of `process` died traced and its tracer has not reaped
// it: the kernel keeps it as a zombie, and does not report the process's
// exit before (a recorded gdb hears of each thread's exit before the
// process's, as natively).
bool holds_unreaped_thread(RecordSession& session, const RecordProcess& process) {
  for (pid_t tid : session.ptrace_emulation().unreaped_deaths()) {
    RecordTask* t = session.record_task(tid);
    if (t && t->process == &process) return true;
  }
  return false;
}

// A child of `parent` that a wait for `pid` may report and that was not
// reaped (`ended`: only one that has ended, whose exit the kernel has).
bool waitable_child(RecordSession& session, pid_t parent, pid_t pid, bool ended) {
  for (const auto& [id, p] : session.processes()) {
    if (p->parent != parent || p->reaped || (ended && !p->ended)) continue;
    if (p->ended && holds_unreaped_thread(session, *p)) continue;
    if (pid == -1 || pid == id || pid == 0 || (pid < -1 && ::getpgid(id) == -pid)) return true;
  }
  return false;
}

void enter_wait(SyscallContext& ctx) {
  RecordTask* caller = ctx.session.record_task(ctx.task.tid());
  if (caller && caller->process && decide_wait(ctx, *caller) == WaitOutcome::Held) ctx.held = true;
}

// A wait the kernel ran that reaped a child: no wait reports it again.
void exit_wait(SyscallContext& ctx) {
  if (ctx.emulated_result || ctx.failed()) return;
  std::optional<WaitCall> w = read_call(ctx);
  if (!w || w->out == 0) return;
  pid_t reaped = 0;
  if (!w->waitid) {
    int status = 0;
    if (ctx.result() > 0 && ctx.task.read_some(remote_ptr<void>(w->out), &status, sizeof(status)) == sizeof(status) &&
        (WIFEXITED(status) || WIFSIGNALED(status))) {
      reaped = static_cast<pid_t>(ctx.result());
    }
  } else if (!(w->options & WNOWAIT)) {
    siginfo_t info{};
    if (ctx.task.read_some(remote_ptr<void>(w->out), &info, sizeof(info)) == sizeof(info) &&
        (info.si_code == CLD_EXITED || info.si_code == CLD_KILLED || info.si_code == CLD_DUMPED)) {
      reaped = info.si_pid;
    }
  }
  if (reaped == 0) return;
  for (const auto& [id, p] : ctx.session.processes()) {
    if (id == reaped) p->reaped = true;
  }
}

}  // namespace

WaitOutcome decide_wait(SyscallContext& ctx, RecordTask& caller) {
  RecordSession& session = ctx.session;
  std::optional<WaitCall> w = read_call(ctx);
  if (!w || !caller.process) return WaitOutcome::Kernel;
  PtraceEmulation& emulation = session.ptrace_emulation();
  std::vector<pid_t> tracees = emulation.matching(caller.process->pid, w->pid);
  if (w->options & __WNOTHREAD) {
    std::erase_if(tracees, [&](pid_t tid) { return emulation.tracee(tid)->tracer != caller.tid(); });
  }
  if (w->pid > 0 && tracees.empty()) {
    // A wait for one child whose traced threads died unreaped: the kernel
    // could report its exit at once, natively it waits for them.
    auto child = session.processes().find(w->pid);
    if (child != session.processes().end() && child->second->parent == caller.process->pid &&
        !child->second->reaped && child->second->ended && holds_unreaped_thread(session, *child->second)) {
      if (!(w->options & WNOHANG)) return WaitOutcome::Held;
      ctx.emulate(nothing_yet(ctx, *w));
      return WaitOutcome::Answered;
    }
  }
  if (tracees.empty()) return WaitOutcome::Kernel;
  for (pid_t tid : tracees) {
    EmulatedTracee* t = emulation.tracee(tid);
    if (!t->unreported) continue;
    int status = *t->unreported;
    if (!(w->waitid && (w->options & WNOWAIT))) {
      t->unreported.reset();
      if (t->dead) emulation.detach(tid);  // reaped
    }
    ctx.emulate(report(ctx, *w, tid, status));
    return WaitOutcome::Answered;
  }
  if (w->options & WNOHANG) {
    // A real child may have something for the kernel to report.
    if (waitable_child(session, caller.process->pid, w->pid, /*ended=*/false)) return WaitOutcome::Kernel;
    ctx.emulate(nothing_yet(ctx, *w));
    return WaitOutcome::Answered;
  }
  if (waitable_child(session, caller.process->pid, w->pid, /*ended=*/true)) return WaitOutcome::Kernel;
  if (waitable_child(session, caller.process->pid, w->pid, false) && deliverable_signals(caller.tid()) != 0) {
    // A signal came for the waiter (a timer's, another process's kill):
    // the kernel runs the wait, which it breaks off at once (EINTR, or
    // restarted after the handler and decided again at its new entry). A
    // wait that names only tracees that are not its children stays held:
    // the kernel would answer ECHILD.
    BS_LOG(Record, "thread " << caller.tid() << ": a signal came for its held wait");
    return WaitOutcome::Kernel;
  }
  return WaitOutcome::Held;
}

namespace recorders {
extern const SyscallRecorder wait{enter_wait, exit_wait};
}  // namespace recorders

}  // namespace backstep
