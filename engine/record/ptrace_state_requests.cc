// ptrace requests that read or change a stopped tracee's registers, its
// extended (FPU, SSE, AVX) state and its signal state, for the emulation
// (ptrace_syscalls.cc has the table). Reads are answered from the
// recorder's view of the tracee and recorded as the call's output. A change
// is made at once, since the tracer may read it back, and recorded as a
// TraceeChange event of the tracee (its registers, or its whole XSAVE area),
// which replay applies where the tracee stands; the stop's position goes
// into the trace first (before_change).
//
// Where the kernel checks what a tracer writes (MXCSR's reserved bits, an
// XSAVE header), the kernel itself makes the change in the real tracee,
// which the recorder holds in a ptrace stop: its answer is the native one.
#include <asm/prctl.h>
#include <elf.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "engine/core/signals.h"
#include "engine/record/ptrace_call.h"
#include "engine/record/tracer_debug_registers.h"
#include "engine/record/record_session.h"

namespace backstep {
namespace ptrace_calls {
namespace {

constexpr std::size_t kFxsaveSize = 512;  // user_fpregs_struct, the XSAVE area's legacy part
constexpr uint64_t kDebugRegsAt = offsetof(struct user, u_debugreg);
constexpr uint64_t kDebugRegsEnd = kDebugRegsAt + 8 * sizeof(uint64_t);
// The highest address a thread's FS or GS base may have (the kernel's
// TASK_SIZE_MAX with 4-level page tables).
constexpr uint64_t kTaskSizeMax = (uint64_t{1} << 47) - 4096;
// arch_prctl codes that only read (address masking, shadow stacks), asked
// of the kernel for the real tracee.
#ifndef ARCH_GET_UNTAG_MASK
#define ARCH_GET_UNTAG_MASK 0x4001
#endif
#ifndef ARCH_GET_MAX_TAG_BITS
#define ARCH_GET_MAX_TAG_BITS 0x4003
#endif
#ifndef ARCH_SHSTK_STATUS
#define ARCH_SHSTK_STATUS 0x5005
#endif

// Its extended state (XSAVE layout, as NT_X86_XSTATE gives it). For a
// thread waiting in the kernel, the state it entered the call with, kept
// where it was traced then; otherwise none (the request fails, EINVAL).
std::optional<std::vector<uint8_t>> tracee_xstate(RecordTask& t) {
  if (t.run == RunState::InKernel) {
    if (!t.in_syscall || t.in_syscall->xstate_at_entry.empty()) return std::nullopt;
    return t.in_syscall->xstate_at_entry;
  }
  try {
    return t.task.xstate();
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// New registers for the tracee, as PTRACE_SETREGS, SETREGSET, POKEUSER and
// ARCH_PRCTL give them; the kernel's checks on segment selectors are not
// repeated: a selector the tracer changes is refused.
int64_t set_tracee_regs(PtraceCall& c, const user_regs_struct& wanted, const char* request) {
  refuse_in_kernel(c, request);
  std::optional<Registers> now = tracee_regs(*c.target);
  if (!now) return -ESRCH;
  const user_regs_struct& cur = now->raw();
  if (wanted.cs != cur.cs || wanted.ss != cur.ss || wanted.ds != cur.ds || wanted.es != cur.es ||
      wanted.fs != cur.fs || wanted.gs != cur.gs) {
    c.ctx.refuse(std::string("the program called ptrace(") + request +
                 ") changing a segment selector: not emulated yet");
  }
  before_change(c, request);
  Registers regs = *now;
  regs.raw() = wanted;
  try {
    c.target->task.set_regs(regs);
  } catch (const std::exception&) {
    return -EIO;
  }
  c.session.record_tracee_change(*c.target, {}, c.target->task.regs());
  return 0;
}

// The kernel writes the tracer's FPU or XSAVE bytes into the real tracee
// (`write`, a ptrace call, -1 and errno on failure); the area it leaves
// goes into the trace.
template <typename Write>
int64_t kernel_sets_xstate(PtraceCall& c, const char* request, Write write) {
  refuse_in_kernel(c, request);
  errno = 0;
  if (write() < 0) return -errno;
  before_change(c, request);
  c.session.record_tracee_change(*c.target, {}, std::nullopt, c.target->task.xstate());
  return 0;
}

int64_t put_iov_len(PtraceCall& c, uint64_t len) {
  return put_result(c, c.data + offsetof(iovec, iov_len), &len, sizeof(len));
}

}  // namespace

long kernel_ptrace(long request, pid_t tid, uint64_t addr, void* data) {
  errno = 0;
  long r = ::ptrace(static_cast<__ptrace_request>(request), tid, addr, data);
  return r < 0 ? -errno : r;
}

void refuse_in_kernel(PtraceCall& c, const char* request) {
  if (c.target->run != RunState::InKernel) return;
  c.ctx.refuse(std::string("the program called ptrace(") + request + ") on thread " + std::to_string(c.tid) +
               ", which waits in a blocking call: not emulated yet");
}

bool put(PtraceCall& c, uint64_t addr, const void* bytes, std::size_t len) {
  if (!c.ctx.write_output(addr, bytes, len)) return false;
  c.ctx.record_memory(addr, len);
  return true;
}

int64_t put_result(PtraceCall& c, uint64_t addr, const void* bytes, std::size_t len) {
  return put(c, addr, bytes, len) ? 0 : -EFAULT;
}

// A thread at one of the recorder's stops has its own registers. One
// waiting in the kernel (a call that blocks) shows the call interrupted, as
// the kernel shows a call the stop's signal broke off (-ERESTARTSYS,
// restarted when it runs again); here the call goes on waiting, unseen,
// since no user code runs meanwhile.
std::optional<Registers> tracee_regs(RecordTask& t) {
  constexpr int64_t kErestartsys = 512;
  if (t.run == RunState::InKernel) {
    if (!t.in_syscall || !t.in_syscall->event.regs) return std::nullopt;
    Registers r = Registers::from_block(*t.in_syscall->event.regs);
    r.set_syscall_result(static_cast<uint64_t>(-kErestartsys));
    return r;
  }
  try {
    return t.task.regs();
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void before_change(PtraceCall& c, const char* request) {
  std::string why;
  if (!c.session.before_tracee_change(*c.target, why)) {
    c.ctx.refuse(std::string("the program called ptrace(") + request + "): " + why +
                 ", where its change cannot be replayed yet");
  }
}

int64_t peek_user(PtraceCall& c) {
  // struct user: the registers first; the debug registers
  // (tracer_debug_registers.h); the rest reads as 0.
  if (c.addr % sizeof(uint64_t) != 0 || c.addr >= sizeof(struct user)) return -EIO;
  uint64_t word = 0;
  if (c.addr >= kDebugRegsAt && c.addr < kDebugRegsEnd) {
    int n = static_cast<int>((c.addr - kDebugRegsAt) / sizeof(uint64_t));
    if (int64_t r = tracer_debug::peek(*c.target, *c.tracee, n, word); r < 0) return r;
  } else if (c.addr < sizeof(user_regs_struct)) {
    std::optional<Registers> regs = tracee_regs(*c.target);
    if (!regs) return -ESRCH;
    std::memcpy(&word, reinterpret_cast<const uint8_t*>(&regs->raw()) + c.addr, sizeof(word));
  }
  return put_result(c, c.data, &word, sizeof(word));
}

int64_t poke_user(PtraceCall& c) {
  if (c.addr % sizeof(uint64_t) != 0 || c.addr >= sizeof(struct user)) return -EIO;
  if (c.addr >= kDebugRegsAt && c.addr < kDebugRegsEnd) {
    int n = static_cast<int>((c.addr - kDebugRegsAt) / sizeof(uint64_t));
    return tracer_debug::poke(*c.target, *c.tracee, n, c.data);
  }
  if (c.addr >= sizeof(user_regs_struct)) return 0;  // the rest of struct user: the kernel ignores it
  std::optional<Registers> now = tracee_regs(*c.target);
  if (!now) return -ESRCH;
  user_regs_struct wanted = now->raw();
  std::memcpy(reinterpret_cast<uint8_t*>(&wanted) + c.addr, &c.data, sizeof(c.data));
  return set_tracee_regs(c, wanted, "PTRACE_POKEUSER");
}

int64_t get_regs(PtraceCall& c) {
  std::optional<Registers> regs = tracee_regs(*c.target);
  if (!regs) return -ESRCH;
  return put_result(c, c.data, &regs->raw(), sizeof(user_regs_struct));
}

int64_t set_regs(PtraceCall& c) {
  user_regs_struct wanted{};
  if (c.ctx.task.read_some(remote_ptr<void>(c.data), &wanted, sizeof(wanted)) != sizeof(wanted)) return -EFAULT;
  return set_tracee_regs(c, wanted, "PTRACE_SETREGS");
}

int64_t get_fpregs(PtraceCall& c) {
  std::optional<std::vector<uint8_t>> xstate = tracee_xstate(*c.target);
  if (!xstate || xstate->size() < kFxsaveSize) return -EINVAL;
  return put_result(c, c.data, xstate->data(), kFxsaveSize);
}

int64_t set_fpregs(PtraceCall& c) {
  std::vector<uint8_t> area(kFxsaveSize);
  if (c.ctx.task.read_some(remote_ptr<void>(c.data), area.data(), area.size()) != area.size()) return -EFAULT;
  pid_t tid = c.target->task.tid();
  return kernel_sets_xstate(c, "PTRACE_SETFPREGS", [&] { return ::ptrace(PTRACE_SETFPREGS, tid, nullptr, area.data()); });
}

int64_t get_regset(PtraceCall& c) {
  iovec io{};
  if (c.ctx.task.read_some(remote_ptr<void>(c.data), &io, sizeof(io)) != sizeof(io)) return -EFAULT;
  std::vector<uint8_t> bytes;
  if (c.addr == NT_PRSTATUS) {
    std::optional<Registers> regs = tracee_regs(*c.target);
    if (!regs) return -ESRCH;
    const auto* raw = reinterpret_cast<const uint8_t*>(&regs->raw());
    bytes.assign(raw, raw + sizeof(user_regs_struct));
  } else if (c.addr == NT_PRFPREG || c.addr == NT_X86_XSTATE) {
    std::optional<std::vector<uint8_t>> xstate = tracee_xstate(*c.target);
    if (!xstate || xstate->size() < kFxsaveSize) return -EINVAL;
    bytes = std::move(*xstate);
    if (c.addr == NT_PRFPREG) bytes.resize(kFxsaveSize);
  } else {
    return -EINVAL;
  }
  // The kernel copies what fits and says how much in iov_len.
  std::size_t len = std::min<std::size_t>(bytes.size(), io.iov_len);
  if (len && !put(c, reinterpret_cast<uint64_t>(io.iov_base), bytes.data(), len)) return -EFAULT;
  return put_iov_len(c, len);
}

int64_t set_regset(PtraceCall& c) {
  iovec io{};
  if (c.ctx.task.read_some(remote_ptr<void>(c.data), &io, sizeof(io)) != sizeof(io)) return -EFAULT;
  const auto base = reinterpret_cast<uint64_t>(io.iov_base);
  if (c.addr == NT_PRSTATUS) {
    // The kernel takes whole words from the start, as many as are given.
    if (io.iov_len % sizeof(uint64_t) != 0) return -EINVAL;
    std::optional<Registers> now = tracee_regs(*c.target);
    if (!now) return -ESRCH;
    user_regs_struct wanted = now->raw();
    std::size_t len = std::min<std::size_t>(io.iov_len, sizeof(wanted));
    if (c.ctx.task.read_some(remote_ptr<void>(base), &wanted, len) != len) return -EFAULT;
    if (int64_t bad = set_tracee_regs(c, wanted, "PTRACE_SETREGSET")) return bad;
    return put_iov_len(c, len);
  }
  if (c.addr != NT_PRFPREG && c.addr != NT_X86_XSTATE) return -EINVAL;
  refuse_in_kernel(c, "PTRACE_SETREGSET");
  // At most what the kernel takes: the legacy area, or its XSAVE size.
  std::optional<std::vector<uint8_t>> xstate = tracee_xstate(*c.target);
  if (!xstate) return -ESRCH;
  std::size_t most = c.addr == NT_PRFPREG ? kFxsaveSize : xstate->size();
  std::vector<uint8_t> bytes(std::min<std::size_t>(io.iov_len, most));
  if (c.ctx.task.read_some(remote_ptr<void>(base), bytes.data(), bytes.size()) != bytes.size()) return -EFAULT;
  iovec mine{bytes.data(), bytes.size()};
  pid_t tid = c.target->task.tid();
  uint64_t type = c.addr;
  if (int64_t bad = kernel_sets_xstate(c, "PTRACE_SETREGSET",
                                       [&] { return ::ptrace(PTRACE_SETREGSET, tid, type, &mine); })) {
    return bad;
  }
  return put_iov_len(c, mine.iov_len);
}

int64_t fpx_regs(PtraceCall&) {
  return -EIO;  // 32-bit tracers' requests: a 64-bit one gets the kernel's EIO
}

int64_t arch_prctl(PtraceCall& c) {
  // ptrace(PTRACE_ARCH_PRCTL, pid, addr, code): arch_prctl's arguments the
  // other way round, for the tracee.
  std::optional<Registers> now = tracee_regs(*c.target);
  if (!now) return -ESRCH;
  user_regs_struct regs = now->raw();
  switch (c.data) {
    case ARCH_GET_FS: return put_result(c, c.addr, &regs.fs_base, sizeof(regs.fs_base));
    case ARCH_GET_GS: return put_result(c, c.addr, &regs.gs_base, sizeof(regs.gs_base));
    case ARCH_SET_FS:
    case ARCH_SET_GS:
      if (c.addr >= kTaskSizeMax) return -EPERM;
      (c.data == ARCH_SET_FS ? regs.fs_base : regs.gs_base) = c.addr;
      return set_tracee_regs(c, regs, "PTRACE_ARCH_PRCTL");
    case ARCH_GET_UNTAG_MASK:
    case ARCH_GET_MAX_TAG_BITS:
    case ARCH_SHSTK_STATUS: {
      refuse_in_kernel(c, "PTRACE_ARCH_PRCTL");
      uint64_t value = 0;
      if (long r = kernel_ptrace(PTRACE_ARCH_PRCTL, c.target->task.tid(), reinterpret_cast<uint64_t>(&value),
                                 reinterpret_cast<void*>(c.data));
          r < 0) {
        return r;
      }
      return put_result(c, c.addr, &value, sizeof(value));
    }
    default:
      // Address masking and shadow stacks change only for the thread itself
      // (EINVAL through ptrace); other codes are unknown.
      return -EINVAL;
  }
}

int64_t get_thread_area(PtraceCall& c) {
  refuse_in_kernel(c, "PTRACE_GET_THREAD_AREA");
  uint32_t desc[4] = {};  // struct user_desc
  if (long r = kernel_ptrace(PTRACE_GET_THREAD_AREA, c.target->task.tid(), c.addr, desc); r < 0) return r;
  return put_result(c, c.data, desc, sizeof(desc));
}

int64_t get_sigmask(PtraceCall& c) {
  constexpr uint64_t kSigsetSize = 8;  // the kernel's sigset_t
  if (c.addr != kSigsetSize) return -EINVAL;
  uint64_t mask = 0;
  if (c.target->run == RunState::InKernel) {
    // Waiting in a blocking call, in no ptrace stop of the recorder's: the
    // mask the kernel would give is the thread's blocked set, which /proc
    // shows (the call's temporary mask, in sigsuspend or ppoll, as the
    // kernel's answer would be).
    mask = proc_status_mask(c.target->task.tid(), "SigBlk");
  } else if (long r = kernel_ptrace(PTRACE_GETSIGMASK, c.target->task.tid(), kSigsetSize, &mask); r < 0) {
    return r;
  }
  return put_result(c, c.data, &mask, sizeof(mask));
}

int64_t set_sigmask(PtraceCall& c) {
  constexpr uint64_t kSigsetSize = 8;
  if (c.addr != kSigsetSize) return -EINVAL;
  uint64_t mask = 0;
  if (c.ctx.task.read_some(remote_ptr<void>(c.data), &mask, sizeof(mask)) != sizeof(mask)) return -EFAULT;
  refuse_in_kernel(c, "PTRACE_SETSIGMASK");
  // The kernel changes the real tracee's mask (leaving SIGKILL and SIGSTOP
  // out): which signals it takes from then on is recorded as they come.
  long r = kernel_ptrace(PTRACE_SETSIGMASK, c.target->task.tid(), kSigsetSize, &mask);
  return r < 0 ? r : 0;
}

int64_t peek_siginfo(PtraceCall& c) {
  struct PeekArgs {
    uint64_t off;
    uint32_t flags;
    int32_t nr;
  } args{};
  if (c.ctx.task.read_some(remote_ptr<void>(c.addr), &args, sizeof(args)) != sizeof(args)) return -EFAULT;
  // The signals pending for the real tracee, in the thread's queue or (with
  // PTRACE_PEEKSIGINFO_SHARED) the process's, as the kernel lists them.
  // Not among them: a signal the recorder holds back until the thread's
  // next event boundary (record_signals.cc), which natively would have
  // been delivered already.
  constexpr int32_t kMostAtOnce = 4096;
  std::vector<siginfo_t> infos(static_cast<std::size_t>(std::clamp(args.nr, 0, kMostAtOnce)));
  args.nr = static_cast<int32_t>(infos.size());
  refuse_in_kernel(c, "PTRACE_PEEKSIGINFO");
  long n = kernel_ptrace(PTRACE_PEEKSIGINFO, c.target->task.tid(), reinterpret_cast<uint64_t>(&args), infos.data());
  if (n < 0) return n;
  if (n > 0 && !put(c, c.data, infos.data(), static_cast<std::size_t>(n) * sizeof(siginfo_t))) return -EFAULT;
  return n;
}

int64_t set_siginfo(PtraceCall& c) {
  // What GETSIGINFO reads from now on, and what is delivered when the
  // tracer resumes the tracee with that siginfo's signal (give_signal).
  if (!c.tracee->has_siginfo()) return -EINVAL;
  siginfo_t info{};
  if (c.ctx.task.read_some(remote_ptr<void>(c.data), &info, sizeof(info)) != sizeof(info)) return -EFAULT;
  c.tracee->siginfo = info;
  return 0;
}

}  // namespace ptrace_calls
}  // namespace backstep
