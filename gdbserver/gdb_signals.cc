#include "gdbserver/gdb_signals.h"

#include <signal.h>

namespace backstep::gdb {
namespace {

// gdb's enum gdb_signal values for the Linux signals 1..31 (0: no such).
constexpr int kLinuxToGdb[32] = {
    0,   // 0
    1,   // SIGHUP
    2,   // SIGINT
    3,   // SIGQUIT
    4,   // SIGILL
    5,   // SIGTRAP
    6,   // SIGABRT
    10,  // SIGBUS
    8,   // SIGFPE
    9,   // SIGKILL
    30,  // SIGUSR1
    11,  // SIGSEGV
    31,  // SIGUSR2
    13,  // SIGPIPE
    14,  // SIGALRM
    15,  // SIGTERM
    0,   // SIGSTKFLT: gdb has none
    20,  // SIGCHLD
    19,  // SIGCONT
    17,  // SIGSTOP
    18,  // SIGTSTP
    21,  // SIGTTIN
    22,  // SIGTTOU
    16,  // SIGURG
    24,  // SIGXCPU
    25,  // SIGXFSZ
    26,  // SIGVTALRM
    27,  // SIGPROF
    28,  // SIGWINCH
    23,  // SIGIO
    32,  // SIGPWR
    12,  // SIGSYS
};

// gdb numbers its real-time signals 33..63 as 45..75, and 32 as 77.
constexpr int kGdbRealtime33 = 45;
constexpr int kGdbRealtime32 = 77;

}  // namespace

int to_gdb_signal(int sig) {
  if (sig > 0 && sig < 32) return kLinuxToGdb[sig];
  if (sig == 32) return kGdbRealtime32;
  if (sig >= 33 && sig <= 63) return kGdbRealtime33 + (sig - 33);
  return 0;
}

int to_linux_signal(int gdb_sig) {
  for (int s = 1; s < 32; ++s) {
    if (kLinuxToGdb[s] == gdb_sig && gdb_sig != 0) return s;
  }
  if (gdb_sig == kGdbRealtime32) return 32;
  if (gdb_sig >= kGdbRealtime33 && gdb_sig <= kGdbRealtime33 + 30) return 33 + (gdb_sig - kGdbRealtime33);
  return 0;
}

}  // namespace backstep::gdb
