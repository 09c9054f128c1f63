/* The desched event (preload_interface.h, bs_buffer_header): how a buffered
 * call that may block lets the recorder know that it blocked.
 *
 * Each thread opens, on its first such call in record mode, a software perf
 * event counting its context switches (sample period 1, disabled), whose
 * overflow signal goes to the recording thread. The library enables it
 * right before the untraced call and disables it right after, so that the
 * recorder hears of the thread only when it is switched out inside that
 * window: when it blocked (or, now and then, was preempted). The recorder
 * then looks at where the thread is, and if it waits in the untraced call,
 * abandons it (BS_RESULT_ABANDONED); the library then makes the call on the
 * traced path, which the recorder handles as any call that may block: other
 * threads run meanwhile. Everything here goes through the untraced
 * instruction and happens in record mode only: none of it is in the trace,
 * and replay never opens an event. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>

#include "preload/buffer_layout.h"

static long untraced(long nr, long a0, long a1, long a2) {
  return bs_untraced_syscall(nr, a0, a1, a2, 0, 0, 0);
}

/* A descriptor the library opened before (this thread's, or the parent's
 * one that a fork's child inherited): a perf event answers PERF_EVENT_IOC_ID,
 * anything the program may have put at that number since does not. */
static int is_perf_event(int fd) {
  uint64_t id = 0;
  return fd >= 0 && untraced(SYS_ioctl, fd, (long)PERF_EVENT_IOC_ID, (long)&id) == 0;
}

static int open_event(struct bs_buffer_header *header, uint32_t tid) {
  struct perf_event_attr attr;
  unsigned char *p = (unsigned char *)&attr;
  for (unsigned i = 0; i < sizeof(attr); ++i) p[i] = 0;
  attr.size = sizeof(attr);
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
  attr.sample_period = 1;
  attr.disabled = 1;
  long fd = bs_untraced_syscall(SYS_perf_event_open, (long)&attr, 0 /* this thread */, -1, -1,
                                PERF_FLAG_FD_CLOEXEC, 0);
  if (bs_failed(fd)) return 0;
  long moved;
  if (is_perf_event(header->desched_fd)) {
    /* The same number again: a fork's child replaces its inherited copy. */
    moved = bs_untraced_syscall(SYS_dup3, fd, header->desched_fd, O_CLOEXEC, 0, 0, 0);
  } else {
    moved = untraced(SYS_fcntl, fd, F_DUPFD_CLOEXEC, BS_DESCHED_FD_MIN);
  }
  untraced(SYS_close, fd, 0, 0);
  if (bs_failed(moved)) return 0;
  struct f_owner_ex owner = {F_OWNER_TID, (int)header->recorder_tid};
  if (bs_failed(untraced(SYS_fcntl, moved, F_SETOWN_EX, (long)&owner)) ||
      bs_failed(untraced(SYS_fcntl, moved, F_SETSIG, header->desched_signal)) ||
      bs_failed(untraced(SYS_fcntl, moved, F_SETFL, O_ASYNC))) {
    untraced(SYS_close, moved, 0, 0);
    return 0;
  }
  header->desched_fd = (int32_t)moved;
  header->desched_tid = tid;
  return 1;
}

int bs_desched_arm(struct bs_buffer_header *header) {
  if (header->recorder_tid == 0 || header->desched_signal == 0) return 0;
  uint32_t tid = (uint32_t)untraced(SYS_gettid, 0, 0, 0);
  if (header->desched_tid != tid && !open_event(header, tid)) return 0;
  if (bs_failed(untraced(SYS_ioctl, header->desched_fd, (long)PERF_EVENT_IOC_ENABLE, 0))) {
    header->desched_tid = 0;  /* the program closed it: open another next time */
    return 0;
  }
  return 1;
}

void bs_desched_disarm(struct bs_buffer_header *header) {
  untraced(SYS_ioctl, header->desched_fd, (long)PERF_EVENT_IOC_DISABLE, 0);
}
