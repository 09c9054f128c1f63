// prctl: every option of <linux/prctl.h> (as of Linux 6.18), classified by
// what it writes to memory and whether the recording survives it.
//
// Most options read or set an attribute of the calling process that replay
// never consults (its name, dumpable, timer slack, speculation mitigations,
// memory-deny-write-execute...): they run, and their result comes back in
// rax. The GET options that answer through a pointer have their bytes
// recorded. A few options would break the recording itself and stop it
// before they run (see kOptions). An option this table does not know was
// added after it: if the kernel refuses it (EINVAL, the usual case) nothing
// happened and the errno is recorded; if it succeeds, the recording stops,
// since what it wrote is unknown.
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <algorithm>
#include <map>

#include "engine/record/record_session.h"
#include "engine/record/syscall_context.h"

namespace backstep {
namespace {

// Options newer than the build machine's headers.
constexpr int kSetMdwe = 65, kGetMdwe = 66, kSetMemoryMerge = 67, kGetMemoryMerge = 68;
constexpr int kRiscvVSetControl = 69, kRiscvVGetControl = 70, kRiscvSetIcacheFlushCtx = 71;
constexpr int kPpcGetDexcr = 72, kPpcSetDexcr = 73;
constexpr int kGetShadowStackStatus = 74, kSetShadowStackStatus = 75, kLockShadowStackStatus = 76;
constexpr int kTimerCreateRestoreIds = 77, kFutexHash = 78;
constexpr int kGetAuxv = 0x41555856;  // "AUXV"
constexpr int kSchedCoreGet = 0;      // PR_SCHED_CORE sub-command

enum class Effect {
  Result,      // answers in rax, or changes an attribute replay does not use
  IntAtArg2,   // writes an int through arg2
  U64AtArg2,   // writes 8 bytes through arg2
  NameAtArg2,  // writes the 16-byte command name through arg2
  Auxv,        // PR_GET_AUXV: min(result, arg3) bytes at arg2
  SchedCore,   // PR_SCHED_CORE: PR_SCHED_CORE_GET writes a u64 cookie at arg5
  Tsc,         // PR_SET_TSC: see enter_prctl
  SetMm,       // PR_SET_MM: see exit_set_mm
  Refused,
};

struct Option {
  Effect effect;
  const char* why = "";  // for Refused
};

const std::map<int, Option>& options() {
  static const std::map<int, Option> table = {
      {PR_SET_PDEATHSIG, {Effect::Result}}, {PR_GET_PDEATHSIG, {Effect::IntAtArg2}},
      {PR_GET_DUMPABLE, {Effect::Result}}, {PR_SET_DUMPABLE, {Effect::Result}},
      {PR_GET_UNALIGN, {Effect::IntAtArg2}}, {PR_SET_UNALIGN, {Effect::Result}},
      {PR_GET_KEEPCAPS, {Effect::Result}}, {PR_SET_KEEPCAPS, {Effect::Result}},
      {PR_GET_FPEMU, {Effect::IntAtArg2}}, {PR_SET_FPEMU, {Effect::Result}},
      {PR_GET_FPEXC, {Effect::IntAtArg2}}, {PR_SET_FPEXC, {Effect::Result}},
      {PR_GET_TIMING, {Effect::Result}}, {PR_SET_TIMING, {Effect::Result}},
      {PR_SET_NAME, {Effect::Result}}, {PR_GET_NAME, {Effect::NameAtArg2}},
      {PR_GET_ENDIAN, {Effect::IntAtArg2}}, {PR_SET_ENDIAN, {Effect::Result}},
      // As seccomp(2) (process_vm_syscalls.cc): strict mode or a filter of the
      // program's own is real while recording and acts on its later calls
      // before their exit stops; replay performs no calls and needs neither.
      // Any other mode is EINVAL.
      {PR_GET_SECCOMP, {Effect::Result}}, {PR_SET_SECCOMP, {Effect::Result}},
      {PR_CAPBSET_READ, {Effect::Result}}, {PR_CAPBSET_DROP, {Effect::Result}},
      {PR_GET_TSC, {Effect::IntAtArg2}}, {PR_SET_TSC, {Effect::Tsc}},
      {PR_GET_SECUREBITS, {Effect::Result}}, {PR_SET_SECUREBITS, {Effect::Result}},
      {PR_SET_TIMERSLACK, {Effect::Result}}, {PR_GET_TIMERSLACK, {Effect::Result}},
      // Only counters the program itself opened; the recorder's are its own.
      {PR_TASK_PERF_EVENTS_DISABLE, {Effect::Result}}, {PR_TASK_PERF_EVENTS_ENABLE, {Effect::Result}},
      {PR_MCE_KILL, {Effect::Result}}, {PR_MCE_KILL_GET, {Effect::Result}},
      {PR_SET_MM, {Effect::SetMm}},
      {PR_SET_CHILD_SUBREAPER, {Effect::Result}}, {PR_GET_CHILD_SUBREAPER, {Effect::IntAtArg2}},
      {PR_SET_NO_NEW_PRIVS, {Effect::Result}}, {PR_GET_NO_NEW_PRIVS, {Effect::Result}},
      {PR_GET_TID_ADDRESS, {Effect::U64AtArg2}},
      {PR_SET_THP_DISABLE, {Effect::Result}}, {PR_GET_THP_DISABLE, {Effect::Result}},
      {PR_MPX_ENABLE_MANAGEMENT, {Effect::Result}}, {PR_MPX_DISABLE_MANAGEMENT, {Effect::Result}},
      {PR_SET_FP_MODE, {Effect::Result}}, {PR_GET_FP_MODE, {Effect::Result}},
      {PR_CAP_AMBIENT, {Effect::Result}},
      {PR_SVE_SET_VL, {Effect::Result}}, {PR_SVE_GET_VL, {Effect::Result}},
      {PR_GET_SPECULATION_CTRL, {Effect::Result}}, {PR_SET_SPECULATION_CTRL, {Effect::Result}},
      {PR_PAC_RESET_KEYS, {Effect::Result}},
      {PR_SET_TAGGED_ADDR_CTRL, {Effect::Result}}, {PR_GET_TAGGED_ADDR_CTRL, {Effect::Result}},
      {PR_SET_IO_FLUSHER, {Effect::Result}}, {PR_GET_IO_FLUSHER, {Effect::Result}},
      {PR_SET_SYSCALL_USER_DISPATCH,
       {Effect::Refused, "it turns the program's system calls into SIGSYS before the recorder sees them"}},
      {PR_PAC_SET_ENABLED_KEYS, {Effect::Result}}, {PR_PAC_GET_ENABLED_KEYS, {Effect::Result}},
      {PR_SCHED_CORE, {Effect::SchedCore}},
      {PR_SME_SET_VL, {Effect::Result}}, {PR_SME_GET_VL, {Effect::Result}},
      // Later mmap/mprotect asking for write+execute fail; their results are recorded.
      {kSetMdwe, {Effect::Result}}, {kGetMdwe, {Effect::Result}},
      {kSetMemoryMerge, {Effect::Result}}, {kGetMemoryMerge, {Effect::Result}},
      {kRiscvVSetControl, {Effect::Result}}, {kRiscvVGetControl, {Effect::Result}},
      {kRiscvSetIcacheFlushCtx, {Effect::Result}},
      {kPpcGetDexcr, {Effect::Result}}, {kPpcSetDexcr, {Effect::Result}},
      {kGetShadowStackStatus, {Effect::U64AtArg2}},
      {kSetShadowStackStatus,
       {Effect::Refused, "enabling a shadow stack maps memory the trace does not describe"}},
      {kLockShadowStackStatus, {Effect::Result}},
      // timer_create's ids are recorded from its own output.
      {kTimerCreateRestoreIds, {Effect::Result}}, {kFutexHash, {Effect::Result}},
      {kGetAuxv, {Effect::Auxv}},
      {PR_SET_VMA, {Effect::Result}}, {PR_SET_PTRACER, {Effect::Result}},
  };
  return table;
}

// The kernel takes the option as an int: the upper half of the register is ignored.
const Option* find_option(uint64_t option) {
  auto it = options().find(static_cast<int>(option));
  return it == options().end() ? nullptr : &it->second;
}

// The recorder traps rdtsc (PR_TSC_SIGSEGV on the program) and answers it
// itself, so to the program rdtsc is enabled, as it would be natively.
// PR_SET_TSC is therefore skipped (PR_TSC_ENABLE would leave rdtsc
// unrecorded) and answers 0: PR_TSC_SIGSEGV notes that the thread's rdtsc
// must fault (RecordTask::tsc_faults; the trap then raises the program's
// SIGSEGV, and replay, which traps rdtsc the same way, finds that signal
// there), PR_TSC_ENABLE that it must not. PR_GET_TSC shows that note.
bool skips_set_tsc(const SyscallContext& ctx) {
  return static_cast<int>(ctx.arg(0)) == PR_SET_TSC && (ctx.arg(1) == PR_TSC_ENABLE || ctx.arg(1) == PR_TSC_SIGSEGV);
}

bool tsc_faults(const SyscallContext& ctx) {
  RecordTask* t = ctx.session.record_task(ctx.task.tid());
  return t && t->tsc_faults;
}

void enter_prctl(SyscallContext& ctx) {
  const Option* option = find_option(ctx.arg(0));
  if (!option) return;  // judged at exit, by its result
  if (option->effect == Effect::Refused) {
    ctx.refuse("prctl option " + std::to_string(static_cast<int>(ctx.arg(0))) + " is not supported: " +
               option->why);
  }
  if (static_cast<int>(ctx.arg(0)) == PR_SET_SECCOMP && ctx.arg(1) == SECCOMP_MODE_STRICT) {
    ctx.session.skip_strict(ctx);
  }
  if (option->effect == Effect::Tsc) {
    if (skips_set_tsc(ctx)) {
      ctx.entry.set_syscallno(static_cast<uint64_t>(-1));
      ctx.task.set_regs(ctx.entry);
      ctx.entry_rewritten = true;
    }
  }
}

// PR_SET_MM (CAP_SYS_RESOURCE, or checkpoint/restore): most sub-options
// move the bounds /proc/PID shows (code, data, stack start, arguments,
// environment, auxv, exe), whose reads are recorded like any file's.
// PR_SET_MM_MAP_SIZE writes the size of struct prctl_mm_map. The heap's
// bounds (START_BRK, BRK, and MAP, which sets all) change what later brk
// calls do, which replay performs again: done, they end the recording.
void exit_set_mm(SyscallContext& ctx) {
  switch (ctx.arg(1)) {
    case PR_SET_MM_MAP_SIZE: ctx.record_memory(ctx.arg(2), sizeof(unsigned int)); break;
    case PR_SET_MM_START_BRK:
    case PR_SET_MM_BRK:
    case PR_SET_MM_MAP:
      ctx.refuse_after_call("prctl(PR_SET_MM) moved the heap's bounds, which replay's brk cannot follow");
    default: break;
  }
}

void exit_prctl(SyscallContext& ctx) {
  const Option* option = find_option(ctx.arg(0));
  if (!option) {
    if (ctx.failed()) return;
    ctx.refuse_after_call("prctl option " + std::to_string(static_cast<int>(ctx.arg(0))) +
                          " succeeded, but backstep does not know what it changes or writes");
  }
  if (option->effect == Effect::Tsc && skips_set_tsc(ctx)) {
    if (RecordTask* t = ctx.session.record_task(ctx.task.tid())) {
      t->tsc_faults = ctx.arg(1) == PR_TSC_SIGSEGV;
      ctx.session.publish_tsc_rules(*t);  // its patched reads fault too
    }
    ctx.exit.set_syscallno(SYS_prctl);
    ctx.exit.set_syscall_result(0);
    ctx.task.set_regs(ctx.exit);
    return;
  }
  if (static_cast<int>(ctx.arg(0)) == PR_SET_SECCOMP) {
    if (ctx.entry_rewritten) ctx.session.strict_entered(ctx);
    else ctx.session.program_filter_installed(ctx);
    return;
  }
  if (static_cast<int>(ctx.arg(0)) == PR_GET_SECCOMP) ctx.session.disguise_seccomp_mode(ctx);
  if (ctx.failed()) return;
  switch (option->effect) {
    case Effect::IntAtArg2:
      if (static_cast<int>(ctx.arg(0)) == PR_GET_TSC) {
        // The trap is the recorder's (see skips_set_tsc): show the program's.
        int native = tsc_faults(ctx) ? PR_TSC_SIGSEGV : PR_TSC_ENABLE;
        ctx.task.write_bytes(remote_ptr<void>(ctx.arg(1)), &native, sizeof(native));
      }
      ctx.record_memory(ctx.arg(1), sizeof(int));
      break;
    case Effect::U64AtArg2: ctx.record_memory(ctx.arg(1), 8); break;
    case Effect::NameAtArg2: ctx.record_memory(ctx.arg(1), 16); break;
    case Effect::Auxv:
      ctx.record_memory(ctx.arg(1), std::min(static_cast<uint64_t>(ctx.result()), ctx.arg(2)));
      break;
    case Effect::SchedCore:
      if (ctx.arg(1) == kSchedCoreGet) ctx.record_memory(ctx.arg(4), 8);
      break;
    case Effect::SetMm: exit_set_mm(ctx); break;
    default: break;
  }
}

}  // namespace

namespace recorders {
extern const SyscallRecorder prctl{enter_prctl, exit_prctl};
}  // namespace recorders

}  // namespace backstep
