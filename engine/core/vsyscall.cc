#include "engine/core/vsyscall.h"

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include <cstddef>
#include <string>

#include "engine/core/seccomp_filter.h"
#include "engine/core/task.h"

namespace backstep {

bool install_vsyscall_filter() {
  constexpr uint32_t page_hi = static_cast<uint32_t>(kVsyscallPage >> 32);
  constexpr uint32_t page_lo = static_cast<uint32_t>(kVsyscallPage);
  sock_filter code[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, instruction_pointer) + 4),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, page_hi, 0, 3),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, instruction_pointer)),
      BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, page_lo, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE | kRecorderTraceData),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog prog{static_cast<unsigned short>(sizeof(code) / sizeof(code[0])), code};
  return load_seccomp_filter(prog);
}

namespace {

// Runs a task stopped in user code at the page's address into the kernel's
// seccomp stop for the call there.
void enter_vsyscall(Task& task) {
  if (task.syscall_info().op == PTRACE_SYSCALL_INFO_SECCOMP) return;
  task.resume(ResumeHow::Continue);
  WaitStatus ws = task.wait();
  if (!ws.is_syscall() || !in_vsyscall_page(task.regs().ip())) {
    throw TaskGone("task " + std::to_string(task.tid()) + ": did not enter its vsyscall: " + ws.describe());
  }
}

// Skips the call at the seccomp stop with `result`, and runs the task to the
// caller's return address, where it stops out of the kernel.
Registers return_to_caller(Task& task, int64_t result, std::vector<siginfo_t>* held) {
  Registers at = task.regs();
  const uint64_t caller = task.read(remote_ptr<uint64_t>(at.sp()));
  at.set_syscallno(static_cast<uint64_t>(-1));
  at.set_syscall_result(static_cast<uint64_t>(result));
  task.set_regs(at);
  uint8_t original = 0;
  task.read_bytes(remote_ptr<void>(caller), &original, 1);
  const uint8_t int3 = 0xcc;
  task.write_bytes(remote_ptr<void>(caller), &int3, 1);
  task.left_kernel();
  // The tracer's own stops that come on the way are asked for again at the
  // caller, where they then stop the task.
  bool interrupted = false, requested = false;
  for (;;) {
    task.resume(ResumeHow::Continue);
    WaitStatus ws = task.wait();
    if (ws.requested) {
      requested = true;  // request_stop()'s SIGSTOP
      continue;
    }
    if (ws.kind == WaitStatus::Kind::EventStop && ws.event == PTRACE_EVENT_STOP && WSTOPSIG(ws.raw) == SIGTRAP) {
      interrupted = true;  // PTRACE_INTERRUPT's stop
      continue;
    }
    if (ws.is_signal() && ws.signal == SIGTRAP && task.regs().ip() == caller + 1) break;
    if (ws.is_signal() && held) {
      // A signal on the way back (a timer's): delivered later by the caller.
      held->push_back(task.siginfo());
      continue;
    }
    if (!ws.is_gone()) task.write_bytes(remote_ptr<void>(caller), &original, 1);
    throw TaskGone("task " + std::to_string(task.tid()) + ": on its way back from a vsyscall: " + ws.describe());
  }
  task.write_bytes(remote_ptr<void>(caller), &original, 1);
  Registers back = task.regs();
  back.set_ip(caller);
  task.set_regs(back);
  if (interrupted) task.interrupt();
  if (requested) task.request_stop();
  return back;
}

}  // namespace

Registers finish_vsyscall(Task& task, int64_t result, std::vector<siginfo_t>* held) {
  if (!in_vsyscall_page(task.regs().ip())) {
    throw TaskGone("task " + std::to_string(task.tid()) + ": not at a vsyscall");
  }
  enter_vsyscall(task);
  return return_to_caller(task, result, held);
}

void back_out_of_vsyscall(Task& task) {
  if (task.syscall_info().op != PTRACE_SYSCALL_INFO_SECCOMP) return;  // out already
  Registers at = task.regs();
  // The kernel's return only moves ip and sp: the return address stays on
  // the stack below the restored sp.
  return_to_caller(task, at.syscall_result(), nullptr);
  task.set_regs(at);
}

}  // namespace backstep
