// Signal facts record and replay must agree on.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace backstep {

// A fault raised by the instruction at the stop (SIGSEGV from a bad pointer,
// SIGFPE from a division by zero, ...): it recurs at the same instruction on
// replay, so replay runs to it. Any other signal is delivered at an event
// boundary (right after a syscall or another signal) and replay places it
// there without running.
bool is_synchronous_fault(const siginfo_t& info);

enum class SignalAction { Ignore, Handler, Terminate, Stop };

// What delivering `sig` does in process `pid` now (its handler table from
// /proc/PID/status, and the default actions).
SignalAction signal_action(pid_t pid, int sig);
// Whether process `pid` set `sig` to SIG_IGN itself (not the default
// action's ignoring).
bool signal_ignored(pid_t pid, int sig);

// A mask line of /proc/PID/status, in hex there ("SigBlk", "CapEff"); 0
// where it is absent.
uint64_t proc_status_mask(pid_t pid, const std::string& key);

// The signals pending for thread `tid` (its own and its process's) that it
// does not block: what the kernel delivers as soon as it runs (a bit per
// signal, bit 0 for signal 1).
uint64_t deliverable_signals(pid_t tid);

std::vector<uint8_t> siginfo_bytes(const siginfo_t& info);
siginfo_t siginfo_from_bytes(const std::vector<uint8_t>& bytes);

}  // namespace backstep
