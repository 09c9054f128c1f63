// 32-bit system calls made by a 64-bit program (`int 0x80`, or `syscall`
// from a 32-bit code segment). The kernel runs them from its i386 table,
// whose numbers mean other calls than the same numbers in the x86-64 table
// (4 is write there, stat here), with the arguments in ebx, ecx, edx, esi,
// edi, ebp. backstep records the few whose effect is exactly that of a
// 64-bit call once the arguments are moved over (the "twin"), and refuses
// every other one rather than mistake it for the 64-bit call of its number.
// A recorded 32-bit call is marked in its trace event (trace-format.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "values/registers.h"

namespace backstep {

// The ABI of a syscall stop, as PTRACE_GET_SYSCALL_INFO reports it
// (<linux/audit.h>), and as a Syscall event's `status` records it: 0 stands
// for x86-64 there, so that events of 64-bit calls stay as they were.
constexpr uint32_t kAuditArchI386 = 0x40000003;  // AUDIT_ARCH_I386

// The x86-64 number of the call that does what 32-bit call `nr32` does, or
// nullopt when backstep does not record that 32-bit call. Only the low 32
// bits count (the kernel reads eax; orig_rax may carry more).
std::optional<long> native_twin(uint64_t nr32);

// The i386 name of 32-bit call `nr32` for messages, or nullptr when this
// file does not know it.
const char* compat_syscall_name(uint64_t nr32);

// The names of the 32-bit calls that have a twin ("exit, read, ..."), for messages.
std::string compat_calls_with_twins();

// `regs` of a 32-bit call that has a twin, as that 64-bit call would have
// them: its number in orig_rax, the arguments (zero-extended from 32 bits,
// as the kernel reads them) in rdi, rsi, rdx, r10, r8, r9. rax, rip and the
// rest are unchanged.
Registers as_native_call(const Registers& regs);

// The entry registers of a recorded Syscall event (its `regs` and `status`)
// as its 64-bit call has them: the event's own for a 64-bit call (status 0),
// as_native_call() of them for a 32-bit one (status kAuditArchI386). nullopt
// when the event has no registers, another status, or a 32-bit call without
// a twin (a damaged or newer trace).
std::optional<Registers> native_call_of(const std::optional<RegBlock>& regs, int64_t status);

}  // namespace backstep
