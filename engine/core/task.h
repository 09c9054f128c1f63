// One traced thread: ptrace resume/wait, registers, memory, remote syscalls.
// Record and replay both drive tracees through this class. The few direct
// ptrace(2) calls elsewhere are the replay stub's PTRACE_TRACEME
// (replay_session.cc) and the recorder's PTRACE_GETEVENTMSG and
// PTRACE_LISTEN (record_processes.cc, record_session.cc).
#pragma once

#include <sys/ptrace.h>
#include <signal.h>
#include <sys/types.h>

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "values/registers.h"
#include "engine/core/remote_ptr.h"

namespace backstep {

// The tracee went away (killed, exited) while backstep still needed it.
class TaskGone : public std::runtime_error {
 public:
  explicit TaskGone(const std::string& what) : std::runtime_error(what) {}
};

// SingleBlock: PTRACE_SINGLEBLOCK, steps to the next taken branch where
// the CPU can (single steps where a hypervisor hides its branch trap).
enum class ResumeHow { Continue, Syscall, Sysemu, SingleStep, SysemuSingleStep, SingleBlock };

struct WaitStatus {
  enum class Kind { SyscallStop, SignalStop, EventStop, Exited, Killed };
  Kind kind = Kind::Exited;
  int raw = 0;        // the wait(2) status
  int signal = 0;     // SignalStop: the signal; Killed: the fatal signal
  int event = 0;      // EventStop: PTRACE_EVENT_*
  int exit_code = 0;  // Exited
  // SignalStop: the SIGSTOP that Task::request_stop() sent, not the program's.
  bool requested = false;

  bool is_syscall() const { return kind == Kind::SyscallStop; }
  bool is_signal() const { return kind == Kind::SignalStop; }
  bool is_gone() const { return kind == Kind::Exited || kind == Kind::Killed; }
  std::string describe() const;
};

WaitStatus parse_wait_status(int status);

// A status of some task, from a wait for any of them.
struct TaskStatus {
  pid_t tid = 0;
  WaitStatus status;
};
// waitpid(-1, __WALL): the next status of any traced task (threads and
// processes), or nothing if a signal handler interrupted the wait.
std::optional<TaskStatus> wait_any_interruptible();
// The same without waiting: a status already reported, if any.
std::optional<TaskStatus> poll_any();

class Task {
 public:
  explicit Task(pid_t tid);
  ~Task();
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;

  pid_t tid() const { return tid_; }
  bool alive() const { return alive_; }

  void set_options(long options);
  // The task runs under backstep's seccomp filter (preload/, traced with
  // PTRACE_O_TRACESECCOMP): its system calls reach the tracer as seccomp
  // stops, except those from the tool page's untraced instruction, which
  // run without one. resume(Syscall) from user code is then a PTRACE_CONT,
  // and wait() reports a seccomp stop as the call's entry (a SyscallStop),
  // so that callers see entry and exit stops as without the filter.
  void set_seccomp_syscalls(bool on) { seccomp_syscalls_ = on; }
  // Every status of this task a wait for any task took (wait_any_interruptible,
  // poll_any) passes through here first: it turns a seccomp stop into a
  // syscall stop. False: a stop to pass over (the task was resumed again).
  bool note_status(WaitStatus& ws);
  bool seccomp_syscalls() const { return seccomp_syscalls_; }
  // Under the filter, stop at every call's entry anyway (PTRACE_SYSCALL
  // from user code; the seccomp stop that may follow is passed over).
  void set_syscall_stops(bool on) { syscall_stops_ = on; }
  // Attaches to a process that is not traced yet (PTRACE_SEIZE): unlike
  // PTRACE_TRACEME, this allows interrupt().
  void seize(long options);
  // Stops the running (seized) task at the next instruction boundary: a
  // PTRACE_EVENT_STOP. If it reaches another stop first, the interrupt stays
  // pending and comes after that one.
  void interrupt();
  // The same for a task traced with PTRACE_TRACEME, which PTRACE_INTERRUPT
  // refuses: sends it SIGSTOP (tgkill). wait() reports the stop it causes as
  // a SignalStop with `requested`. If the task stops for another reason
  // first (the race cannot be avoided: it may be stopping already), the
  // SIGSTOP stays pending; it then stops the task before its next
  // instruction after the next resume, and wait() takes that stop itself:
  // it resumes the task again the same way with the signal suppressed. The
  // signal never reaches the program.
  void request_stop();
  // A task-clock sampler (engine/core/time_sampler.h) with cookie `cookie`
  // is armed on this task (0: none now). The kernel's hrtimer may overflow
  // once more between a sample and its stop, and that late SIGTRAP comes
  // at a later resume, before any instruction runs: wait() drops every
  // sampler stop but the armed one's, and resumes the task the same way.
  void expect_time_sample(uint64_t cookie);
  void resume(ResumeHow how, int sig = 0);
  WaitStatus wait();
  // As wait(), but returns nothing when a signal handler interrupted the
  // wait (EINTR), so that the caller can act on what the handler saw.
  std::optional<WaitStatus> wait_interruptible();
  // This task's next status if it has one already (never waits).
  std::optional<WaitStatus> poll_status();
  // A status a wait for any task took for this one, before this task's turn:
  // wait() returns it (oldest first) before asking the kernel again.
  void keep_status(const WaitStatus& ws);
  bool has_kept_status() const { return !kept_.empty(); }
  std::optional<WaitStatus> peek_kept_status() const {
    return kept_.empty() ? std::nullopt : std::optional<WaitStatus>(kept_.front());
  }

  Registers regs();
  void set_regs(const Registers& regs);
  // Writes only r15 .. rip, the registers before cs in the kernel's layout,
  // and leaves cs, eflags, rsp, ss and the segment registers and bases as
  // they are: the kernel checks and writes each of those one by one, which
  // makes a full write several times dearer than a read. For an emulated
  // instruction (rdtsc) that changes rax, rdx, rcx and rip only.
  void set_regs_up_to_ip(const Registers& regs);
  std::vector<uint8_t> xstate();
  void set_xstate(const std::vector<uint8_t>& area);
  siginfo_t siginfo();
  void set_siginfo(const siginfo_t& info);
  // Entry or exit of the syscall the task is stopped in (PTRACE_GET_SYSCALL_INFO).
  __ptrace_syscall_info syscall_info();
  // The seccomp stop the task is in has no exit stop to come (a call
  // through the vsyscall page, engine/core/vsyscall.h).
  void left_kernel() { in_kernel_ = false; }

  // Memory, through /proc/PID/mem. (Re)open after every exec: an old file
  // descriptor refers to the old address space.
  void open_memory();
  // Reads as much as is readable; returns the number of bytes read.
  std::size_t read_some(remote_ptr<void> addr, void* buf, std::size_t len);
  // Reads exactly len bytes or throws.
  void read_bytes(remote_ptr<void> addr, void* buf, std::size_t len);
  std::vector<uint8_t> read_bytes(remote_ptr<void> addr, std::size_t len);
  void write_bytes(remote_ptr<void> addr, const void* buf, std::size_t len);
  template <typename T>
  T read(remote_ptr<T> addr) {
    T value;
    read_bytes(addr, &value, sizeof(T));
    return value;
  }
  std::string read_c_string(remote_ptr<char> addr, std::size_t max = 4096);

  // Runs system call `nr` in the tracee, from the `syscall` instruction at
  // `insn`, and returns its result. The task must be stopped (at any ptrace
  // stop); its registers are restored afterwards. Afterwards the task is at a
  // syscall-exit stop. With `held`, a signal that stops the task on its way
  // to the call (one sent to it meanwhile: the recorder's tracees get real
  // signals) is not delivered: its siginfo is appended to *held, for the
  // caller to deliver later; without, such a stop throws TaskGone.
  int64_t remote_syscall(remote_ptr<void> insn, long nr, std::array<uint64_t, 6> args,
                         std::vector<siginfo_t>* held = nullptr);

  // Debug registers DR0-DR7 (hardware breakpoints and watchpoints).
  uint64_t debug_register(int index);
  void set_debug_register(int index, uint64_t value);

  // Forks the (stopped) task from the `syscall` instruction at `insn`, as a
  // sibling (CLONE_PARENT: backstep reaps it) with no exit signal. The child
  // is traced, stopped, and given the task's registers. Returns its tid.
  pid_t remote_fork(remote_ptr<void> insn);
  // The same with other clone flags (CLONE_VM: a thread of the same address
  // space, for replay's threads and for checkpoints of them).
  pid_t remote_clone(remote_ptr<void> insn, uint64_t flags);

  // Makes the (stopped) task execve `path` with `argv` and an empty
  // environment, from the `syscall` instruction at `insn`; the strings go
  // to `scratch` (at most `scratch_size` bytes). Returns at the exec's
  // PTRACE_EVENT_EXEC stop (the task must be traced with TRACEEXEC), with
  // the new address space's memory open. Throws if the exec fails.
  void remote_exec(remote_ptr<void> insn, remote_ptr<void> scratch, std::size_t scratch_size,
                   const std::string& path, const std::vector<std::string>& argv);

  // SIGKILL and reap. Safe to call twice.
  void kill();
  // The task exited on its own and was reaped by wait().
  void mark_gone() { alive_ = false; }

 private:
  long ptrace_or_throw(int request, void* addr, void* data, const char* what);
  // write_bytes into a shared mapping without PROT_WRITE (task.cc).
  ssize_t write_read_only_shared(uint64_t addr, const uint8_t* in, std::size_t len);
  // Sets up syscall `nr` at `insn` and runs the task to its entry stop.
  void enter_remote_syscall(remote_ptr<void> insn, long nr, const std::array<uint64_t, 6>& args,
                            std::vector<siginfo_t>* held);

  pid_t tid_;
  int mem_fd_ = -1;
  bool alive_ = true;
  std::vector<WaitStatus> kept_;
  ResumeHow last_resume_ = ResumeHow::Continue;
  bool stop_requested_ = false;  // request_stop()'s SIGSTOP not seen yet
  bool stop_stale_ = false;      // ... and the task was resumed since: drop it
  bool sampled_ = false;             // a task-clock sampler was armed here once
  uint64_t time_sample_cookie_ = 0;  // the one armed now, if any
  bool seccomp_syscalls_ = false;
  bool syscall_stops_ = false;
  // seccomp_syscalls_: between a call's entry and its exit (a seccomp stop,
  // or an entry stop the kernel reported because the task was resumed with
  // PTRACE_SYSCALL, and until the exit stop).
  bool in_kernel_ = false;
  // A call a filter of the program's skipped (SECCOMP_RET_TRACE with no
  // tracer for it): its number, put back at its exit stop.
  std::optional<uint64_t> skipped_call_;
  bool translate_seccomp(WaitStatus& ws);
  // At a seccomp stop that follows the call's entry stop: on to its exit.
  void continue_after_seccomp_stop();
  // At a syscall stop: the exit of a call a program's filter skipped shows
  // its number again.
  void note_skipped_call_exit(const WaitStatus& ws);
};

}  // namespace backstep
