#include "engine/replay/replay_session.h"

#include <sched.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <sstream>

#include "engine/core/cpu_features.h"
#include "engine/core/log.h"
#include "engine/core/signals.h"
#include "engine/core/tool_page.h"
#include "engine/replay/address_space.h"
#include "engine/trace/trace_error.h"

namespace backstep {
namespace {

// The stub process is backstep itself, exec'd under a name that makes main()
// exit at once should it ever run; replay replaces its address space at the
// exec stop, before it executes one instruction.
constexpr const char* kStubArg = "--backstep-replay-stub";

// The kernel's internal restart codes (include/linux/errno.h).
constexpr int64_t kErestartSys = 512;
constexpr int64_t kErestartNoIntr = 513;
constexpr int64_t kErestartNoHand = 514;
constexpr int64_t kErestartRestartblock = 516;

std::string self_exe() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) throw std::runtime_error("cannot find backstep's own executable");
  return std::string(buf, static_cast<size_t>(n));
}

void pin_to_cpu(int wanted) {
  int cpu = wanted >= 0 && wanted < CPU_SETSIZE ? wanted : sched_getcpu();
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof(set), &set) != 0 && wanted >= 0) {
    int here = sched_getcpu();
    CPU_ZERO(&set);
    CPU_SET(here, &set);
    sched_setaffinity(0, sizeof(set), &set);
  }
}

}  // namespace

ReplaySession::ReplaySession(const std::string& trace_dir, ReplayOptions options)
    : reader_(std::make_unique<trace::TraceReader>(trace_dir)), options_(options) {
  std::string mismatch = cpu_feature_mismatch(reader_->header().cpuid, current_cpu_features());
  if (!mismatch.empty()) {
    throw std::runtime_error(
        "this trace was recorded on a CPU with other features, and without CPUID faulting the "
        "program would see this CPU's; replay refused (" + mismatch + ")");
  }
}

ReplaySession::~ReplaySession() = default;

void ReplaySession::diverged(const std::string& what) const {
  throw ReplayDivergence(event_number_, what);
}

void ReplaySession::start(const trace::Event& exec) {
  pin_to_cpu(reader_->header().recorded_cpu);
  std::string exe = self_exe();
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork failed: ") + strerror(errno));
  if (pid == 0) {
    ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
    prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0);
    personality(ADDR_NO_RANDOMIZE);
    raise(SIGSTOP);
    char* argv[] = {const_cast<char*>(exe.c_str()), const_cast<char*>(kStubArg), nullptr};
    char* envp[] = {nullptr};
    execve(exe.c_str(), argv, envp);
    _exit(127);
  }
  Task& task = add_task(pid);
  task_ = &task;
  WaitStatus ws = task.wait();
  if (!ws.is_signal() || ws.signal != SIGSTOP) throw std::runtime_error("replay stub did not start");
  task.set_options(PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC);
  task.resume(ResumeHow::Continue);
  ws = task.wait();
  if (ws.kind != WaitStatus::Kind::EventStop || ws.event != PTRACE_EVENT_EXEC) {
    throw std::runtime_error("replay stub did not exec: " + ws.describe());
  }
  task.open_memory();
  install_tool_page(task);
  rebuild_address_space(task, exec, *reader_);
  brk_ = static_cast<uint64_t>(exec.status);
}

ReplayResult ReplaySession::run_to_end() {
  ReplayResult result;
  std::optional<trace::Event> first = take_event();
  if (!first) throw trace::TraceError(reader_->dir() + "/events: the trace holds no events");
  if (first->kind != trace::EventKind::Exec) {
    throw trace::TraceError(reader_->dir() + "/events: event 0 is " + trace::to_string(first->kind) +
                            ", expected exec");
  }
  start(*first);
  for (;;) {
    event_number_ = next_number_;
    std::optional<trace::Event> event = take_event();
    if (!event) {
      result.end = ReplayResult::End::TraceCutShort;
      result.message = "the trace ends at event " + std::to_string(event_number_) +
                       ": the recording was cut short (was the recorder killed?); replayed up to there";
      break;
    }
    if (event->kind == trace::EventKind::Exit) {
      int status = static_cast<int>(event->status);
      result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      break;
    }
    if (event->kind == trace::EventKind::Abort) {
      result.end = ReplayResult::End::RecordingStopped;
      result.message = "the recording stopped at event " + std::to_string(event_number_) + ": " +
                       event->message;
      break;
    }
    replay_event(*event);
  }
  result.events = event_number_;
  task_->kill();
  return result;
}

void ReplaySession::replay_event(const trace::Event& event) {
  BS_LOG(Replay, "event " << event_number_ << ": " << trace::to_string(event.kind));
  switch (event.kind) {
    case trace::EventKind::Syscall: replay_syscall(event); break;
    case trace::EventKind::Rdtsc: replay_rdtsc(event); break;
    case trace::EventKind::Signal:
    case trace::EventKind::FatalSignal: replay_signal(event); break;
    default:
      diverged(std::string("unexpected ") + trace::to_string(event.kind) + " event");
  }
}

void ReplaySession::run_to_stop() {
  task_->resume(ResumeHow::Sysemu);
  last_stop_ = task_->wait();
  if (last_stop_->is_gone()) diverged("the program ended early: " + last_stop_->describe());
}

void ReplaySession::check_registers(const trace::Event& event) {
  if (!event.regs) diverged("event has no registers");
  std::string diff = Registers::differences(Registers::from_block(*event.regs), task_->regs());
  if (!diff.empty()) diverged(std::string(trace::to_string(event.kind)) + ": registers differ: " + diff);
}

void ReplaySession::expect_syscall_stop(const trace::Event& event) {
  run_to_stop();
  if (!last_stop_->is_syscall()) {
    Registers live = task_->regs();
    std::ostringstream os;
    os << "expected system call " << Registers::from_block(*event.regs).syscallno() << ", got "
       << last_stop_->describe() << " at rip 0x" << std::hex << live.ip();
    diverged(os.str());
  }
}

void ReplaySession::expect_signal_stop(const trace::Event& event, int sig) {
  run_to_stop();
  if (!last_stop_->is_signal() || last_stop_->signal != sig) {
    Registers live = task_->regs();
    std::ostringstream os;
    os << "expected " << strsignal(sig) << " (" << trace::to_string(event.kind) << "), got "
       << last_stop_->describe() << " at rip 0x" << std::hex << live.ip();
    diverged(os.str());
  }
}

void ReplaySession::apply_effects(const trace::Event& event) {
  for (const trace::MemoryWrite& w : event.writes) {
    task_->write_bytes(remote_ptr<void>(w.addr), w.data.data(), w.data.size());
  }
  Registers regs = Registers::from_block(*event.regs);
  regs.apply(event.reg_changes);
  task_->set_regs(regs);
  if (!event.xstate.empty()) task_->set_xstate(event.xstate);
}

void ReplaySession::replay_syscall(const trace::Event& event) {
  expect_syscall_stop(event);
  check_registers(event);
  Registers entry = Registers::from_block(*event.regs);
  long nr = static_cast<long>(entry.syscallno());
  if (nr == SYS_exit || nr == SYS_exit_group) return;  // the Exit event follows
  Registers exit = entry;
  exit.apply(event.reg_changes);
  ReplayMmCall call{*task_, *reader_, event, entry, exit.syscall_result(), brk_};
  std::string problem = replay_address_space_call(call);
  if (!problem.empty()) diverged(problem);
  apply_effects(event);
  echo(event);
  restart_if_interrupted(exit);
}

std::optional<trace::Event> ReplaySession::take_event() {
  std::optional<trace::Event> e;
  if (peeked_) {
    e = std::move(peeked_);
    peeked_.reset();
  } else {
    e = reader_->next();
  }
  next_number_ = reader_->next_event_number() - (peeked_ ? 1 : 0);
  return e;
}

const trace::Event* ReplaySession::peek_event() {
  if (!peeked_) {
    peeked_ = reader_->next();
    if (!peeked_) return nullptr;
  }
  return &*peeked_;
}

void ReplaySession::restart_if_interrupted(const Registers& exit) {
  // A call interrupted by a signal returns a restart code to the kernel's
  // exit path. With a handler to run, the next event is that signal's
  // delivery. Without one (the recorder held back or ignored the signal),
  // the kernel backs up to re-execute the call, or restart_syscall: do what
  // it did, since no signal makes it do so here.
  int64_t r = exit.syscall_result();
  if (r != -kErestartSys && r != -kErestartNoIntr && r != -kErestartNoHand &&
      r != -kErestartRestartblock) {
    return;
  }
  const trace::Event* next = peek_event();
  if (next && (next->kind == trace::EventKind::Signal || next->kind == trace::EventKind::FatalSignal)) {
    return;
  }
  Registers regs = exit;
  regs.set_ip(regs.ip() - 2);
  regs.raw().rax = r == -kErestartRestartblock ? SYS_restart_syscall : regs.syscallno();
  task_->set_regs(regs);
}

void ReplaySession::replay_rdtsc(const trace::Event& event) {
  expect_signal_stop(event, SIGSEGV);
  check_registers(event);
  apply_effects(event);
}

void ReplaySession::replay_signal(const trace::Event& event) {
  siginfo_t info = siginfo_from_bytes(event.siginfo);
  // A fault recurs when replay executes the same instruction; any other
  // signal was delivered right after the previous event, where we are.
  if (is_synchronous_fault(info)) expect_signal_stop(event, info.si_signo);
  check_registers(event);
  if (event.kind == trace::EventKind::FatalSignal) return;  // the Exit event follows
  apply_effects(event);
}

void ReplaySession::echo(const trace::Event& event) {
  if (!options_.echo_stdio || echo_failed_) return;
  for (const trace::StdioEcho& e : event.echoes) {
    const uint8_t* p = e.data.data();
    std::size_t left = e.data.size();
    while (left > 0) {
      ssize_t n = write(e.fd == 2 ? STDERR_FILENO : STDOUT_FILENO, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        echo_failed_ = true;  // our output was closed; keep replaying silently
        return;
      }
      p += n;
      left -= static_cast<std::size_t>(n);
    }
  }
}

}  // namespace backstep
