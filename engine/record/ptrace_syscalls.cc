// ptrace: emulated between recorded tasks (ptrace_emulation.h). Each
// request the emulation knows is answered at the call's entry, from the
// recorder's view of the tracee: the kernel runs no call (a recorded
// program cannot trace another, since backstep traces both), and what the
// answer wrote into the caller's memory is recorded like any call's
// output, so replay applies it as it applies a read(2). A request not
// emulated yet ends the recording at its entry, naming the request: a
// program written to debug, sandbox or test processes must never wait for
// a stop that cannot come.
#include <elf.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "engine/core/compat_syscalls.h"
#include "engine/record/ptrace_call.h"
#include "engine/record/tracer_debug_registers.h"
#include "engine/record/record_session.h"
#include "engine/record/syscall_context.h"

namespace backstep {
namespace {

using namespace ptrace_calls;

// The options the emulation follows: TRACESYSGOOD (system-call stops say
// so), EXITKILL (a tracer's death kills its tracees), and the events of
// fork, vfork (and its end), clone, exec and exit (record_tracees.cc).
// SECCOMP and SUSPEND_SECCOMP would make stops it does not make yet.
constexpr uint64_t kEmulatedOptions = PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL | PTRACE_O_TRACEFORK |
                                      PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC |
                                      PTRACE_O_TRACEEXIT | PTRACE_O_TRACEVFORKDONE;

int64_t check_options(PtraceCall& c, uint64_t options, const char* request) {
  if (options & ~static_cast<uint64_t>(PTRACE_O_MASK)) return -EINVAL;
  if (options & ~kEmulatedOptions) {
    char hex[32];
    std::snprintf(hex, sizeof(hex), "%#llx", static_cast<unsigned long long>(options));
    c.ctx.refuse(std::string("the program called ptrace(") + request + ") with options " + hex +
                 ": PTRACE_O_TRACESECCOMP and PTRACE_O_SUSPEND_SECCOMP are not emulated yet");
  }
  return 0;
}

int64_t attach(PtraceCall& c, bool seize) {
  if (!c.target) {
    if (::kill(c.tid, 0) != 0) return -ESRCH;
    c.ctx.refuse("the program called ptrace(" + std::string(seize ? "PTRACE_SEIZE" : "PTRACE_ATTACH") +
                 ") on task " + std::to_string(c.tid) + ", which is not part of the recording");
  }
  // Its own process, or a task someone traces already: the kernel's EPERM.
  if (c.target->process == c.caller.process || c.session.ptrace_emulation().tracee(c.tid)) return -EPERM;
  if (seize) {
    if (c.addr != 0) return -EIO;
    if (int64_t bad = check_options(c, c.data, "PTRACE_SEIZE")) return bad;
  }
  EmulatedTracee& t =
      c.session.ptrace_emulation().attach(c.tid, c.caller.tid(), c.caller.process->pid, seize);
  t.options = seize ? c.data : 0;
  if (!seize) {
    // The SIGSTOP the kernel sends: the tracee stops at once, for the
    // scheduler, since it runs no user code while the tracer runs.
    siginfo_t info{};
    info.si_signo = SIGSTOP;
    info.si_code = SI_KERNEL;
    c.session.ptrace_emulation().stop(t, (SIGSTOP << 8) | 0x7f, info);
    c.session.notify_tracer(t, c.tid, (SIGSTOP << 8) | 0x7f);
  }
  return 0;
}

int64_t attach_stop(PtraceCall& c) { return attach(c, false); }
int64_t seize(PtraceCall& c) { return attach(c, true); }

int64_t interrupt(PtraceCall& c) {
  if (!c.tracee->seized) return -EIO;
  if (c.tracee->stopped) return 0;
  if (c.tracee->listening) {
    // The real thread is in the kernel's listening state: the kernel's
    // own INTERRUPT traps it again, with the group's stop signal while
    // the group is stopped (record_tracees.cc stops it for its tracer).
    if (long r = kernel_ptrace(PTRACE_INTERRUPT, c.tid, 0, nullptr); r < 0) return r;
    return 0;
  }
  // It runs no user code while its tracer runs: it stops where it stands.
  siginfo_t info = stop_trap_siginfo(c.tid, SIGTRAP);
  int status = (info.si_code << 8) | 0x7f;
  c.session.ptrace_emulation().stop(*c.tracee, status, info, TraceStop::Event);
  c.session.notify_tracer(*c.tracee, c.tid, status, /*job_control=*/true);
  return 0;
}

// PTRACE_LISTEN: only at a STOP trap of a seized tracee. The real thread
// stands in the kernel's own STOP trap (a group-stop, SIGCONT's notice),
// and the kernel listens for it: its next STOP trap (the group-stop's end
// or start, an INTERRUPT) comes to the recorder like any stop of a thread
// in the kernel, and stops it for its tracer again (record_tracees.cc).
int64_t listen(PtraceCall& c) {
  if (!c.tracee->seized || (c.tracee->siginfo.si_code >> 8) != PTRACE_EVENT_STOP) return -EIO;
  if (!c.tracee->real_stop_trap) {
    c.ctx.refuse("the program called ptrace(PTRACE_LISTEN) on task " + std::to_string(c.tid) +
                 " at a PTRACE_INTERRUPT stop or a new task's first stop: not emulated yet (only at a "
                 "group-stop or SIGCONT's notice)");
  }
  if (long r = kernel_ptrace(PTRACE_LISTEN, c.tid, 0, nullptr); r < 0) {
    c.ctx.refuse("PTRACE_LISTEN of the real task " + std::to_string(c.tid) + " failed (" +
                 std::to_string(-r) + ")");
  }
  c.tracee->stopped = false;
  c.tracee->listening = true;
  c.tracee->unreported.reset();
  c.target->run = RunState::InKernel;
  return 0;
}

int64_t peek_memory(PtraceCall& c) {
  uint64_t word = 0;
  if (c.target->task.read_some(remote_ptr<void>(c.addr), &word, sizeof(word)) != sizeof(word)) return -EIO;
  return put_result(c, c.data, &word, sizeof(word));
}

int64_t poke_memory(PtraceCall& c) {
  uint64_t word = c.data;
  uint64_t old = 0;
  if (c.target->task.read_some(remote_ptr<void>(c.addr), &old, sizeof(old)) != sizeof(old)) return -EIO;
  before_change(c, "PTRACE_POKEDATA");
  try {
    c.target->task.write_bytes(remote_ptr<void>(c.addr), &word, sizeof(word));
  } catch (const std::exception&) {
    return -EIO;
  }
  std::vector<uint8_t> bytes(sizeof(word));
  std::memcpy(bytes.data(), &word, sizeof(word));
  c.session.record_tracee_change(*c.target, {trace::MemoryWrite{c.addr, std::move(bytes)}}, std::nullopt);
  return 0;
}

int64_t get_siginfo(PtraceCall& c) {
  if (!c.tracee->has_siginfo()) return -EINVAL;
  return put_result(c, c.data, &c.tracee->siginfo, sizeof(siginfo_t));
}

int64_t get_event_message(PtraceCall& c) {
  return put_result(c, c.data, &c.tracee->event_message, sizeof(c.tracee->event_message));
}

int64_t set_options(PtraceCall& c) {
  if (int64_t bad = check_options(c, c.data, "PTRACE_SETOPTIONS")) return bad;
  c.tracee->options = c.data;
  return 0;
}

// The signal a resuming request gives (its data), delivered when the
// tracee runs again (record_tracees.cc): the one it stopped with, with the
// stop's siginfo (as PTRACE_SETSIGINFO may have changed it), or another
// one, as the tracer sent it. False: not a signal.
bool give_signal(PtraceCall& c) {
  if (c.data == 0) return true;
  if (c.data >= NSIG) return false;
  // The kernel passes no signal on from an event stop or a group-stop:
  // only a signal's stop and a system call's deliver one.
  if (c.tracee->kind == TraceStop::Event || c.tracee->kind == TraceStop::Group) return true;
  int sig = static_cast<int>(c.data);
  if (c.target->trace_stop_signal && !c.target->trace_stop_deliverable) {
    // At a single step's stop, inside user code: the signal is delivered
    // where the step left the tracee, a position replay finds by its
    // state, written into the trace first.
    std::string why;
    if (!c.session.before_tracee_change(*c.target, why)) {
      c.ctx.refuse("the program gave signal " + std::to_string(sig) + " to task " + std::to_string(c.tid) +
                   ": " + why + ", where its delivery cannot be replayed yet");
    }
  }
  if (c.target->trace_stop_signal && c.tracee->siginfo.si_signo == sig) {
    c.target->tracer_signal = c.tracee->siginfo;
    return true;
  }
  siginfo_t info{};
  info.si_signo = sig;
  info.si_code = SI_USER;
  info.si_pid = c.caller.process->pid;
  info.si_uid = ::getuid();
  c.target->tracer_signal = info;
  return true;
}

// The tracee runs again, stopping at its system calls or not.
void let_run(PtraceCall& c, bool syscall_stops) {
  if (c.tracee->syscall_stops != syscall_stops) c.session.set_traced_calls(*c.target, syscall_stops);
  c.tracee->syscall_stops = syscall_stops;
  c.tracee->stopped = false;
  c.tracee->unreported.reset();
}

int64_t cont(PtraceCall& c) {
  if (!give_signal(c)) return -EIO;
  let_run(c, false);
  return 0;
}

int64_t syscall_stops(PtraceCall& c) {
  if (!give_signal(c)) return -EIO;
  let_run(c, true);
  return 0;
}

// struct ptrace_syscall_info, as the kernel lays it out; its size for each
// kind of stop is the kernel's answer (it copies what fits).
struct SyscallInfo {
  uint8_t op;
  uint8_t reserved;
  uint16_t flags;
  uint32_t arch;
  uint64_t instruction_pointer;
  uint64_t stack_pointer;
  union {
    struct {
      uint64_t nr;
      uint64_t args[6];
    } entry;
    struct {
      int64_t rval;
      uint8_t is_error;
    } exit;
  };
};
static_assert(offsetof(SyscallInfo, entry) == 24 && sizeof(SyscallInfo) == 80, "struct ptrace_syscall_info");

int64_t get_syscall_info(PtraceCall& c) {
  constexpr uint32_t kAuditArchX86_64 = 0xc000003e;
  std::optional<Registers> regs = tracee_regs(*c.target);
  if (!regs) return -ESRCH;
  SyscallInfo info{};
  info.arch = c.target->in_syscall && c.target->in_syscall->event.status == kAuditArchI386 ? kAuditArchI386
                                                                                              : kAuditArchX86_64;
  info.instruction_pointer = regs->ip();
  info.stack_pointer = regs->sp();
  std::size_t size = offsetof(SyscallInfo, entry);
  if (c.tracee->kind == TraceStop::SyscallEntry) {
    info.op = PTRACE_SYSCALL_INFO_ENTRY;
    info.entry.nr = regs->syscallno();
    for (int i = 0; i < 6; ++i) info.entry.args[i] = regs->arg(i);
    size = sizeof(SyscallInfo);
  } else if (c.tracee->kind == TraceStop::SyscallExit) {
    info.op = PTRACE_SYSCALL_INFO_EXIT;
    info.exit.rval = static_cast<int64_t>(regs->syscall_result());
    info.exit.is_error = info.exit.rval < 0 && info.exit.rval >= -4095;
    size = offsetof(SyscallInfo, exit.is_error) + 1;
  } else {
    info.op = PTRACE_SYSCALL_INFO_NONE;
  }
  std::size_t len = std::min<std::size_t>(size, c.addr);
  if (len && !put(c, c.data, &info, len)) return -EFAULT;
  return static_cast<int64_t>(size);
}

int64_t step(PtraceCall& c, bool block) {
  // With a signal: delivered first; where it has a handler, the step's
  // trap comes at the handler's first instruction (deliver_to_handler).
  if (!give_signal(c)) return -EIO;
  c.target->trace_step = true;
  c.target->trace_block = block;
  let_run(c, false);
  return 0;
}

int64_t single_step(PtraceCall& c) { return step(c, false); }
// The real thread is block-stepped: the CPU finds the branch (where a
// hypervisor hides that trap, each instruction stops, as natively there).
int64_t single_block(PtraceCall& c) { return step(c, true); }

int64_t detach(PtraceCall& c) {
  if (!give_signal(c)) return -EIO;
  if (c.tracee->syscall_stops) c.session.set_traced_calls(*c.target, false);
  if (c.tracee->kind == TraceStop::Group && c.tracee->real_stop_trap) {
    // Let go in a group-stop, it stays stopped, as the kernel keeps it,
    // until SIGCONT: the recorder listens for that (on_group_stop).
    if (kernel_ptrace(PTRACE_LISTEN, c.tid, 0, nullptr) == 0) c.target->run = RunState::InKernel;
  }
  tracer_debug::disarm(*c.target);
  c.session.ptrace_emulation().detach(c.tid);
  return 0;
}

int64_t trace_me(PtraceCall& c) {
  // Its parent becomes its tracer: a process of the recording, or one
  // outside it (the recording's first process), whose stops cannot be
  // emulated (record_tracees.cc ends the recording at the first).
  PtraceEmulation& emulation = c.session.ptrace_emulation();
  pid_t self = c.caller.tid();
  if (emulation.tracee(self)) return -EPERM;
  pid_t parent = c.caller.process->parent;
  emulation.attach(self, parent, parent, false);
  return 0;
}

int64_t kill_tracee(PtraceCall& c) {
  // SIGKILL, as the kernel sends it: the tracee's process dies, and the
  // recorder sees it die like any other.
  ::syscall(SYS_tgkill, c.target->process->pid, c.tid, SIGKILL);
  return 0;
}

enum class Needs { Nothing, Tracee, Stopped };

struct Request {
  long number;
  const char* name;
  Emulate emulate;  // nullptr: not emulated yet, the recording ends at the call
  Needs needs;
};

// <sys/ptrace.h>'s requests on x86-64 (as of Linux 6.18), by number: the
// numbers are the kernel ABI, spelled out for those newer than some headers.
constexpr Request kRequests[] = {
    {0, "PTRACE_TRACEME", trace_me, Needs::Nothing},
    {1, "PTRACE_PEEKTEXT", peek_memory, Needs::Stopped},
    {2, "PTRACE_PEEKDATA", peek_memory, Needs::Stopped},
    {3, "PTRACE_PEEKUSER", peek_user, Needs::Stopped},
    {4, "PTRACE_POKETEXT", poke_memory, Needs::Stopped},
    {5, "PTRACE_POKEDATA", poke_memory, Needs::Stopped},
    {6, "PTRACE_POKEUSER", poke_user, Needs::Stopped},
    {7, "PTRACE_CONT", cont, Needs::Stopped},
    {8, "PTRACE_KILL", kill_tracee, Needs::Tracee},
    {9, "PTRACE_SINGLESTEP", single_step, Needs::Stopped},
    {12, "PTRACE_GETREGS", get_regs, Needs::Stopped},
    {13, "PTRACE_SETREGS", set_regs, Needs::Stopped},
    {14, "PTRACE_GETFPREGS", get_fpregs, Needs::Stopped},
    {15, "PTRACE_SETFPREGS", set_fpregs, Needs::Stopped},
    {16, "PTRACE_ATTACH", attach_stop, Needs::Nothing},
    {17, "PTRACE_DETACH", detach, Needs::Stopped},
    {18, "PTRACE_GETFPXREGS", fpx_regs, Needs::Stopped},
    {19, "PTRACE_SETFPXREGS", fpx_regs, Needs::Stopped},
    {24, "PTRACE_SYSCALL", syscall_stops, Needs::Stopped},
    {25, "PTRACE_GET_THREAD_AREA", get_thread_area, Needs::Stopped},
    {26, "PTRACE_SET_THREAD_AREA", nullptr, Needs::Stopped},
    {30, "PTRACE_ARCH_PRCTL", arch_prctl, Needs::Stopped},
    {31, "PTRACE_SYSEMU", nullptr, Needs::Stopped},
    {32, "PTRACE_SYSEMU_SINGLESTEP", nullptr, Needs::Stopped},
    {33, "PTRACE_SINGLEBLOCK", single_block, Needs::Stopped},
    {0x4200, "PTRACE_SETOPTIONS", set_options, Needs::Stopped},
    {0x4201, "PTRACE_GETEVENTMSG", get_event_message, Needs::Stopped},
    {0x4202, "PTRACE_GETSIGINFO", get_siginfo, Needs::Stopped},
    {0x4203, "PTRACE_SETSIGINFO", set_siginfo, Needs::Stopped},
    {0x4204, "PTRACE_GETREGSET", get_regset, Needs::Stopped},
    {0x4205, "PTRACE_SETREGSET", set_regset, Needs::Stopped},
    {0x4206, "PTRACE_SEIZE", seize, Needs::Nothing},
    {0x4207, "PTRACE_INTERRUPT", interrupt, Needs::Tracee},
    {0x4208, "PTRACE_LISTEN", listen, Needs::Stopped},
    {0x4209, "PTRACE_PEEKSIGINFO", peek_siginfo, Needs::Stopped},
    {0x420a, "PTRACE_GETSIGMASK", get_sigmask, Needs::Stopped},
    {0x420b, "PTRACE_SETSIGMASK", set_sigmask, Needs::Stopped},
    {0x420c, "PTRACE_SECCOMP_GET_FILTER", seccomp_get_filter, Needs::Stopped},
    {0x420d, "PTRACE_SECCOMP_GET_METADATA", seccomp_get_metadata, Needs::Stopped},
    {0x420e, "PTRACE_GET_SYSCALL_INFO", get_syscall_info, Needs::Stopped},
    {0x420f, "PTRACE_GET_RSEQ_CONFIGURATION", get_rseq_configuration, Needs::Stopped},
    {0x4210, "PTRACE_SET_SYSCALL_USER_DISPATCH_CONFIG", nullptr, Needs::Stopped},
    {0x4211, "PTRACE_GET_SYSCALL_USER_DISPATCH_CONFIG", nullptr, Needs::Stopped},
};
static_assert(PTRACE_TRACEME == 0 && PTRACE_ATTACH == 16 && PTRACE_SEIZE == 0x4206 && PTRACE_LISTEN == 0x4208 &&
                  PTRACE_GETREGSET == 0x4204 && PTRACE_INTERRUPT == 0x4207,
              "the kernel's ptrace request numbers");

const Request* find_request(uint64_t number) {
  for (const Request& r : kRequests) {
    if (static_cast<uint64_t>(r.number) == number) return &r;
  }
  return nullptr;
}

int64_t answer(PtraceCall& c, const Request& r) {
  if (r.needs != Needs::Nothing) {
    // Whatever the request, a task the caller does not trace is "no such
    // process", as is one not in a stop for requests that need one.
    if (!c.tracee || !c.target) return -ESRCH;
    if (r.needs == Needs::Stopped && !c.tracee->stopped) return -ESRCH;
  }
  return r.emulate(c);
}

void enter_ptrace(SyscallContext& ctx) {
  RecordSession& session = ctx.session;
  RecordTask* caller = session.record_task(ctx.task.tid());
  if (!caller || !caller->process) ctx.refuse("ptrace from a task the recorder does not know");
  const Request* r = find_request(ctx.arg(0));
  if (!r) {
    ctx.emulate(-EIO);  // a request the kernel does not know either
    return;
  }
  if (!r->emulate) {
    ctx.refuse(std::string("the program called ptrace(") + r->name + "): not emulated yet for a recorded program");
  }
  session.settle_other_threads(*caller);
  pid_t tid = static_cast<pid_t>(ctx.arg(1));
  RecordTask* target = session.record_task(tid);
  if (target && target->run == RunState::Gone) target = nullptr;
  PtraceCall c{ctx, session, *caller, tid, ctx.arg(2), ctx.arg(3), target, nullptr};
  if (EmulatedTracee* t = session.ptrace_emulation().tracee(tid); t && t->tracer_process == caller->process->pid) {
    c.tracee = t;
  }
  ctx.emulate(answer(c, *r));
  session.wake_tracers();  // a detach may leave a held wait with no tracee
}

}  // namespace

namespace recorders {
extern const SyscallRecorder ptrace{enter_ptrace, nullptr};
}  // namespace recorders

}  // namespace backstep
