/* Record mode: perform a bufferable call through the tool page's untraced
 * instruction and append what it returned and wrote to the thread's buffer.
 * The recorder turns the records into a BufferFlush event at the thread's
 * next stop. */
#include <sys/socket.h>
#include <sys/syscall.h>

#include "preload/buffer_layout.h"

/* Bytes to reserve before the call: the record and every output's bound. */
static uint64_t reservation(const struct bs_buffered_call *call, const uint64_t *args) {
  uint64_t need = sizeof(struct bs_record);
  for (uint8_t i = 0; i < call->out_count; ++i) need += bs_round8(bs_out_bound(&call->outs[i], args));
  return need;
}

int bs_record_call(struct bs_buffer_header *header, const struct bs_buffered_call *call,
                   struct bs_saved_regs *regs, int may_block) {
  /* The recorder asks for a switch point: this call is traced. */
  if (header->yield != 0) {
    header->yield = 0;
    return 0;
  }
  const uint64_t *args = regs->args;
  if (header->used > BS_RECORDS_CAPACITY || reservation(call, args) > BS_RECORDS_CAPACITY - header->used) {
    return 0;  /* no room: traced, and the recorder flushes the buffer at that stop */
  }
  /* A call that may wait is made with the desched event armed, so that the
   * recorder hears of it if it blocks (desched.c); right after the same call
   * blocked, it is traced at once (see skip_left). */
  if (may_block && header->skip_left != 0 && header->skip_nr == (uint32_t)regs->rax && header->skip_arg == args[0]) {
    header->skip_left--;
    return 0;
  }
  /* A write larger than a pipe takes atomically could be cut short by the
   * recorder's interrupt, natively it would wait to the end: traced. */
  if (may_block && call->data_arg != BS_GATE_NONE && args[call->data_arg + 1] > BS_BLOCKING_WRITE_MAX) return 0;
  /* recv(MSG_WAITALL) could likewise return part of what it waits for. */
  if (may_block && regs->rax == SYS_recvfrom && (args[3] & MSG_WAITALL)) return 0;
  if (may_block && !bs_desched_arm(header)) return 0;
  int64_t ret = bs_untraced_syscall((long)regs->rax, (long)args[0], (long)args[1], (long)args[2],
                                    (long)args[3], (long)args[4], (long)args[5]);
  if (may_block) bs_desched_disarm(header);
  /* The recorder abandoned it (the thread blocked, or a signal came): the
   * call did nothing, and is made again on the traced path. */
  int same = header->skip_nr == (uint32_t)regs->rax && header->skip_arg == args[0];
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
    const struct bs_out_param *out = &call->outs[i];
    uint64_t len = bs_out_len(out, args, ret);
    bs_copy(data, (const void *)args[out->arg], len);
    rec->out_len[i] = (uint32_t)len;
    data += bs_round8(len);
    size += (uint32_t)bs_round8(len);
  }
  rec->check = 0;
  if (call->data_arg != BS_GATE_NONE && ret > 0) rec->check = bs_data_check(call, args, (uint64_t)ret);
  if (call->flags & BS_CALL_CLOSES_FD) rec->check = args[call->fd_arg];  /* for the recorder's flush */
  rec->size = size;
  rec->nr = (uint32_t)regs->rax;
  rec->ret = ret;
  /* Published last: a stop before this line sees the call as not buffered,
   * and the recorder knows from `busy` that the thread is inside the hook. */
  BS_COMPILER_BARRIER();
  header->used += size;
  regs->rax = (uint64_t)ret;
  return 1;
}
