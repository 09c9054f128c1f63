// ptrace between recorded tasks, emulated (issue 34). backstep is the real
// tracer of every recorded task, and the kernel allows one tracer per task,
// so when a recorded program traces another recorded task (LeakSanitizer's
// stop-the-world, a debugger, strace) the recorder plays the kernel's part:
// its ptrace and its waits for tracees never reach the kernel
// (ptrace_syscalls.cc, ptrace_waits.cc); they are answered here from what
// the recorder knows of the tracee, and their results are recorded like any
// call's, so replay needs nothing of its own.
//
// A tracee in an emulated ptrace stop is simply not scheduled
// (record_threads.cc): it sits at the recorder's own stop, or in the
// kernel in a call that, when it returns, leaves it at such a stop.
//
// What is emulated so far: TRACEME, ATTACH and SEIZE of a recorded task of
// another process, INTERRUPT, the stop each makes, the stops a running
// tracee makes at a signal or an exec (record_tracees.cc), system-call
// stops (PTRACE_SYSCALL, GET_SYSCALL_INFO), the event options (fork,
// vfork and its end, clone, exec, exit: what a tracee creates is traced
// too), EXITKILL, SIGCHLD to the tracer, wait4 and waitid (held until a
// stop answers them; a tracee's death is reported to a tracer that is not
// its parent), reading the tracee's registers, extended state, memory and
// siginfo, writes into its memory (POKE*, /proc/PID/mem, process_vm_writev)
// and general registers (SETREGS, POKEUSER), recorded as TraceeChange
// events of the tracee, CONT and DETACH with or without a signal,
// SINGLESTEP without one, KILL, and job control: a traced process's
// group-stop, SIGCONT's notice to a seizing tracer, and LISTEN, each the
// real kernel's own stop of the real thread (record_tracees.cc), and the
// debug registers (tracer_debug_registers.h). A request not emulated yet
// (SYSEMU) ends the recording with a message.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace backstep {

struct RecordTask;
struct SyscallContext;

// What kind of ptrace stop an emulated tracee is in (what
// PTRACE_GET_SYSCALL_INFO says of it). Group: its process's group-stop
// (SIGSTOP, SIGTSTP... delivered), which a seizing tracer sees as a
// PTRACE_EVENT_STOP and any other as a stop with no siginfo.
enum class TraceStop : uint8_t { Signal, SyscallEntry, SyscallExit, Event, Group };

struct EmulatedTracee {
  pid_t tracer = 0;          // the thread that attached
  pid_t tracer_process = 0;  // its process: any of its threads may wait and ask
  bool seized = false;       // PTRACE_SEIZE (INTERRUPT allowed, event stops)
  uint64_t options = 0;      // PTRACE_SETOPTIONS
  // Resumed with PTRACE_SYSCALL: it stops at its next system call's entry
  // and, resumed so again there, at its exit (record_tracees.cc).
  bool syscall_stops = false;
  // In an emulated ptrace stop: the scheduler passes it over, and the
  // requests that need a stopped tracee are answered.
  bool stopped = false;
  // That stop's wait status, until a wait reports it.
  std::optional<int> unreported;
  siginfo_t siginfo{};  // what PTRACE_GETSIGINFO gives at that stop
  TraceStop kind = TraceStop::Signal;
  unsigned long event_message = 0;  // PTRACE_GETEVENTMSG's answer
  // It died: `unreported` is its exit status until a wait reaps it.
  bool dead = false;
  // A group-stop of a task not seized has no siginfo: GETSIGINFO and
  // SETSIGINFO fail with EINVAL, which is how its tracer tells it from a
  // signal's stop.
  bool has_siginfo() const { return seized || kind != TraceStop::Group; }
  // The real thread stands in the kernel's own STOP trap (a group-stop,
  // or SIGCONT's notice), where a real PTRACE_LISTEN can leave it.
  bool real_stop_trap = false;
  // PTRACE_LISTEN: neither stopped for ptrace nor running; the kernel's
  // next STOP trap of the real thread (a group-stop's start or end, an
  // INTERRUPT) stops it again.
  bool listening = false;
  // The debug registers as its tracer wrote them (PTRACE_POKEUSER; DR6
  // as the kernel last showed it): tracer_debug_registers.h.
  uint64_t debug_regs[8] = {};
};

class PtraceEmulation {
 public:
  EmulatedTracee* tracee(pid_t tid);
  // `tid` is in an emulated ptrace stop: it must not run.
  bool holds(pid_t tid) const;
  // `tid` is traced and not stopped: what it meets that a tracer would
  // see (a signal, an exec) cannot be emulated yet.
  bool traced_running(pid_t tid) const;
  EmulatedTracee& attach(pid_t tid, pid_t tracer, pid_t tracer_process, bool seized);
  // Puts a tracee into a stop with this wait status (its low byte 0x7f);
  // it is not listening any more.
  void stop(EmulatedTracee& t, int status, const siginfo_t& info, TraceStop kind = TraceStop::Signal);
  void detach(pid_t tid) { tracees_.erase(tid); }
  // `tid` is gone as a tracer: its tracees are let go (the kernel detaches
  // them), and they run again.
  void forget(pid_t tid);
  // The tasks `tracer` traces.
  std::vector<pid_t> tracees_of(pid_t tracer) const;
  // Traced tasks that died and whose tracer has not reaped them yet (the
  // kernel keeps such a thread as a zombie, and its process's exit is not
  // reported to the parent until it is reaped).
  std::vector<pid_t> unreaped_deaths() const;

  // The tracees of `process` that a wait for `pid` (wait4's meaning: > 0
  // one task, -1 any, 0 or < -1 a process group) may report, in tid order.
  std::vector<pid_t> matching(pid_t process, pid_t pid) const;

 private:
  std::map<pid_t, EmulatedTracee> tracees_;
};

// The siginfo of the kernel's STOP trap (PTRACE_EVENT_STOP: an
// INTERRUPT's, a group-stop's, SIGCONT's notice) of seized task `tid`: it
// comes from the task itself, and carries `sig` (the group's stop signal,
// or SIGTRAP). Its wait status is (si_code << 8) | 0x7f.
siginfo_t stop_trap_siginfo(pid_t tid, int sig);

// What SIGCHLD's and waitid's siginfo say of wait status `status`: a
// ptrace stop (CLD_TRAPPED and its stop code), or a death (CLD_EXITED,
// CLD_KILLED, CLD_DUMPED and its exit status or signal).
void describe_child_status(siginfo_t& info, int status);

// SIGTRAP from a single step (the CPU's trap flag, or the kernel's report
// of a step over a system call or into a signal's handler): it does not come again where replay runs
// the same code, as a fault (int3, a bad access) does.
bool is_step_trap(const siginfo_t& info);

// A wait4 or waitid of `caller` (at its entry, or held there): answered
// from a tracee's stop (the call is emulated), held until something can
// answer it, or left to the kernel (ptrace_waits.cc).
enum class WaitOutcome { Kernel, Answered, Held };
WaitOutcome decide_wait(SyscallContext& ctx, RecordTask& caller);

}  // namespace backstep
