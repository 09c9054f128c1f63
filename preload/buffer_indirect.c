/* Record mode: reading what a call's arguments point at before the call,
 * without faulting. readv's iovec array and recvmsg's msghdr say how much
 * the call may write, which the library must reserve first, and a msghdr
 * with ancillary data takes the traced path; but a program may pass a bad
 * pointer, which the kernel answers with EFAULT, where a plain load in the
 * library would crash the program. process_vm_readv on the program's own
 * process reads the memory or fails cleanly, through the untraced
 * instruction (about a microsecond, against two ptrace stops). Replay
 * never calls this: it returns what recording found. */
#define _GNU_SOURCE
#include <sys/syscall.h>

#include "preload/buffer_layout.h"

int bs_safe_read(void *dst, uint64_t src, uint64_t n) {
  if (n == 0) return 1;
  uint64_t local[2] = {(uint64_t)(uintptr_t)dst, n};
  uint64_t remote[2] = {src, n};
  long pid = bs_untraced_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0);
  long got = bs_untraced_syscall(SYS_process_vm_readv, pid, (long)local, 1, (long)remote, 1, 0);
  return got == (long)n;
}

int bs_prepare_indirect(const struct bs_buffered_call *call, const uint64_t *args, struct bs_indirect *ind) {
  uint64_t arg = args[call->indirect_arg];
  uint64_t iov_addr = arg, count = 0;
  if (call->flags & BS_CALL_MSG) {
    if (!bs_safe_read(ind->msg, arg, BS_MSGHDR_SIZE)) return 0;
    /* Ancillary data (descriptors passed, credentials) takes the traced path. */
    if (ind->msg[BS_MSG_CONTROLLEN / 8] != 0) return 0;
    iov_addr = ind->msg[BS_MSG_IOV / 8];
    count = ind->msg[BS_MSG_IOVLEN / 8];
  } else {
    count = args[call->indirect_arg + 1];
  }
  if (count > BS_IOV_MAX) return 0;
  if (!bs_safe_read(ind->iov, iov_addr, count * 16)) return 0;
  const uint64_t too_big = BS_RECORDS_CAPACITY + 1;
  uint64_t total = 0;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t len = ind->iov[2 * i + 1];
    total = len > too_big - total ? too_big : total + len;
  }
  ind->iov_count = count;
  ind->iov_total = total;
  return 1;
}
