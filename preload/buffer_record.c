/* Record mode: perform a bufferable call through the tool page's untraced
 * instruction and append what it returned and wrote to the thread's buffer.
 * The recorder turns the records into a BufferFlush event at the thread's
 * next stop. */
#include <linux/errno.h>
#include <linux/fs.h>   /* RWF_NOWAIT */
#include <linux/time.h> /* struct __kernel_timespec */
#include <sys/socket.h> /* struct iovec, MSG_DONTWAIT */
#include <sys/stat.h>
#include <sys/syscall.h>

#include "preload/buffer_layout.h"

/* The most an output can take: from the arguments, or for the indirect
 * kinds from the memory they describe (read before the call). */
static uint64_t bound(const struct bs_out_param *out, const uint64_t *args, const struct bs_indirect *ind) {
  switch (out->kind) {
    case BS_SIZE_SCATTER:
    case BS_SIZE_MSG_IOV: return ind->iov_total;
    case BS_SIZE_MSG_NAME: return ind->msg[BS_MSG_NAME / 8] != 0 ? BS_SOCKADDR_MAX : 0;
    default: return bs_out_bound(out, args);
  }
}

/* Bytes to reserve before the call: the record and every output's bound. */
static uint64_t reservation(const struct bs_buffered_call *call, const uint64_t *args, const struct bs_indirect *ind) {
  uint64_t need = sizeof(struct bs_record);
  for (uint8_t i = 0; i < call->out_count; ++i) need += bs_round8(bound(&call->outs[i], args, ind));
  return need;
}

/* Copies what the call wrote through one output into the record at data;
 * returns its length. */
static uint64_t copy_output(unsigned char *data, const struct bs_out_param *out, const uint64_t *args, int64_t ret,
                            const struct bs_indirect *ind) {
  uint64_t ptr = args[out->arg];
  switch (out->kind) {
    case BS_SIZE_SCATTER:
    case BS_SIZE_MSG_IOV: {
      /* The kernel wrote ret bytes over the buffers it read from the array. */
      if (bs_failed(ret) || ret <= 0) return 0;
      uint64_t n = (uint64_t)ret < ind->iov_total ? (uint64_t)ret : ind->iov_total;
      return bs_gather_iov(data, ind->iov, ind->iov_count, n);
    }
    case BS_SIZE_MSG_NAME: {
      /* recvmsg wrote the smaller of the address's length and the room the
       * program gave (msg_namelen before the call), and the length. */
      uint64_t name = ind->msg[BS_MSG_NAME / 8];
      if (bs_failed(ret) || name == 0) return 0;
      uint32_t before = (uint32_t)ind->msg[BS_MSG_NAMELEN / 8];
      uint32_t after = *(const uint32_t *)(uintptr_t)(ptr + BS_MSG_NAMELEN);
      uint64_t n = before < after ? before : after;
      if (n > BS_SOCKADDR_MAX) n = BS_SOCKADDR_MAX;
      bs_copy(data, (const void *)(uintptr_t)name, n);
      return n;
    }
    default: break;
  }
  if (bs_failed(ret) && (out->flags & BS_OUT_ALWAYS)) {
    /* Written even by a failed call (select's time left): read only if
     * readable, since a bad pointer is one way to fail. */
    if (ptr == 0 || !bs_safe_read(data, ptr, out->size)) return 0;
    return out->size;
  }
  uint64_t len = bs_out_len(out, args, ret);
  bs_copy(data, (const void *)(uintptr_t)ptr, len);
  return len;
}

/* /dev/null, /dev/zero, /dev/full, /dev/random, /dev/urandom: the memory
 * devices (major 1) whose reads and writes never block and change nothing
 * the recorder tracks. st_rdev as the kernel encodes it (new_encode_dev). */
static int quiet_device(uint64_t rdev) {
  uint64_t major = ((rdev >> 8) & 0xfff) | ((rdev >> 32) & ~0xfffull);
  uint64_t minor = (rdev & 0xff) | ((rdev >> 12) & ~0xffull);
  return major == 1 && (minor == 3 || minor == 5 || minor == 7 || minor == 8 || minor == 9);
}

/* The gate for the descriptor a buffered call just created, by the
 * recorder's rules (engine/record/buffer_gates.cc, allow_descriptor): a
 * directory, a regular file no recorded process maps or a quiet device
 * cannot block and needs nothing of the recorder; a FIFO may block. Never
 * a file of /proc, nor backstep's own stdout or stderr (kept_out), nor a
 * descriptor of a process that only shares the buffer (gate_pid). */
static enum bs_opened opened_gate(const struct bs_buffer_header *header, int64_t fd) {
  if (!header->gate_opens || fd < 0 || fd >= BS_MAX_FDS) return BS_OPENED_NONE;
  if ((uint32_t)bs_untraced_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0) != header->gate_pid) return BS_OPENED_NONE;
  struct stat st;
  if (bs_untraced_syscall(SYS_fstat, (long)fd, (long)&st, 0, 0, 0, 0) != 0) return BS_OPENED_NONE;
  if (st.st_dev == header->proc_dev || bs_kept_out(header->kept_out, st.st_dev, st.st_ino)) return BS_OPENED_NONE;
  if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) return BS_OPENED_ALLOWED;
  if (S_ISCHR(st.st_mode) && quiet_device(st.st_rdev)) return BS_OPENED_ALLOWED;
  if (S_ISFIFO(st.st_mode)) return BS_OPENED_BLOCKING;
  return BS_OPENED_NONE;
}

/* A call that may block, made first in a form that cannot wait and
 * without the desched event: most calls on a busy pipe or socket find data
 * or room at once, most polls something ready, and arming and disarming
 * the event costs two ioctls, several times the call itself. Returns the
 * call's result, or BS_NOT_TRIED where it would have waited (or has no
 * such form): then it is made as the program made it, with the event
 * armed. The result is the blocking call's: a read returns what is there,
 * as a blocking one does once something is; a poll returns what is ready; a
 * write is tried so only on a pipe, which takes one of at most
 * BS_BLOCKING_WRITE_MAX bytes whole or not at all (a TCP socket would take
 * part of it, where the blocking write waits to take all). */
#define BS_NOT_TRIED ((int64_t)-4096)
static int is_pipe(uint64_t fd) {
  struct stat st;
  return bs_untraced_syscall(SYS_fstat, (long)fd, (long)&st, 0, 0, 0, 0) == 0 && S_ISFIFO(st.st_mode);
}

static int64_t fd_call_without_waiting(long nr, const uint64_t *args) {
  struct iovec one = {(void *)(uintptr_t)args[1], (size_t)args[2]};
  switch (nr) {
    case SYS_write:
    case SYS_writev:
      if (!is_pipe(args[0])) return BS_NOT_TRIED;
      if (nr == SYS_write) return bs_untraced_syscall(SYS_pwritev2, (long)args[0], (long)&one, 1, -1, 0, RWF_NOWAIT);
      return bs_untraced_syscall(SYS_pwritev2, (long)args[0], (long)args[1], (long)args[2], -1, 0, RWF_NOWAIT);
    case SYS_read: return bs_untraced_syscall(SYS_preadv2, (long)args[0], (long)&one, 1, -1, 0, RWF_NOWAIT);
    case SYS_readv:
      return bs_untraced_syscall(SYS_preadv2, (long)args[0], (long)args[1], (long)args[2], -1, 0, RWF_NOWAIT);
    case SYS_recvfrom:
      return bs_untraced_syscall(nr, (long)args[0], (long)args[1], (long)args[2], (long)(args[3] | MSG_DONTWAIT),
                                 (long)args[4], (long)args[5]);
    case SYS_recvmsg:
      return bs_untraced_syscall(nr, (long)args[0], (long)args[1], (long)(args[2] | MSG_DONTWAIT), 0, 0, 0);
    default: return BS_NOT_TRIED;  /* sendto, sendmsg: a socket */
  }
}

/* poll and the epoll waits with a zero timeout (none: nothing is ready).
 * ppoll only without a timeout of its own, which it would write back. */
static int64_t poll_without_waiting(long nr, const uint64_t *args) {
  struct __kernel_timespec zero = {0, 0};
  switch (nr) {
    case SYS_poll: return bs_untraced_syscall(nr, (long)args[0], (long)args[1], 0, 0, 0, 0);
    case SYS_epoll_wait:
    case SYS_epoll_pwait:
      return bs_untraced_syscall(nr, (long)args[0], (long)args[1], (long)args[2], 0, (long)args[4], (long)args[5]);
    case SYS_epoll_pwait2:
      return bs_untraced_syscall(nr, (long)args[0], (long)args[1], (long)args[2], (long)&zero, (long)args[4],
                                 (long)args[5]);
    case SYS_ppoll:
      if (args[2] != 0) return BS_NOT_TRIED;
      return bs_untraced_syscall(nr, (long)args[0], (long)args[1], (long)&zero, (long)args[3], (long)args[4], 0);
    default: return BS_NOT_TRIED;
  }
}

/* Whether rt_sigprocmask(how, set, old, size) unblocks a signal that is
 * pending now. The kernel delivers such a signal as the call returns, so
 * natively its handler runs before the instruction after the call; a
 * buffered call returns inside the library, where the recorder cannot
 * deliver it (it would hold it back to the next stop). So such a call is
 * traced, and the recorder delivers the signal at its exit. A signal that
 * comes after the look could have come after the call as well. A set it
 * cannot read, or a size the kernel refuses, is traced too (the kernel's
 * EFAULT or EINVAL). */
static int unblocks_pending(const uint64_t *args) {
  enum { block = 0, unblock = 1 }; /* SIG_BLOCK, SIG_UNBLOCK; SIG_SETMASK is 2 */
  if (args[1] == 0 || args[0] == block) return 0;
  uint64_t set = 0, pending = 0;
  if (args[3] != sizeof(set) || !bs_safe_read(&set, args[1], sizeof(set))) return 1;
  if (bs_untraced_syscall(SYS_rt_sigpending, (long)&pending, sizeof(pending), 0, 0, 0, 0) != 0) return 1;
  return (pending & (args[0] == unblock ? set : ~set)) != 0;
}

static int64_t call_without_waiting(long nr, const uint64_t *args) {
  int64_t ret = fd_call_without_waiting(nr, args);
  if (ret == -EAGAIN || ret == -EOPNOTSUPP) return BS_NOT_TRIED;  /* nothing to read, no room; or no RWF_NOWAIT */
  if (ret != BS_NOT_TRIED) return ret;
  ret = poll_without_waiting(nr, args);
  /* Nothing ready: the program's own zero timeout makes that the answer. */
  int zero_timeout = (nr == SYS_poll && (int32_t)args[2] == 0) ||
                     ((nr == SYS_epoll_wait || nr == SYS_epoll_pwait) && (int32_t)args[3] == 0);
  return ret == 0 && !zero_timeout ? BS_NOT_TRIED : ret;
}

const struct bs_record *bs_record_call(struct bs_buffer_header *header, const struct bs_buffered_call *call,
                                       struct bs_saved_regs *regs, int may_block) {
  /* The recorder asks for a switch point: this call is traced. */
  if (header->yield != 0) {
    header->yield = 0;
    return 0;
  }
  if (header->traced != 0) return 0;
  const uint64_t *args = regs->args;
  /* A call that may wait is made with the desched event armed, so that the
   * recorder hears of it if it blocks (desched.c); right after the same call
   * blocked, it is traced at once (see skip_left), unless it can be made
   * without waiting. */
  int same = header->skip_nr == (uint32_t)regs->rax && header->skip_arg == args[0];
  int skipping = may_block && header->skip_left != 0 && same;
  /* What an iovec array or a msghdr says, when a bound or a gate needs it
   * (a writev on a file needs neither: its data is hashed after the call). */
  struct bs_indirect ind;
  ind.msg[BS_MSG_NAME / 8] = 0;
  ind.iov_count = ind.iov_total = 0;
  int gather_only = (call->flags & (BS_CALL_GATHER | BS_CALL_MSG)) == BS_CALL_GATHER && !may_block;
  if (call->indirect_arg != BS_GATE_NONE && !gather_only && !bs_prepare_indirect(call, args, &ind)) return 0;
  if (header->used > BS_RECORDS_CAPACITY || reservation(call, args, &ind) > BS_RECORDS_CAPACITY - header->used) {
    return 0;  /* no room: traced, and the recorder flushes the buffer at that stop */
  }
  /* A write larger than a pipe takes atomically could be cut short by the
   * recorder's interrupt, natively it would wait to the end: traced. */
  if (may_block && call->data_arg != BS_GATE_NONE) {
    uint64_t size = (call->flags & BS_CALL_GATHER) ? ind.iov_total : args[call->data_arg + 1];
    if (size > BS_BLOCKING_WRITE_MAX) return 0;
  }
  /* recv(MSG_WAITALL) could likewise return part of what it waits for. */
  if (may_block && regs->rax == SYS_recvfrom && (args[3] & MSG_WAITALL)) return 0;
  if (may_block && regs->rax == SYS_recvmsg && (args[2] & MSG_WAITALL)) return 0;
  if (regs->rax == SYS_rt_sigprocmask && unblocks_pending(args)) return 0;
  int64_t ret = may_block ? call_without_waiting((long)regs->rax, args) : BS_NOT_TRIED;
  if (ret == BS_RESULT_ABANDONED) return 0;  /* it raised a signal (SIGPIPE): traced, it raises it again */
  if (ret == BS_NOT_TRIED) {
    if (skipping) {
      header->skip_left--;
      return 0;
    }
    if (may_block && !bs_desched_arm(header)) return 0;
    ret = bs_untraced_syscall((long)regs->rax, (long)args[0], (long)args[1], (long)args[2], (long)args[3],
                              (long)args[4], (long)args[5]);
    if (may_block) bs_desched_disarm(header);
  }
  /* The recorder abandoned it (the thread blocked, or a signal came): the
   * call did nothing, and is made again on the traced path. */
  if (ret == BS_RESULT_ABANDONED) {
    uint32_t next = same && header->skip_next >= BS_SKIP_AFTER_BLOCK ? header->skip_next : BS_SKIP_AFTER_BLOCK;
    header->skip_nr = (uint32_t)regs->rax;
    header->skip_arg = args[0];
    header->skip_left = next;
    header->skip_next = next >= BS_SKIP_MAX ? BS_SKIP_MAX : next * 2;
    return 0;
  }
  if (may_block && same) header->skip_next = BS_SKIP_AFTER_BLOCK;  /* it did not block this time */

  struct bs_record *rec = bs_record_at(header, header->used);
  unsigned char *data = (unsigned char *)(rec + 1);
  uint32_t size = sizeof(struct bs_record);
  for (uint8_t i = 0; i < BS_MAX_OUTS; ++i) rec->out_len[i] = 0;
  for (uint8_t i = 0; i < call->out_count; ++i) {
    uint64_t len = copy_output(data, &call->outs[i], args, ret, &ind);
    rec->out_len[i] = (uint32_t)len;
    data += bs_round8(len);
    size += (uint32_t)bs_round8(len);
  }
  rec->check = 0;
  if (call->data_arg != BS_GATE_NONE && ret > 0) rec->check = bs_data_check(call, args, (uint64_t)ret);
  if (call->flags & BS_CALL_CLOSES_FD) rec->check = args[call->fd_arg];  /* for the recorder's flush */
  if (call->flags & BS_CALL_OPENS_FD) rec->check = opened_gate(header, ret);  /* for replay's library */
  rec->size = size;
  rec->nr = (uint32_t)regs->rax;
  rec->ret = ret;
  /* Published last: a stop before this line sees the call as not buffered,
   * and the recorder knows from `busy` that the thread is inside the hook. */
  BS_COMPILER_BARRIER();
  header->used += size;
  regs->rax = (uint64_t)ret;
  return rec;
}
