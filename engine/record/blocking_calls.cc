#include "engine/record/blocking_calls.h"

#include <linux/futex.h>
#include <sys/syscall.h>

#include "engine/core/syscalls/syscall_table.h"

namespace backstep {

// The spec says which calls may wait (`blocks`, engine/core/syscalls/
// syscalls.spec): reads and writes (pipes, sockets, terminals wait; regular
// files return at once, at the cost of a switch), waits for events, time,
// children, signals and IPC, opens (of a FIFO), and some operations of
// futex and fcntl.
bool may_block(const Registers& entry) {
  const sys::SyscallInfo* info = sys::lookup(static_cast<long>(entry.syscallno()));
  if (!info || !info->blocks) return false;
  const sys::OpSet& ops = info->blocking_ops;
  return ops.arg < 0 || ops.contains(entry.arg(ops.arg));
}

// Not a column of the spec: which futex operations write the futex word as
// they start to wait is a fact of futex alone, and the recorder's answer to
// it (pi_lock_waits) is futex's own too.
bool blocks_on_pi_futex(const Registers& entry) {
  if (static_cast<long>(entry.syscallno()) != SYS_futex) return false;
  int op = static_cast<int>(entry.arg(1)) & FUTEX_CMD_MASK;
  return op == FUTEX_LOCK_PI || op == FUTEX_LOCK_PI2;
}

}  // namespace backstep
