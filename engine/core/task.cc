#include "engine/core/task.h"

#include <elf.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <optional>
#include <sstream>
#include <utility>

#include "values/log.h"
#include "engine/core/proc_maps.h"
#include "engine/core/seccomp_filter.h"
#include "engine/core/time_sampler.h"
#include "engine/core/tool_page.h"
#include "engine/core/vsyscall.h"

namespace backstep {

std::string WaitStatus::describe() const {
  std::ostringstream os;
  switch (kind) {
    case Kind::SyscallStop: os << "syscall stop"; break;
    case Kind::SignalStop: os << "signal stop (" << strsignal(signal) << ")"; break;
    case Kind::EventStop: os << "ptrace event " << event; break;
    case Kind::Exited: os << "exited with status " << exit_code; break;
    case Kind::Killed: os << "killed by " << strsignal(signal); break;
  }
  return os.str();
}

Task::Task(pid_t tid) : tid_(tid) {}

Task::~Task() {
  if (mem_fd_ >= 0) close(mem_fd_);
  if (alive_) {
    try {
      kill();
    } catch (...) {
    }
  }
}

long Task::ptrace_or_throw(int request, void* addr, void* data, const char* what) {
  errno = 0;
  long r = ptrace(static_cast<__ptrace_request>(request), tid_, addr, data);
  if (r == -1 && errno != 0) {
    std::ostringstream os;
    os << "ptrace(" << what << ") on task " << tid_ << " failed: " << strerror(errno);
    if (errno == ESRCH) throw TaskGone(os.str());
    throw std::runtime_error(os.str());
  }
  return r;
}

void Task::set_options(long options) {
  ptrace_or_throw(PTRACE_SETOPTIONS, nullptr, reinterpret_cast<void*>(options), "SETOPTIONS");
}

void Task::seize(long options) {
  ptrace_or_throw(PTRACE_SEIZE, nullptr, reinterpret_cast<void*>(options), "SEIZE");
}

void Task::interrupt() { ptrace_or_throw(PTRACE_INTERRUPT, nullptr, nullptr, "INTERRUPT"); }

void Task::request_stop() {
  if (stop_requested_) {
    // One is pending already: since the task was resumed, it stops the
    // task before it runs on; now it is wanted.
    stop_stale_ = false;
    return;
  }
  if (syscall(SYS_tgkill, tid_, tid_, SIGSTOP) != 0) {
    if (errno == ESRCH) throw TaskGone("task " + std::to_string(tid_) + " is gone");
    throw std::runtime_error("tgkill(SIGSTOP) on task " + std::to_string(tid_) + " failed: " + strerror(errno));
  }
  stop_requested_ = true;
  stop_stale_ = false;
}

void Task::resume(ResumeHow how, int sig) {
  // A pending stop request that the task did not stop for before this
  // resume comes first now, before any instruction runs: wait() drops it.
  if (stop_requested_) stop_stale_ = true;
  last_resume_ = how;
  int request = PTRACE_CONT;
  const char* what = "CONT";
  switch (how) {
    case ResumeHow::Continue: break;
    case ResumeHow::Syscall:
      if (seccomp_syscalls_ && !in_kernel_ && !syscall_stops_) break;  // the filter stops it at its next call
      request = PTRACE_SYSCALL;
      what = "SYSCALL";
      break;
    case ResumeHow::Sysemu: request = PTRACE_SYSEMU; what = "SYSEMU"; break;
    case ResumeHow::SingleStep: request = PTRACE_SINGLESTEP; what = "SINGLESTEP"; break;
    case ResumeHow::SysemuSingleStep: request = PTRACE_SYSEMU_SINGLESTEP; what = "SYSEMU_SINGLESTEP"; break;
    case ResumeHow::SingleBlock: request = PTRACE_SINGLEBLOCK; what = "SINGLEBLOCK"; break;
  }
  ptrace_or_throw(request, nullptr, reinterpret_cast<void*>(static_cast<long>(sig)), what);
}

WaitStatus Task::wait() {
  for (;;) {
    if (std::optional<WaitStatus> ws = wait_interruptible()) return *ws;
  }
}

WaitStatus parse_wait_status(int status) {
  WaitStatus ws;
  ws.raw = status;
  if (WIFEXITED(status)) {
    ws.kind = WaitStatus::Kind::Exited;
    ws.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    ws.kind = WaitStatus::Kind::Killed;
    ws.signal = WTERMSIG(status);
  } else if (WIFSTOPPED(status)) {
    int sig = WSTOPSIG(status);
    if (sig == (SIGTRAP | 0x80)) {
      ws.kind = WaitStatus::Kind::SyscallStop;
    } else if ((status >> 16) != 0) {
      ws.kind = WaitStatus::Kind::EventStop;
      ws.event = status >> 16;
    } else {
      ws.kind = WaitStatus::Kind::SignalStop;
      ws.signal = sig;
    }
  }
  return ws;
}

std::optional<TaskStatus> wait_any_interruptible() {
  int status = 0;
  pid_t r = waitpid(-1, &status, __WALL);
  if (r < 0 && errno == EINTR) return std::nullopt;
  if (r < 0) throw TaskGone(std::string("waiting for the program's threads failed: ") + strerror(errno));
  TaskStatus ts{r, parse_wait_status(status)};
  BS_LOG(Core, "task " << r << ": " << ts.status.describe());
  return ts;
}

std::optional<TaskStatus> poll_any() {
  int status = 0;
  pid_t r;
  do {
    r = waitpid(-1, &status, __WALL | WNOHANG);
  } while (r < 0 && errno == EINTR);
  if (r <= 0) return std::nullopt;
  TaskStatus ts{r, parse_wait_status(status)};
  BS_LOG(Core, "task " << r << ": " << ts.status.describe());
  return ts;
}

std::optional<WaitStatus> Task::poll_status() {
  int status = 0;
  pid_t r;
  do {
    r = waitpid(tid_, &status, __WALL | WNOHANG);
  } while (r < 0 && errno == EINTR);
  if (r <= 0) return std::nullopt;
  WaitStatus ws = parse_wait_status(status);
  if (ws.is_gone()) alive_ = false;
  if (!note_status(ws)) return poll_status();
  return ws;
}

void Task::keep_status(const WaitStatus& ws) { kept_.push_back(ws); }

void Task::expect_time_sample(uint64_t cookie) {
  if (cookie) sampled_ = true;
  time_sample_cookie_ = cookie;
}

std::optional<WaitStatus> Task::wait_interruptible() {
  WaitStatus ws;
  if (!kept_.empty()) {
    ws = kept_.front();
    kept_.erase(kept_.begin());
  } else {
    int status = 0;
    pid_t r = waitpid(tid_, &status, __WALL);
    if (r < 0 && errno == EINTR) return std::nullopt;
    if (r < 0) {
      alive_ = false;
      throw TaskGone("waitpid on task " + std::to_string(tid_) + " failed: " + strerror(errno));
    }
    ws = parse_wait_status(status);
    BS_LOG(Core, "task " << tid_ << ": " << ws.describe());
    if (!note_status(ws)) return std::nullopt;
    if (stop_requested_ && ws.is_signal() && ws.signal == SIGSTOP) {
      stop_requested_ = false;
      if (!stop_stale_) {
        ws.requested = true;
        return ws;
      }
      // Stopped for something else first, and resumed since: run on as
      // asked, without the signal.
      stop_stale_ = false;
      BS_LOG(Core, "task " << tid_ << ": dropping a late SIGSTOP of request_stop()");
      resume(last_resume_, 0);
      return std::nullopt;
    }
    if (sampled_ && ws.is_signal() && ws.signal == SIGTRAP) {
      uint64_t cookie = TimeSampler::cookie_of(siginfo());
      if (cookie && cookie != time_sample_cookie_) {
        BS_LOG(Core, "task " << tid_ << ": dropping a late task-clock sample");
        resume(last_resume_, 0);
        return std::nullopt;
      }
    }
  }
  if (ws.is_gone()) {
    alive_ = false;
    stop_requested_ = false;
  }
  return ws;
}

bool Task::note_status(WaitStatus& ws) {
  if (seccomp_syscalls_) return translate_seccomp(ws);
  if (ws.kind == WaitStatus::Kind::EventStop && ws.event == PTRACE_EVENT_SECCOMP) {
    // Calls stop at their entry (PTRACE_SYSCALL, PTRACE_SYSEMU): a seccomp
    // stop is a call through the vsyscall page, which has no entry stop
    // (vsyscall.h), or a program filter's SECCOMP_RET_TRACE after the
    // call's entry stop, which goes on to its exit.
    if (!in_vsyscall_page(regs().ip())) {
      continue_after_seccomp_stop();
      return false;
    }
    ws.kind = WaitStatus::Kind::SyscallStop;
  }
  note_skipped_call_exit(ws);
  return true;
}

void Task::continue_after_seccomp_stop() {
  // backstep's own filter's stop, or SECCOMP_RET_TRACE from a filter of
  // the program's. No tracer of the program's asks for those
  // (PTRACE_O_TRACESECCOMP is not emulated), so the kernel's answer is the
  // one it gives without a tracer: the call is skipped and fails with
  // ENOSYS. The recorder, the real tracer, skips it so.
  unsigned long message = 0;
  if (ptrace(PTRACE_GETEVENTMSG, tid_, nullptr, &message) == 0 && (message & SECCOMP_RET_DATA) != kRecorderTraceData) {
    Registers r = regs();
    skipped_call_ = r.syscallno();
    r.set_syscallno(static_cast<uint64_t>(-1));
    r.set_syscall_result(static_cast<uint64_t>(-ENOSYS));
    set_regs(r);
  }
  ptrace_or_throw(PTRACE_SYSCALL, nullptr, nullptr, "SYSCALL");
}

void Task::note_skipped_call_exit(const WaitStatus& ws) {
  if (!skipped_call_) return;
  if (ws.is_gone()) {
    skipped_call_.reset();
    return;
  }
  if (!ws.is_syscall()) return;
  Registers r = regs();
  r.set_syscallno(*std::exchange(skipped_call_, std::nullopt));
  set_regs(r);
}

bool Task::translate_seccomp(WaitStatus& ws) {
  if (ws.kind == WaitStatus::Kind::EventStop && ws.event == PTRACE_EVENT_SECCOMP) {
    if (in_kernel_) {
      // The entry stop of this call came first (the task was resumed with
      // PTRACE_SYSCALL from user code, after an exec, or under a filter of
      // the program's): go on to its exit.
      continue_after_seccomp_stop();
      return false;
    }
    in_kernel_ = true;
    ws.kind = WaitStatus::Kind::SyscallStop;
    return true;
  }
  if (ws.is_syscall()) {
    in_kernel_ = syscall_info().op != PTRACE_SYSCALL_INFO_EXIT;
  } else if (ws.is_gone()) {
    in_kernel_ = false;
  }
  note_skipped_call_exit(ws);
  return true;
}

Registers Task::regs() {
  user_regs_struct r;
  ptrace_or_throw(PTRACE_GETREGS, nullptr, &r, "GETREGS");
  return Registers(r);
}

void Task::set_regs(const Registers& regs) {
  user_regs_struct r = regs.raw();
  ptrace_or_throw(PTRACE_SETREGS, nullptr, &r, "SETREGS");
}

void Task::set_regs_up_to_ip(const Registers& regs) {
  user_regs_struct r = regs.raw();
  // NT_PRSTATUS is user_regs_struct; the kernel writes a prefix of it when
  // given less (the length must be a whole number of registers).
  iovec iov{&r, offsetof(user_regs_struct, cs)};
  static_assert(offsetof(user_regs_struct, cs) == offsetof(user_regs_struct, rip) + sizeof(r.rip));
  ptrace_or_throw(PTRACE_SETREGSET, reinterpret_cast<void*>(NT_PRSTATUS), &iov, "SETREGSET prstatus");
}

std::vector<uint8_t> Task::xstate() {
  std::vector<uint8_t> area(16384);
  iovec iov{area.data(), area.size()};
  ptrace_or_throw(PTRACE_GETREGSET, reinterpret_cast<void*>(NT_X86_XSTATE), &iov, "GETREGSET");
  area.resize(iov.iov_len);
  return area;
}

void Task::set_xstate(const std::vector<uint8_t>& area) {
  std::vector<uint8_t> copy = area;
  iovec iov{copy.data(), copy.size()};
  ptrace_or_throw(PTRACE_SETREGSET, reinterpret_cast<void*>(NT_X86_XSTATE), &iov, "SETREGSET");
}

siginfo_t Task::siginfo() {
  siginfo_t info;
  ptrace_or_throw(PTRACE_GETSIGINFO, nullptr, &info, "GETSIGINFO");
  return info;
}

void Task::set_siginfo(const siginfo_t& info) {
  siginfo_t copy = info;
  ptrace_or_throw(PTRACE_SETSIGINFO, nullptr, &copy, "SETSIGINFO");
}

__ptrace_syscall_info Task::syscall_info() {
  __ptrace_syscall_info info{};
  ptrace_or_throw(PTRACE_GET_SYSCALL_INFO, reinterpret_cast<void*>(sizeof(info)), &info,
                  "GET_SYSCALL_INFO");
  return info;
}

void Task::open_memory() {
  if (mem_fd_ >= 0) close(mem_fd_);
  std::string path = "/proc/" + std::to_string(tid_) + "/mem";
  mem_fd_ = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (mem_fd_ < 0) throw std::runtime_error("cannot open " + path + ": " + strerror(errno));
}

std::size_t Task::read_some(remote_ptr<void> addr, void* buf, std::size_t len) {
  if (mem_fd_ < 0) open_memory();
  std::size_t done = 0;
  auto* out = static_cast<uint8_t*>(buf);
  while (done < len) {
    ssize_t n = pread(mem_fd_, out + done, len - done, static_cast<off_t>(addr.as_int() + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  return done;
}

void Task::read_bytes(remote_ptr<void> addr, void* buf, std::size_t len) {
  std::size_t n = read_some(addr, buf, len);
  if (n != len) {
    std::ostringstream os;
    os << "task " << tid_ << ": cannot read " << len << " bytes at 0x" << std::hex
       << addr.as_int() << std::dec << " (got " << n << ")";
    throw std::runtime_error(os.str());
  }
}

std::vector<uint8_t> Task::read_bytes(remote_ptr<void> addr, std::size_t len) {
  std::vector<uint8_t> out(len);
  read_bytes(addr, out.data(), len);
  return out;
}

// /proc/PID/mem cannot write a shared mapping without PROT_WRITE (the
// kernel only forces writes into private, copy-on-write ones). Such a
// mapping still changes when its file is written, which replay reproduces
// by writing the mapping: make the pages writable for the write, through
// the tool page, then give them their protection back. Returns the bytes
// written, or -1.
ssize_t Task::write_read_only_shared(uint64_t addr, const uint8_t* in, std::size_t len) {
  std::optional<MapsEntry> found;
  for (const MapsEntry& e : read_proc_maps(tid_)) {
    if (addr >= e.start && addr < e.end) found = e;
  }
  if (!found || !found->shared || (found->prot & PROT_WRITE)) return -1;
  uint64_t end = std::min<uint64_t>(addr + len, found->end);
  uint64_t first = addr & ~uint64_t{4095}, last = (end + 4095) & ~uint64_t{4095};
  if (tool_syscall(*this, SYS_mprotect, first, last - first, found->prot | PROT_WRITE) != 0) return -1;
  ssize_t n = pwrite(mem_fd_, in, end - addr, static_cast<off_t>(addr));
  int saved = errno;
  tool_syscall(*this, SYS_mprotect, first, last - first, found->prot);
  errno = saved;
  return n;
}

void Task::write_bytes(remote_ptr<void> addr, const void* buf, std::size_t len) {
  if (mem_fd_ < 0) open_memory();
  std::size_t done = 0;
  const auto* in = static_cast<const uint8_t*>(buf);
  while (done < len) {
    ssize_t n = pwrite(mem_fd_, in + done, len - done, static_cast<off_t>(addr.as_int() + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EIO || errno == EFAULT)) {
      int saved = errno;
      n = write_read_only_shared(addr.as_int() + done, in + done, len - done);
      if (n <= 0) errno = saved;
    }
    if (n <= 0) {
      std::ostringstream os;
      os << "task " << tid_ << ": cannot write " << len << " bytes at 0x" << std::hex
         << addr.as_int() << std::dec << ": " << (n < 0 ? strerror(errno) : "short write");
      throw std::runtime_error(os.str());
    }
    done += static_cast<std::size_t>(n);
  }
}

std::string Task::read_c_string(remote_ptr<char> addr, std::size_t max) {
  std::string out;
  char chunk[256];
  while (out.size() < max) {
    std::size_t n = read_some(addr + static_cast<int64_t>(out.size()), chunk, sizeof(chunk));
    if (n == 0) break;
    for (std::size_t i = 0; i < n; ++i) {
      if (chunk[i] == 0) return out;
      out.push_back(chunk[i]);
    }
  }
  return out;
}

// Signals held back during one remote call at most: a stream of them that
// never lets it in is an error.
constexpr std::size_t kMaxHeldSignals = 64;

void Task::enter_remote_syscall(remote_ptr<void> insn, long nr, const std::array<uint64_t, 6>& args,
                                std::vector<siginfo_t>* held) {
  Registers call = regs();
  call.set_ip(insn.as_int());
  call.raw().rax = static_cast<uint64_t>(nr);
  // No syscall restart logic may apply to the injected call's return path.
  call.set_syscallno(static_cast<uint64_t>(-1));
  for (int i = 0; i < 6; ++i) call.set_arg(i, args[i]);
  set_regs(call);

  // If the task sits at a syscall-entry stop or after an exec event, the
  // kernel first reports the exit of that syscall; skip it.
  for (int stops = 0;; ++stops) {
    BS_ASSERT(stops < 3, "task " << tid_ << ": remote syscall " << nr << " never entered");
    resume(ResumeHow::Syscall);
    WaitStatus ws = wait();
    if (time_sample_cookie_ && ws.is_signal() && ws.signal == SIGTRAP &&
        TimeSampler::cookie_of(siginfo()) == time_sample_cookie_ && stops < 2) {
      // The task clock of a timed run (engine/core/time_sampler.h) ran out
      // in the engine's own call: that stop tells nothing of the program,
      // and is dropped (the run goes on without it).
      BS_LOG(Core, "task " << tid_ << ": a task-clock sample during remote syscall " << nr << ", dropped");
      --stops;
      continue;
    }
    if (held && ws.is_signal() && held->size() < kMaxHeldSignals) {
      // At its signal-delivery stop, before the call: resumed without it.
      held->push_back(siginfo());
      --stops;
      continue;
    }
    if (!ws.is_syscall()) {
      throw TaskGone("task " + std::to_string(tid_) + ": remote syscall " + std::to_string(nr) +
                     " interrupted: " + ws.describe());
    }
    __ptrace_syscall_info info = syscall_info();
    if (info.op == PTRACE_SYSCALL_INFO_ENTRY || info.op == PTRACE_SYSCALL_INFO_SECCOMP) {
      BS_ASSERT(info.entry.nr == static_cast<uint64_t>(nr),
                "task " << tid_ << ": remote syscall entered " << info.entry.nr << ", expected " << nr);
      return;
    }
    // The exit path stored that syscall's result in rax: set ours again.
    set_regs(call);
  }
}

int64_t Task::remote_syscall(remote_ptr<void> insn, long nr, std::array<uint64_t, 6> args,
                             std::vector<siginfo_t>* held) {
  Registers saved = regs();
  enter_remote_syscall(insn, nr, args, held);
  resume(ResumeHow::Syscall);
  WaitStatus ws = wait();
  if (!ws.is_syscall()) {
    throw TaskGone("task " + std::to_string(tid_) + ": remote syscall " + std::to_string(nr) +
                   " did not return: " + ws.describe());
  }
  int64_t result = regs().syscall_result();
  set_regs(saved);
  return result;
}

uint64_t Task::debug_register(int index) {
  errno = 0;
  long v = ptrace(PTRACE_PEEKUSER, tid_, reinterpret_cast<void*>(offsetof(struct user, u_debugreg) + index * 8), nullptr);
  if (v == -1 && errno != 0) {
    throw std::runtime_error("task " + std::to_string(tid_) + ": cannot read DR" + std::to_string(index) + ": " + strerror(errno));
  }
  return static_cast<uint64_t>(v);
}

void Task::set_debug_register(int index, uint64_t value) {
  ptrace_or_throw(PTRACE_POKEUSER, reinterpret_cast<void*>(offsetof(struct user, u_debugreg) + index * 8),
                  reinterpret_cast<void*>(value), "POKEUSER debug register");
}

pid_t Task::remote_fork(remote_ptr<void> insn) { return remote_clone(insn, CLONE_PARENT); }

pid_t Task::remote_clone(remote_ptr<void> insn, uint64_t flags) {
  Registers saved = regs();
  // No new stack: the child never runs before its registers are set. Exit
  // signal 0, so no SIGCHLD anywhere.
  enter_remote_syscall(insn, SYS_clone, {flags, 0, 0, 0, 0, 0}, nullptr);
  resume(ResumeHow::Syscall);
  WaitStatus ws = wait();
  if (ws.kind != WaitStatus::Kind::EventStop || ws.event != PTRACE_EVENT_CLONE) {
    throw std::runtime_error("task " + std::to_string(tid_) + ": remote clone gave " + ws.describe());
  }
  unsigned long child = 0;
  ptrace_or_throw(PTRACE_GETEVENTMSG, nullptr, &child, "GETEVENTMSG");
  resume(ResumeHow::Syscall);
  ws = wait();
  if (!ws.is_syscall()) throw TaskGone("task " + std::to_string(tid_) + ": remote clone did not return: " + ws.describe());
  set_regs(saved);

  pid_t child_tid = static_cast<pid_t>(child);
  int status = 0;
  while (waitpid(child_tid, &status, __WALL) < 0 && errno == EINTR) {
  }
  if (!WIFSTOPPED(status)) throw std::runtime_error("the cloned task did not stop");
  user_regs_struct r = saved.raw();
  if (ptrace(PTRACE_SETREGS, child_tid, nullptr, &r) != 0) {
    throw std::runtime_error("cannot set the cloned task's registers: " + std::string(strerror(errno)));
  }
  return child_tid;
}

void Task::remote_exec(remote_ptr<void> insn, remote_ptr<void> scratch, std::size_t scratch_size,
                       const std::string& path, const std::vector<std::string>& argv) {
  // Layout at `scratch`: the argv array (argv.size() + 1 pointers, the last
  // null, which is also the empty environment), then the strings.
  std::vector<uint8_t> block((argv.size() + 1) * 8);
  std::vector<uint64_t> pointers;
  auto add_string = [&](const std::string& str) {
    uint64_t at = scratch.as_int() + block.size();
    block.insert(block.end(), str.begin(), str.end());
    block.push_back(0);
    return at;
  };
  uint64_t path_at = add_string(path);
  for (const std::string& a : argv) pointers.push_back(add_string(a));
  if (block.size() > scratch_size) throw std::runtime_error("remote exec: the arguments do not fit");
  std::memcpy(block.data(), pointers.data(), pointers.size() * 8);
  write_bytes(scratch, block.data(), block.size());
  uint64_t argv_at = scratch.as_int();
  uint64_t envp_at = argv_at + argv.size() * 8;
  enter_remote_syscall(insn, SYS_execve, {path_at, argv_at, envp_at, 0, 0, 0}, nullptr);
  resume(ResumeHow::Syscall);
  WaitStatus ws = wait();
  if (ws.kind != WaitStatus::Kind::EventStop || ws.event != PTRACE_EVENT_EXEC) {
    std::string why = ws.is_syscall() ? "error " + std::to_string(-regs().syscall_result()) : ws.describe();
    throw std::runtime_error("task " + std::to_string(tid_) + ": remote exec of " + path + " failed: " + why);
  }
  open_memory();
}

void Task::kill() {
  if (!alive_) return;
  ::kill(tid_, SIGKILL);
  int status;
  while (waitpid(tid_, &status, __WALL) == tid_) {
    if (WIFEXITED(status) || WIFSIGNALED(status)) break;
  }
  alive_ = false;
}

}  // namespace backstep
