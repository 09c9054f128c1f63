#include "engine/timeline/diversion.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <x86intrin.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "engine/core/cpuid_trap.h"
#include "engine/core/proc_maps.h"
#include "engine/core/tool_page.h"
#include "engine/core/tsc_sites.h"
#include "engine/core/vsyscall.h"
#include "engine/core/wait_ticker.h"
#include "engine/timeline/diversion_sandbox.h"
#include "preload/preload_interface.h"

namespace backstep {
namespace {

constexpr uint64_t kPageSize = 4096;
// How often a running diversion looks at the client's interrupt.
constexpr std::chrono::milliseconds kPollPeriod{20};

}  // namespace

Diversion::Diversion(std::unique_ptr<ReplaySession> copy, uint32_t pid) : copy_(std::move(copy)), pid_(pid) {
  // Before anything of the program runs here: the kernel's limits on what
  // it may do (the copy's processes die with it if this throws).
  for (Task* t : copy_->space_tasks()) install_sandbox(*t);
  // Every call of the copy reaches the server: a buffer in replay mode
  // would hand the called function the recording's next results.
  for (uint32_t tid : copy_->thread_ids()) {
    uint64_t buffer = copy_->thread_buffer(tid);
    if (buffer == 0) continue;
    uint32_t off = BS_MODE_OFF;
    copy_->thread_task(tid).write_bytes(remote_ptr<void>(buffer + offsetof(bs_buffer_header, mode)), &off,
                                        sizeof(off));
  }
}

Diversion::~Diversion() = default;

void Diversion::note_refused(const std::string& call) {
  if (std::find(refused_.begin(), refused_.end(), call) == refused_.end()) refused_.push_back(call);
}

Task& Diversion::task(uint32_t tid) { return copy_->thread_task(tid); }

Registers Diversion::registers(uint32_t tid) { return task(tid).regs(); }

std::vector<uint8_t> Diversion::xstate(uint32_t tid) { return task(tid).xstate(); }

std::vector<uint8_t> Diversion::siginfo(uint32_t tid) {
  siginfo_t info = task(tid).siginfo();
  std::vector<uint8_t> out(sizeof(info));
  std::memcpy(out.data(), &info, sizeof(info));
  return out;
}

void Diversion::set_registers(uint32_t tid, const Registers& regs, const std::vector<uint8_t>& xstate) {
  Task& t = task(tid);
  t.set_regs(regs);
  if (!xstate.empty()) t.set_xstate(xstate);
  touched_.insert(tid);
}

std::vector<uint8_t> Diversion::read_memory(uint64_t addr, std::size_t len) {
  std::vector<uint8_t> out(len);
  out.resize(copy_->task().read_some(remote_ptr<void>(addr), out.data(), len));
  // resume() takes its int3s out before it returns, so there are none
  // here; hidden all the same, as replay's reads hide them.
  int3s_.hide(addr, out);
  return out;
}

std::size_t Diversion::write_memory(uint64_t addr, const std::vector<uint8_t>& bytes) {
  // Page by page, so that a write running into unmapped memory reports how
  // far it got.
  std::size_t done = 0;
  while (done < bytes.size()) {
    uint64_t at = addr + done;
    std::size_t n = std::min<std::size_t>(bytes.size() - done, kPageSize - at % kPageSize);
    try {
      copy_->task().write_bytes(remote_ptr<void>(at), bytes.data() + done, n);
    } catch (const std::runtime_error&) {
      break;
    }
    done += n;
  }
  return done;
}

bool Diversion::map_client_region(uint64_t addr, int prot, const std::vector<uint8_t>& bytes) {
  if (bytes.empty()) return false;
  // Mapped writable for the bytes, then given the debugger's protection.
  int64_t r = tool_syscall(copy_->task(), SYS_mmap, addr, bytes.size(), PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, static_cast<uint64_t>(-1), 0);
  if (r != static_cast<int64_t>(addr)) {
    if (r >= 0) tool_syscall(copy_->task(), SYS_munmap, static_cast<uint64_t>(r), bytes.size());
    return false;
  }
  if (write_memory(addr, bytes) != bytes.size() ||
      tool_syscall(copy_->task(), SYS_mprotect, addr, bytes.size(), static_cast<uint64_t>(prot)) != 0) {
    tool_syscall(copy_->task(), SYS_munmap, addr, bytes.size());
    return false;
  }
  return true;
}

void Diversion::unmap_client_region(uint64_t addr, uint64_t size) {
  tool_syscall(copy_->task(), SYS_munmap, addr, size);
}

std::vector<MemoryMapping> Diversion::memory_map() {
  std::vector<MemoryMapping> out;
  for (const MapsEntry& e : read_proc_maps(copy_->task().tid())) {
    MemoryMapping m;
    m.start = e.start;
    m.end = e.end;
    out.push_back(std::move(m));
  }
  return out;
}

bool Diversion::emulate_trapped_instruction(Task& t) {
  Registers r = t.regs();
  uint8_t code[3] = {};
  if (t.read_some(remote_ptr<void>(r.ip()), code, sizeof(code)) < 2) return false;
  if (is_cpuid(code, sizeof(code), /*patched=*/true)) {  // under CPUID faulting, or patched
    t.set_regs(emulate_cpuid(t, r, /*hide=*/code[0] == 0x0f));
    return true;
  }
  // Native, or patched by a recorder on a kernel that cannot make rdtsc trap.
  int length = trapped_tsc_length(code, sizeof(code), /*patched=*/true);
  if (length == 0) return false;
  bool rdtscp = length == 3;
  unsigned aux = 0;
  uint64_t tsc = rdtscp ? __rdtscp(&aux) : __rdtsc();
  r.raw().rax = tsc & 0xffffffffu;
  r.raw().rdx = tsc >> 32;
  if (rdtscp) r.raw().rcx = aux;
  r.set_ip(r.ip() + (rdtscp ? 3 : 2));
  t.set_regs(r);
  return true;
}

void Diversion::insert_breakpoints(Task& t, const std::set<uint64_t>& breakpoints) {
  for (uint64_t addr : breakpoints) {
    try {
      int3s_.insert(t, addr);  // an unmapped address is skipped
    } catch (const std::runtime_error&) {
      // A byte that cannot be written: no breakpoint there.
    }
  }
}

void Diversion::remove_breakpoints(Task& t) { int3s_.remove_all(t); }

TargetStop Diversion::resume(uint32_t tid, bool step, int signal, const std::set<uint64_t>& breakpoints,
                             const std::function<bool()>& interrupted) {
  Task& t = task(tid);
  touched_.insert(tid);
  has_run_ = true;
  TargetStop stop;
  stop.tid = static_cast<pid_t>(tid);
  auto wait = [&]() -> WaitStatus {
    WaitTicker ticker(kPollPeriod);
    for (;;) {
      if (std::optional<WaitStatus> ws = t.wait_interruptible()) return *ws;
      if (interrupted && interrupted()) t.request_stop();
    }
  };
  // A breakpoint at the pc was reported (or the user stands on one): step
  // off it before its int3 goes in.
  bool stepping_off = !step && breakpoints.count(t.regs().ip()) != 0;
  // Between a call's entry and its exit; `answer`: the result it gets.
  bool in_call = false;
  std::optional<int64_t> answer;
  int sig = signal;
  // An instruction (or call) completed: true when that ends a step; a step
  // off a breakpoint is over and the run goes on with the breakpoints in.
  auto instruction_done = [&] {
    if (step && !stepping_off) return true;
    stepping_off = false;
    return false;
  };
  for (;;) {
    bool single = (step || stepping_off) && !in_call;
    if (!single && !in_call) insert_breakpoints(t, breakpoints);
    // Single steps stop at a call's entry without running it (SYSEMU): the
    // call is then decided like any other.
    t.resume(single ? ResumeHow::SysemuSingleStep : ResumeHow::Syscall, sig);
    sig = 0;
    WaitStatus ws = wait();
    if (ws.is_gone()) {
      int3s_.forget_all();  // nothing left to take them out of
      ended_ = true;
      stop.kind = ws.kind == WaitStatus::Kind::Exited ? TargetStop::Kind::Exited : TargetStop::Kind::Killed;
      stop.exit_code = ws.exit_code;
      stop.signal = ws.signal;
      return stop;
    }
    remove_breakpoints(t);
    if (ws.is_syscall()) {
      Registers r = t.regs();
      __ptrace_syscall_info info = t.syscall_info();
      if (in_vsyscall_page(r.ip())) {
        // A call through the vsyscall page (engine/core/vsyscall.h): the
        // kernel answers it for real as the thread runs on, with no exit
        // stop to come.
        t.left_kernel();
        continue;
      }
      if (info.op == PTRACE_SYSCALL_INFO_EXIT) {
        in_call = false;
        if (answer) {
          r.set_syscall_result(static_cast<uint64_t>(*answer));
          t.set_regs(r);
          answer.reset();
        }
        if (instruction_done()) break;
        continue;
      }
      DiversionCall call = diversion_call(r, info.arch, {pid_, tid});
      if (call.refused) {
        note_refused(describe_refused_call(r, info.arch));
        refused_fork_ = refused_fork_ || makes_process(r, info.arch);
      }
      if (single) {
        // SYSEMU: the kernel skips the call.
        if (call.action == DiversionCall::Action::Answer) {
          r.set_syscall_result(static_cast<uint64_t>(call.result));
          t.set_regs(r);
          if (instruction_done()) break;
          continue;
        }
        // Back onto the `syscall` instruction, to make the call for real.
        r.set_ip(r.ip() - 2);
        r.set_syscall_result(r.syscallno());
        t.set_regs(r);
        in_call = true;  // the next resume runs only to the call's entry
        continue;
      }
      if (call.action == DiversionCall::Action::Answer) {
        r.set_syscallno(static_cast<uint64_t>(-1));  // the kernel skips it
        t.set_regs(r);
        answer = call.result;
      }
      in_call = true;
      continue;
    }
    if (ws.kind == WaitStatus::Kind::EventStop) continue;  // nothing it may do makes one; go on
    if (ws.requested) {
      stop.kind = TargetStop::Kind::Interrupted;
      return stop;
    }
    if (ws.signal == SIGSEGV && emulate_trapped_instruction(t)) {
      if (instruction_done()) break;
      continue;
    }
    Registers r = t.regs();
    // A return into a trap on a stack that cannot run code faults at the
    // trap's address before its int3 runs: that is the breakpoint too.
    if ((ws.signal == SIGSEGV || ws.signal == SIGILL) && breakpoints.count(r.ip())) {
      stop.kind = TargetStop::Kind::Breakpoint;
      stop.address = r.ip();
      return stop;
    }
    if (ws.signal == SIGTRAP) {
      if (single) {
        if (instruction_done()) break;
        if (breakpoints.count(r.ip())) {
          stop.kind = TargetStop::Kind::Breakpoint;
          stop.address = r.ip();
          return stop;
        }
        continue;
      }
      if (breakpoints.count(r.ip() - 1)) {
        r.set_ip(r.ip() - 1);
        t.set_regs(r);
        stop.kind = TargetStop::Kind::Breakpoint;
        stop.address = r.ip();
        return stop;
      }
    }
    // The program's own signal (a fault in the called function, its own
    // int3): reported, not delivered; resuming with it delivers it.
    stop.kind = TargetStop::Kind::Signal;
    stop.signal = ws.signal;
    return stop;
  }
  stop.kind = TargetStop::Kind::Step;
  return stop;
}

}  // namespace backstep
