// What a function the debugger calls may ask of the kernel, and the
// filter that makes the kernel hold it to that (diversion_sandbox.h).
//
// The copy a function runs in has the replay's memory but none of the
// recording's world, and it runs as the user who serves the replay: any
// call that reaches outside the process (files, other processes, sockets,
// devices, ids, the machine) would act with that user's rights on today's
// machine. So only calls whose effects stay inside the process pass: the
// address space (anonymous memory only; advice that cannot reach a file or
// a physical page), signal masks and handlers, clocks and sleeps, futexes,
// random numbers, ids (the tracer answers them with the recorded ones),
// writes to stdout and stderr (the server's, where the replay echoes the
// program's output), and leaving.
#include "engine/timeline/diversion_sandbox.h"

#include <linux/audit.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>
#include <string>

#include "engine/core/task.h"
#include "engine/core/tool_page.h"

namespace backstep {
namespace {

// What a listed call must also satisfy.
enum class Condition : uint8_t {
  None,
  StandardOutput,    // argument 0 (a descriptor) is 1 or 2
  AnonymousMemory,   // argument 3 (mmap's flags) has MAP_ANONYMOUS
  HarmlessAdvice,    // argument 2 (madvise's advice) is in kAdvice
};

struct Rule {
  long nr;
  Condition when;
};

constexpr std::array kRules = {
    Rule{SYS_brk, Condition::None},
    Rule{SYS_mmap, Condition::AnonymousMemory},
    Rule{SYS_munmap, Condition::None},
    Rule{SYS_mprotect, Condition::None},
    Rule{SYS_mremap, Condition::None},
    Rule{SYS_madvise, Condition::HarmlessAdvice},
    Rule{SYS_rt_sigprocmask, Condition::None},
    Rule{SYS_rt_sigaction, Condition::None},
    Rule{SYS_sigaltstack, Condition::None},
    Rule{SYS_rt_sigreturn, Condition::None},
    Rule{SYS_restart_syscall, Condition::None},
    Rule{SYS_clock_gettime, Condition::None},
    Rule{SYS_clock_getres, Condition::None},
    Rule{SYS_gettimeofday, Condition::None},
    Rule{SYS_time, Condition::None},
    Rule{SYS_nanosleep, Condition::None},
    Rule{SYS_clock_nanosleep, Condition::None},
    Rule{SYS_sched_yield, Condition::None},
    Rule{SYS_getrandom, Condition::None},
    Rule{SYS_futex, Condition::None},
    Rule{SYS_getpid, Condition::None},
    Rule{SYS_gettid, Condition::None},
    Rule{SYS_write, Condition::StandardOutput},
    Rule{SYS_writev, Condition::StandardOutput},
    Rule{SYS_exit, Condition::None},
    Rule{SYS_exit_group, Condition::None},
};

// Advice about the process's own pages. Left out: MADV_REMOVE (punches a
// hole in a shared file), MADV_HWPOISON and MADV_SOFT_OFFLINE (act on the
// machine's physical pages), and whatever a later kernel adds.
constexpr std::array<uint32_t, 10> kAdvice = {MADV_NORMAL,   MADV_RANDOM,    MADV_SEQUENTIAL, MADV_WILLNEED,
                                              MADV_DONTNEED, MADV_FREE,      MADV_HUGEPAGE,   MADV_NOHUGEPAGE,
                                              MADV_DONTDUMP, MADV_DODUMP};

constexpr uint32_t kStdout = 1, kStderr = 2;

uint32_t low(uint64_t v) { return static_cast<uint32_t>(v); }
uint32_t high(uint64_t v) { return static_cast<uint32_t>(v >> 32); }

bool holds(Condition when, const seccomp_data& call) {
  switch (when) {
    case Condition::None:
      return true;
    case Condition::StandardOutput:
      return high(call.args[0]) == 0 && (low(call.args[0]) == kStdout || low(call.args[0]) == kStderr);
    case Condition::AnonymousMemory:
      return (low(call.args[3]) & MAP_ANONYMOUS) != 0;
    case Condition::HarmlessAdvice:
      return high(call.args[2]) == 0 &&
             std::find(kAdvice.begin(), kAdvice.end(), low(call.args[2])) != kAdvice.end();
  }
  return false;
}

// A classic-BPF program with forward jumps to named places, whose offsets
// are filled in once every place is known.
class FilterBuilder {
 public:
  enum Place : int { Next = -1, Allow, Deny, StandardOutput, AnonymousMemory, HarmlessAdvice, kPlaces };

  void load(uint32_t offset) { code_.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offset)); }
  void ret(uint32_t action) { code_.push_back(BPF_STMT(BPF_RET | BPF_K, action)); }
  // if (A <op> k) goto yes; else goto no
  void jump(uint16_t op, uint32_t k, Place yes, Place no) {
    jumps_.push_back({code_.size(), yes, no});
    code_.push_back(BPF_JUMP(BPF_JMP | op | BPF_K, k, 0, 0));
  }
  void go(Place to) {
    jumps_.push_back({code_.size(), to, Next});
    code_.push_back(BPF_STMT(BPF_JMP | BPF_JA, 0));
  }
  void here(Place p) { places_[p] = code_.size(); }

  std::vector<sock_filter> finish() {
    for (const Jump& j : jumps_) {
      sock_filter& insn = code_[j.at];
      if (BPF_OP(insn.code) == BPF_JA) {
        insn.k = offset(j.at, j.yes);
      } else {
        insn.jt = static_cast<uint8_t>(short_offset(j.at, j.yes));
        insn.jf = static_cast<uint8_t>(short_offset(j.at, j.no));
      }
    }
    return code_;
  }

 private:
  struct Jump {
    std::size_t at;
    Place yes, no;
  };
  uint32_t offset(std::size_t from, Place to) const {
    if (to == Next) return 0;
    std::size_t target = places_[to];
    if (target <= from) throw std::logic_error("sandbox filter: a jump backwards");
    return static_cast<uint32_t>(target - from - 1);
  }
  uint32_t short_offset(std::size_t from, Place to) const {
    uint32_t o = offset(from, to);
    if (o > 255) throw std::logic_error("sandbox filter: a conditional jump too far");
    return o;
  }

  std::vector<sock_filter> code_;
  std::vector<Jump> jumps_;
  std::array<std::size_t, kPlaces> places_{};
};

constexpr uint32_t arg_low(int i) { return offsetof(seccomp_data, args) + 8 * i; }
constexpr uint32_t arg_high(int i) { return arg_low(i) + 4; }

}  // namespace

bool sandbox_allows(const seccomp_data& call) {
  if (call.arch != AUDIT_ARCH_X86_64) return false;
  for (const Rule& r : kRules) {
    if (call.nr == r.nr) return holds(r.when, call);
  }
  return false;
}

std::vector<sock_filter> sandbox_filter() {
  using B = FilterBuilder;
  B b;
  // i386 calls (int 0x80) number another table: none passes.
  b.load(offsetof(seccomp_data, arch));
  b.jump(BPF_JEQ, AUDIT_ARCH_X86_64, B::Next, B::Deny);
  // x32 numbers (bit 30 set) match no rule.
  b.load(offsetof(seccomp_data, nr));
  for (const Rule& r : kRules) {
    B::Place to = B::Allow;
    if (r.when == Condition::StandardOutput) to = B::StandardOutput;
    if (r.when == Condition::AnonymousMemory) to = B::AnonymousMemory;
    if (r.when == Condition::HarmlessAdvice) to = B::HarmlessAdvice;
    b.jump(BPF_JEQ, static_cast<uint32_t>(r.nr), to, B::Next);
  }
  b.go(B::Deny);
  // The conditions, then the two verdicts last: classic BPF jumps forward only.
  b.here(B::StandardOutput);
  b.load(arg_high(0));
  b.jump(BPF_JEQ, 0, B::Next, B::Deny);
  b.load(arg_low(0));
  b.jump(BPF_JEQ, kStdout, B::Allow, B::Next);
  b.jump(BPF_JEQ, kStderr, B::Allow, B::Deny);

  b.here(B::AnonymousMemory);
  b.load(arg_low(3));
  b.jump(BPF_JSET, MAP_ANONYMOUS, B::Allow, B::Deny);

  b.here(B::HarmlessAdvice);
  b.load(arg_high(2));
  b.jump(BPF_JEQ, 0, B::Next, B::Deny);
  b.load(arg_low(2));
  for (uint32_t advice : kAdvice) b.jump(BPF_JEQ, advice, B::Allow, B::Next);

  b.here(B::Deny);
  b.ret(SECCOMP_RET_ERRNO | (kSandboxErrno & SECCOMP_RET_DATA));
  b.here(B::Allow);
  b.ret(SECCOMP_RET_ALLOW);
  return b.finish();
}

void install_sandbox(Task& task) {
  std::vector<sock_filter> code = sandbox_filter();
  // struct sock_fprog as the 64-bit kernel reads it, then the program.
  struct RemoteProgram {
    uint16_t len;
    uint8_t pad[6];
    uint64_t filter;
  };
  static_assert(sizeof(RemoteProgram) == sizeof(sock_fprog));
  std::size_t bytes = code.size() * sizeof(sock_filter);
  if (sizeof(RemoteProgram) + bytes > kToolScratchSize) throw std::logic_error("sandbox filter: too long");
  RemoteProgram prog{static_cast<uint16_t>(code.size()), {}, kToolScratch.as_int() + sizeof(RemoteProgram)};
  task.write_bytes(kToolScratch, &prog, sizeof(prog));
  task.write_bytes(remote_ptr<void>(prog.filter), code.data(), bytes);
  auto refused = [&](const std::string& what, int64_t r) {
    std::string why = r < 0 ? strerror(static_cast<int>(-r))
                            : "thread " + std::to_string(r) + " of the process could not take it";
    return std::runtime_error("function calls are refused: the kernel would not " + what +
                              " for the called function's sandbox (" + why + ")");
  };
  int64_t r = tool_syscall(task, SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  if (r != 0) throw refused("set no_new_privs", r);
  r = tool_syscall(task, SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, kToolScratch.as_int());
  if (r != 0) throw refused("install the seccomp filter", r);
}

}  // namespace backstep
