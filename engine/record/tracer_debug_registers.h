// The debug registers a recorded tracer gives its tracee (PTRACE_POKEUSER
// of DR0-DR3, DR6, DR7: a recorded gdb's `watch`, `rwatch`, `hbreak`).
//
// They are the real thread's: the recorder, its real tracer, writes them
// there, so the kernel validates them as natively and the CPU traps where
// the tracee writes, reads or runs the watched place. That trap
// (SIGTRAP, TRAP_HWBKPT) stops the tracee for its tracer like a single
// step's: it does not come again in replay (no debug register is armed
// there), so the stop needs no event unless its tracer changes the thread
// there (record_tracees.cc). The recorder's own use of DR0 (the one-pass
// probe of a forced position, forced_position.cc) waits while the
// tracer's are armed.
//
// The tracer reads back what it wrote (the tracee's copy in
// EmulatedTracee::debug_regs) and DR6 as the kernel has it (the hits).
// A thread that waits in a blocking call is in no ptrace stop of the
// recorder's: what its tracer writes is kept and set at its next stop.
// When the tracer lets the tracee go (PTRACE_DETACH, or its own end), the
// registers are disarmed (the kernel would leave them armed, and the
// next hit would kill the untraced process with SIGTRAP).
#pragma once

#include <cstdint>

namespace backstep {

struct EmulatedTracee;
struct RecordTask;

namespace tracer_debug {

constexpr int kCount = 8;  // DR0-DR7 (DR4 and DR5 are not there)
constexpr uint64_t kEnableBits = 0xff;  // L0 G0 ... L3 G3

// PTRACE_PEEKUSER of DR`n`: the tracer's copy, DR6 from the real thread
// where it stands in a stop, 0 for DR4 and DR5 (as the kernel answers).
int64_t peek(RecordTask& t, EmulatedTracee& tracee, int n, uint64_t& value);
// PTRACE_POKEUSER of DR`n`: 0, or the kernel's -errno for a value it
// refuses (the copy keeps the old one); -EIO for DR4 and DR5.
int64_t poke(RecordTask& t, EmulatedTracee& tracee, int n, uint64_t value);
// The tracer let the thread go: nothing armed any more.
void disarm(RecordTask& t);
// At each stop of the thread (a real ptrace stop): writes what was kept
// while it waited in the kernel.
void settle(RecordTask& t);
// Its exec: the kernel dropped them (the tracer's copy too, where it is
// traced).
void forget_at_exec(RecordTask& t, EmulatedTracee* tracee);
// A TRAP_HWBKPT of the thread: its tracer's (a slot its DR7 enables hit),
// not the recorder's probe's.
bool tracers_trap(RecordTask& t, const EmulatedTracee* tracee);

}  // namespace tracer_debug
}  // namespace backstep
