// The debug registers of a recorded tracer's tracee (tracer_debug_registers.h).
#include "engine/record/tracer_debug_registers.h"

#include <sys/ptrace.h>
#include <sys/user.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstddef>
#include <string>

#include "engine/record/ptrace_call.h"
#include "engine/record/ptrace_emulation.h"
#include "engine/record/record_task.h"
#include "values/log.h"

namespace backstep::tracer_debug {
namespace {

constexpr int kStatus = 6, kControl = 7;
constexpr uint64_t kHitBits = 0xf;  // DR6's B0-B3

uint64_t offset_of(int n) { return offsetof(struct user, u_debugreg) + static_cast<uint64_t>(n) * sizeof(uint64_t); }

long kernel_peek(pid_t tid, int n, uint64_t& value) {
  errno = 0;
  long v = ::ptrace(PTRACE_PEEKUSER, tid, offset_of(n), nullptr);
  if (v == -1 && errno != 0) return -errno;
  value = static_cast<uint64_t>(v);
  return 0;
}

long kernel_poke(pid_t tid, int n, uint64_t value) {
  return ptrace_calls::kernel_ptrace(PTRACE_POKEUSER, tid, offset_of(n), reinterpret_cast<void*>(value));
}

std::array<uint64_t, kCount> copy_of(const EmulatedTracee& tracee) {
  std::array<uint64_t, kCount> regs;
  std::copy(std::begin(tracee.debug_regs), std::end(tracee.debug_regs), regs.begin());
  return regs;
}

// In a ptrace stop of the recorder's, where the kernel lets it write them.
bool in_real_stop(const RecordTask& t) { return t.run == RunState::Stopped; }

// The addresses first, then the control (what it enables must point where
// the tracer said; the recorder's probe may have used DR0 meanwhile).
long write_all(RecordTask& t, const std::array<uint64_t, kCount>& regs) {
  pid_t tid = t.task.tid();
  for (int n = 0; n < 4; ++n) {
    if (long r = kernel_poke(tid, n, regs[n]); r < 0) return r;
  }
  if (long r = kernel_poke(tid, kStatus, regs[kStatus]); r < 0) return r;
  if (long r = kernel_poke(tid, kControl, regs[kControl]); r < 0) return r;
  t.debug_armed = (regs[kControl] & kEnableBits) != 0;
  return 0;
}

// Which of DR6's hit bits DR7 enables.
uint64_t enabled_hits(uint64_t dr7) {
  uint64_t mask = 0;
  for (int slot = 0; slot < 4; ++slot) {
    if ((dr7 >> (2 * slot)) & 3) mask |= uint64_t{1} << slot;
  }
  return mask;
}

}  // namespace

int64_t peek(RecordTask& t, EmulatedTracee& tracee, int n, uint64_t& value) {
  if (n == 4 || n == 5) {
    value = 0;  // as the kernel answers (a write is refused: poke())
    return 0;
  }
  if (n == kStatus && in_real_stop(t) && !t.debug_deferred) {
    // The hits the kernel noted since the tracer last wrote it.
    uint64_t real = 0;
    if (kernel_peek(t.task.tid(), kStatus, real) == 0) tracee.debug_regs[kStatus] = real;
  }
  value = tracee.debug_regs[n];
  return 0;
}

int64_t poke(RecordTask& t, EmulatedTracee& tracee, int n, uint64_t value) {
  if (n == 4 || n == 5) return -EIO;
  if (!in_real_stop(t) || t.debug_deferred) {
    // Waiting in the kernel: kept, and written at its next stop (where a
    // value the kernel refuses ends the recording: settle()).
    if (!t.debug_deferred) t.debug_deferred = copy_of(tracee);
    (*t.debug_deferred)[n] = value;
    tracee.debug_regs[n] = value;
    return 0;
  }
  pid_t tid = t.task.tid();
  if (n == kControl && !t.debug_armed) {
    // Nothing armed: the recorder's probe may have used DR0 and DR6, so
    // all of them are written again, the control last.
    std::array<uint64_t, kCount> regs = copy_of(tracee);
    regs[kControl] = value;
    if (long r = write_all(t, regs); r < 0) return r;
  } else if (long r = kernel_poke(tid, n, value); r < 0) {
    return r;
  }
  tracee.debug_regs[n] = value;
  if (n == kControl) {
    t.debug_armed = (value & kEnableBits) != 0;
    BS_LOG(Record, "thread " << tid << ": its tracer " << (t.debug_armed ? "armed" : "disarmed")
                             << " its debug registers (DR7 0x" << std::hex << value << std::dec << ")");
  }
  return 0;
}

void disarm(RecordTask& t) {
  if (!t.debug_armed && !(t.debug_deferred && ((*t.debug_deferred)[kControl] & kEnableBits))) {
    t.debug_deferred.reset();
    return;
  }
  if (in_real_stop(t)) {
    t.debug_deferred.reset();
    if (kernel_poke(t.task.tid(), kControl, 0) == 0) t.debug_armed = false;
    return;
  }
  if (!t.debug_deferred) t.debug_deferred.emplace();
  (*t.debug_deferred)[kControl] = 0;
}

void settle(RecordTask& t) {
  if (!t.debug_deferred) return;
  std::array<uint64_t, kCount> regs = *t.debug_deferred;
  t.debug_deferred.reset();
  if (long r = write_all(t, regs); r < 0 && r != -ESRCH) {
    throw RecordingRefused("the debug registers the tracer of thread " + std::to_string(t.task.tid()) +
                           " wrote while the thread waited in a blocking call were refused by the kernel "
                           "(errno " + std::to_string(-r) + "); such a refusal cannot be given to the tracer "
                           "after the call");
  }
}

void forget_at_exec(RecordTask& t, EmulatedTracee* tracee) {
  t.debug_armed = false;
  t.debug_deferred.reset();
  if (tracee) std::fill(std::begin(tracee->debug_regs), std::end(tracee->debug_regs), 0);
}

bool tracers_trap(RecordTask& t, const EmulatedTracee* tracee) {
  if (!t.debug_armed || !tracee) return false;
  uint64_t dr6 = 0;
  if (kernel_peek(t.task.tid(), kStatus, dr6) < 0) return false;
  return (dr6 & kHitBits & enabled_hits(tracee->debug_regs[kControl])) != 0;
}

}  // namespace backstep::tracer_debug
