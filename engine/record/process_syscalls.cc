// Process-wide state: exit, exec, arch_prctl, rseq, robust lists (prctl:
// prctl_syscalls.cc).
#include <asm/prctl.h>
#include <sys/syscall.h>

#include "engine/record/record_session.h"
#include "engine/record/syscall_context.h"

namespace backstep {
namespace {

// execve(path, argv, envp), execveat(dirfd, path, argv, envp, flags): what
// the process asks to run, read now, while the memory that holds it still
// exists. A successful exec becomes an Exec event at PTRACE_EVENT_EXEC
// (record_processes.cc); a failed one is an ordinary call with its error.
void enter_exec(SyscallContext& ctx) {
  // A successful exec closes the close-on-exec descriptors
  // (descriptor_cache.h); on_exec_event or exit_exec says when it is over.
  ctx.session.descriptors().table_changing(ctx.task.tid());
  RecordTask* t = ctx.session.record_task(ctx.task.tid());
  if (!t) return;
  if (const EmulatedTracee* traced = ctx.session.ptrace_emulation().tracee(t->tid());
      traced && traced->tracer_process == 0) {
    // Natively it would stop for a tracer outside the recording
    // (record_tracees.cc raises the exec's SIGTRAP for one inside).
    ctx.refuse("thread " + std::to_string(t->tid()) + ", which called PTRACE_TRACEME with a parent outside the "
               "recording, calls exec: it would stop for a tracer that is not recorded");
  }
  bool at = ctx.entry.syscallno() == SYS_execveat;
  constexpr std::size_t kMaxArgs = 4096, kMaxLength = 1 << 16;
  t->exec_path = ctx.task.read_c_string(remote_ptr<char>(ctx.arg(at ? 1 : 0)), kMaxLength);
  t->exec_argv.clear();
  uint64_t argv = ctx.arg(at ? 2 : 1);
  for (std::size_t i = 0; argv != 0 && i < kMaxArgs; ++i) {
    uint64_t p = 0;
    if (ctx.task.read_some(remote_ptr<void>(argv + i * 8), &p, 8) != 8 || p == 0) break;
    t->exec_argv.push_back(ctx.task.read_c_string(remote_ptr<char>(p), kMaxLength));
  }
}

// A failed exec: the descriptor table is as it was (a successful one ends
// at PTRACE_EVENT_EXEC, with no exit of its own).
void exit_exec(SyscallContext& ctx) { ctx.session.descriptors().table_changed(ctx.task.tid()); }

// Restartable sequences are aborted by the kernel at preemption points we
// cannot reproduce; refuse them so libc falls back (ENOSYS).
void disable_rseq(SyscallContext& ctx) {
  ctx.entry.set_syscallno(static_cast<uint64_t>(-1));
  ctx.task.set_regs(ctx.entry);
  ctx.entry_rewritten = true;
}

// CPUID faulting is the recorder's (core/cpuid_trap.h, disguise.h): the
// program's ARCH_SET_CPUID only changes what its cpuid instructions do for
// it (answered by the recorder, or a SIGSEGV of its own), so the call does
// not reach the kernel, and ARCH_GET_CPUID answers the program's setting.
// Without faulting, the kernel answers both as it would natively.
void enter_arch_prctl(SyscallContext& ctx) {
  if (ctx.arg(0) == ARCH_SET_CPUID && ctx.session.disguise().cpuid_faulting) {
    ctx.entry.set_syscallno(static_cast<uint64_t>(-1));
    ctx.task.set_regs(ctx.entry);
    ctx.entry_rewritten = true;
  }
}

// What each arch_prctl request does beyond its result (<asm/prctl.h>, as of
// Linux 6.18; numbers spelled out for headers older than some of them).
enum class ArchEffect { None, WritesWord, Unreplayable };
struct ArchRequest {
  uint64_t code;
  ArchEffect effect;
  const char* why;  // Unreplayable: what replay could not rebuild
};
constexpr ArchRequest kArchRequests[] = {
    {0x1003, ArchEffect::WritesWord, nullptr},  // ARCH_GET_FS
    {0x1004, ArchEffect::WritesWord, nullptr},  // ARCH_GET_GS
    {0x1021, ArchEffect::WritesWord, nullptr},  // ARCH_GET_XCOMP_SUPP
    {0x1022, ArchEffect::WritesWord, nullptr},  // ARCH_GET_XCOMP_PERM
    {0x1024, ArchEffect::WritesWord, nullptr},  // ARCH_GET_XCOMP_GUEST_PERM
    {0x4001, ArchEffect::WritesWord, nullptr},  // ARCH_GET_UNTAG_MASK
    {0x4003, ArchEffect::WritesWord, nullptr},  // ARCH_GET_MAX_TAG_BITS
    {0x5005, ArchEffect::WritesWord, nullptr},  // ARCH_SHSTK_STATUS
    {0x2001, ArchEffect::Unreplayable, "ARCH_MAP_VDSO_X32 mapped a vDSO image, which replay cannot map"},
    {0x2002, ArchEffect::Unreplayable, "ARCH_MAP_VDSO_32 mapped a vDSO image, which replay cannot map"},
    {0x2003, ArchEffect::Unreplayable, "ARCH_MAP_VDSO_64 mapped a vDSO image, which replay cannot map"},
    {0x4002, ArchEffect::Unreplayable,
     "ARCH_ENABLE_TAGGED_ADDR made the CPU ignore address bits (LAM), which replay does not set up"},
    {0x5001, ArchEffect::Unreplayable, "ARCH_SHSTK_ENABLE turned on a shadow stack, which replay does not set up"},
};

void exit_arch_prctl(SyscallContext& ctx) {
  for (const ArchRequest& r : kArchRequests) {
    if (r.code != ctx.arg(0)) continue;
    if (r.effect == ArchEffect::WritesWord && !ctx.failed()) ctx.record_memory(ctx.arg(1), 8);
    if (r.effect == ArchEffect::Unreplayable && !ctx.failed()) ctx.refuse_after_call(r.why);
  }
  RecorderDisguise& d = ctx.session.disguise();
  if (!d.cpuid_faulting) {
    // The kernel's own faulting, set for the program: the cpuid sites the
    // recorder patched must fault for it too.
    if (ctx.arg(0) == ARCH_SET_CPUID && !ctx.failed()) d.program_cpuid_faulting = ctx.arg(1) == 0;
    return;
  }
  if (ctx.arg(0) == ARCH_SET_CPUID) {
    d.program_cpuid_faulting = ctx.arg(1) == 0;
    ctx.exit.set_syscall_result(0);
    ctx.task.set_regs(ctx.exit);
  } else if (ctx.arg(0) == ARCH_GET_CPUID) {
    ctx.exit.set_syscall_result(d.program_cpuid_faulting ? 0 : 1);
    ctx.task.set_regs(ctx.exit);
  }
}

void exit_get_robust_list(SyscallContext& ctx) {
  ctx.record_memory(ctx.arg(1), 8);
  ctx.record_memory(ctx.arg(2), 8);
}

}  // namespace

namespace recorders {
extern const SyscallRecorder exec{enter_exec, exit_exec};
extern const SyscallRecorder rseq{disable_rseq, nullptr};
extern const SyscallRecorder arch_prctl{enter_arch_prctl, exit_arch_prctl};
extern const SyscallRecorder get_robust_list{nullptr, exit_get_robust_list};
// exit/exit_group have no exit stop: RecordSession writes their event at
// entry. restart_syscall is recorded as the call it resumes (RecordSession).
extern const SyscallRecorder process_exit{};
extern const SyscallRecorder restart_syscall{};
}  // namespace recorders

}  // namespace backstep
