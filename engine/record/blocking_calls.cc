#include "engine/record/blocking_calls.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <sys/syscall.h>

namespace backstep {

bool may_block(const Registers& entry) {
  switch (static_cast<long>(entry.syscallno())) {
    // Reads and writes: pipes, sockets, terminals, eventfds, timerfds and
    // signalfds wait; regular files return at once, at the cost of a switch.
    case SYS_read: case SYS_readv: case SYS_pread64: case SYS_preadv: case SYS_preadv2:
    case SYS_write: case SYS_writev: case SYS_pwrite64: case SYS_pwritev: case SYS_pwritev2:
    case SYS_recvfrom: case SYS_recvmsg: case SYS_recvmmsg:
    case SYS_sendto: case SYS_sendmsg: case SYS_sendmmsg:
    case SYS_accept: case SYS_accept4: case SYS_connect:
    case SYS_sendfile: case SYS_splice: case SYS_tee: case SYS_vmsplice:
    // Waiting for events, time, children, signals, IPC.
    case SYS_poll: case SYS_ppoll: case SYS_select: case SYS_pselect6:
    case SYS_epoll_wait: case SYS_epoll_pwait: case SYS_epoll_pwait2:
    case SYS_nanosleep: case SYS_clock_nanosleep:
    case SYS_wait4: case SYS_waitid:
    case SYS_pause: case SYS_rt_sigsuspend: case SYS_rt_sigtimedwait:
    case SYS_msgrcv: case SYS_msgsnd: case SYS_semop: case SYS_semtimedop:
    case SYS_mq_timedreceive: case SYS_mq_timedsend:
    case SYS_io_getevents: case SYS_io_pgetevents:
    case SYS_flock:
    // Opening a FIFO waits for its other end (another thread may open it).
    case SYS_open: case SYS_openat: case SYS_openat2: case SYS_creat:
    case SYS_restart_syscall:
      return true;
    case SYS_fcntl: {
      uint64_t cmd = entry.arg(1);
      return cmd == F_SETLKW || cmd == F_OFD_SETLKW;
    }
    case SYS_futex: {
      int op = static_cast<int>(entry.arg(1)) & FUTEX_CMD_MASK;
      return op == FUTEX_WAIT || op == FUTEX_WAIT_BITSET || op == FUTEX_LOCK_PI || op == FUTEX_LOCK_PI2 ||
             op == FUTEX_WAIT_REQUEUE_PI;
    }
    default:
      return false;
  }
}

bool blocks_on_pi_futex(const Registers& entry) {
  if (static_cast<long>(entry.syscallno()) != SYS_futex) return false;
  int op = static_cast<int>(entry.arg(1)) & FUTEX_CMD_MASK;
  return op == FUTEX_LOCK_PI || op == FUTEX_LOCK_PI2;
}

}  // namespace backstep
