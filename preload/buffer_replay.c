/* Replay mode: return the next record's result and copy its outputs into
 * the program instead of calling the kernel. The records were written into
 * the buffer by the BufferFlush event; running out of them means recording
 * took the traced path here, so replay does too. Any mismatch with the
 * recording is reported (header.diverged_*) and stops the thread with ud2,
 * never replayed wrong. */
#include "preload/buffer_layout.h"

void bs_diverge(struct bs_buffer_header *header, uint32_t nr, enum bs_divergence reason) {
  header->diverged_nr = nr;
  header->diverged_reason = reason;
  header->busy = 0;
  BS_COMPILER_BARRIER();
  for (;;) __asm__ volatile("ud2");
}

/* Writes one recorded output into the program; 0 when it does not fit
 * where the program's arguments (or the memory they describe, as it was
 * when recorded: the recorded outputs before it restored a msghdr) say. */
static int put_output(const struct bs_out_param *out, const uint64_t *args, const unsigned char *data, uint64_t len) {
  uint64_t ptr = args[out->arg];
  if (ptr == 0) return 0;
  switch (out->kind) {
    case BS_SIZE_SCATTER:
      return bs_scatter_iov((const uint64_t *)(uintptr_t)ptr, args[out->size_arg], data, len) == len;
    case BS_SIZE_MSG_IOV: return bs_scatter_iov(bs_msg_iov(ptr), bs_msg_iovlen(ptr), data, len) == len;
    case BS_SIZE_MSG_NAME: {
      uint64_t name = ((const uint64_t *)(uintptr_t)ptr)[BS_MSG_NAME / 8];
      if (name == 0 || len > BS_SOCKADDR_MAX) return 0;
      bs_copy((void *)(uintptr_t)name, data, len);
      return 1;
    }
    default:
      if (len > bs_out_bound(out, args)) return 0;
      bs_copy((void *)(uintptr_t)ptr, data, len);
      return 1;
  }
}

const struct bs_record *bs_replay_call(struct bs_buffer_header *header, const struct bs_buffered_call *call,
                                       struct bs_saved_regs *regs) {
  const uint64_t *args = regs->args;
  uint32_t nr = (uint32_t)regs->rax;
  if (header->cursor >= header->used) return 0;
  if (header->used > BS_RECORDS_CAPACITY || header->used - header->cursor < sizeof(struct bs_record)) {
    bs_diverge(header, nr, BS_DIVERGED_SIZE);  /* a truncated record */
  }
  const struct bs_record *rec = bs_record_at(header, header->cursor);
  if (rec->nr != nr) bs_diverge(header, nr, BS_DIVERGED_NR);
  if (rec->size < sizeof(struct bs_record) || rec->size > header->used - header->cursor) {
    bs_diverge(header, nr, BS_DIVERGED_SIZE);
  }
  if (call->data_arg != BS_GATE_NONE && rec->ret > 0) {
    /* The data's bound is the argument after it (write's count). */
    uint64_t n = (uint64_t)rec->ret;
    int gather = (call->flags & BS_CALL_GATHER) != 0;
    if ((!gather && n > args[call->data_arg + 1]) || bs_data_check(call, args, n) != rec->check) {
      bs_diverge(header, nr, BS_DIVERGED_DATA);
    }
  }
  if ((call->flags & BS_CALL_CLOSES_FD) && rec->check != args[call->fd_arg]) bs_diverge(header, nr, BS_DIVERGED_DATA);
  const unsigned char *data = (const unsigned char *)(rec + 1);
  uint64_t consumed = sizeof(struct bs_record);
  for (uint8_t i = 0; i < call->out_count; ++i) {
    const struct bs_out_param *out = &call->outs[i];
    uint64_t len = rec->out_len[i];
    if (len == 0) continue;
    consumed += bs_round8(len);
    if (consumed > rec->size || !put_output(out, args, data, len)) bs_diverge(header, nr, BS_DIVERGED_SIZE);
    data += bs_round8(len);
  }
  header->cursor += rec->size;
  regs->rax = (uint64_t)rec->ret;
  return rec;
}
