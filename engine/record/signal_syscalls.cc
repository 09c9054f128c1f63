// Signal dispositions and masks (old values written back) and sigreturn,
// which restores the whole register and FPU state from the signal frame.
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "engine/record/record_session.h"

#include "engine/record/syscall_context.h"

namespace backstep {
namespace {

constexpr uint64_t kSigactionHead = 24;  // handler, flags, restorer; then the mask

void exit_rt_sigaction(SyscallContext& ctx) {
  if (!ctx.failed() && ctx.arg(3) <= 128) ctx.record_memory(ctx.arg(2), kSigactionHead + ctx.arg(3));
  if (!ctx.failed() && ctx.arg(0) == SIGCHLD && ctx.arg(1) != 0) {
    // Whether the stops of its tracees send it SIGCHLD (record_tracees.cc).
    uint64_t flags = 0;
    RecordTask* t = ctx.session.record_task(ctx.task.tid());
    if (t && t->process && ctx.task.read_some(remote_ptr<void>(ctx.arg(1) + 8), &flags, 8) == 8) {
      t->process->sigchld_nocldstop = (flags & SA_NOCLDSTOP) != 0;
    }
  }
}

// kill(2) aimed at a set of processes that holds the recorder: the
// program's process group (which is the recorder's), every process (-1), or
// the program's parent. The recorder blocks the signal for itself while the
// call runs (recorder_signals.h), so that kill(0, SIGABRT) hits the program
// and the rest of its group, as without backstep, but not the recorder.
bool targets_recorder(pid_t program, pid_t target) {
  if (target == -1 || target == getpid()) return true;
  if (target == 0) return getpgid(program) == getpgrp();
  return target < -1 && -target == getpgrp();
}

void enter_kill(SyscallContext& ctx) {
  int sig = static_cast<int>(ctx.arg(1));
  if (sig != 0 && targets_recorder(ctx.task.tid(), static_cast<pid_t>(ctx.arg(0)))) {
    ctx.session.recorder_signals().shield(sig);
  }
}

void exit_kill(SyscallContext& ctx) { ctx.session.recorder_signals().unshield(ctx.task.tid()); }

// The process a pidfd of the program's refers to ("Pid:" in its fdinfo), or
// 0 if the descriptor is not a pidfd.
pid_t pidfd_target(pid_t program, int fd) {
  std::ifstream info("/proc/" + std::to_string(program) + "/fdinfo/" + std::to_string(fd));
  std::string line;
  while (std::getline(info, line)) {
    if (line.rfind("Pid:", 0) == 0) return static_cast<pid_t>(std::strtol(line.c_str() + 4, nullptr, 10));
  }
  return 0;
}

// pidfd_send_signal to a pidfd of the recorder (its parent) is kill(2) to
// the parent: shielded the same way.
void enter_pidfd_send_signal(SyscallContext& ctx) {
  int sig = static_cast<int>(ctx.arg(1));
  if (sig != 0 && pidfd_target(ctx.task.tid(), static_cast<int>(ctx.arg(0))) == getpid()) {
    ctx.session.recorder_signals().shield(sig);
  }
}

void exit_rt_sigreturn(SyscallContext& ctx) { ctx.event.xstate = ctx.task.xstate(); }

}  // namespace

namespace recorders {
extern const SyscallRecorder kill{enter_kill, exit_kill};
extern const SyscallRecorder pidfd_send_signal{enter_pidfd_send_signal, exit_kill};
extern const SyscallRecorder rt_sigaction{nullptr, exit_rt_sigaction};
extern const SyscallRecorder rt_sigreturn{nullptr, exit_rt_sigreturn};
}  // namespace recorders

}  // namespace backstep
