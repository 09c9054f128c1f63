/* The time-stamp counter, read by the library: where the recorder patched a
 * program's rdtsc into a trapping `int 0x2e` (engine/core/tsc_sites.h), it
 * turns the site, at its first trap, into a jump to a stub that enters the
 * trampoline with rax = BS_CALL_RDTSC (bs_tsc_entry). Recording reads the
 * counter here and appends it to the thread's buffer as a record of that
 * number; replay returns the recorded value. Either way the hook answers
 * like rdtsc: eax the low half, edx the high half (the saved rdx, which the
 * trampoline restores). Without a record to give (recording: no room, or
 * the recorder asked for a switch point; replay: none left), the stub's
 * traced path traps as before, and the value is an Rdtsc event. */
#include "preload/buffer_layout.h"

static void answer(struct bs_saved_regs *regs, uint64_t tsc) {
  regs->rax = tsc & 0xffffffffu;
  regs->args[2] = tsc >> 32; /* rdx */
}

const struct bs_record *bs_tsc_call(struct bs_buffer_header *header, struct bs_saved_regs *regs) {
  if (header->mode == BS_MODE_REPLAY) {
    if (header->cursor >= header->used) return 0;
    if (header->used > BS_RECORDS_CAPACITY || header->used - header->cursor < sizeof(struct bs_record)) {
      bs_diverge(header, BS_CALL_RDTSC, BS_DIVERGED_SIZE);
    }
    const struct bs_record *rec = bs_record_at(header, header->cursor);
    if (rec->nr != BS_CALL_RDTSC) bs_diverge(header, BS_CALL_RDTSC, BS_DIVERGED_NR);
    if (rec->size != sizeof(struct bs_record)) bs_diverge(header, BS_CALL_RDTSC, BS_DIVERGED_SIZE);
    header->cursor += rec->size;
    answer(regs, (uint64_t)rec->ret);
    return rec;
  }
  /* The recorder asks for a switch point: this one traps. */
  if (header->yield != 0) {
    header->yield = 0;
    return 0;
  }
  if (header->used > BS_RECORDS_CAPACITY || sizeof(struct bs_record) > BS_RECORDS_CAPACITY - header->used) return 0;
  uint32_t lo, hi;
  /* The recorder never patches the library's own rdtsc (tsc_patching.cc). */
  __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
  uint64_t tsc = ((uint64_t)hi << 32) | lo;
  struct bs_record *rec = bs_record_at(header, header->used);
  for (uint8_t i = 0; i < BS_MAX_OUTS; ++i) rec->out_len[i] = 0;
  rec->check = 0;
  rec->size = sizeof(struct bs_record);
  rec->nr = BS_CALL_RDTSC;
  rec->ret = (int64_t)tsc;
  /* Published last, as bs_record_call does. */
  BS_COMPILER_BARRIER();
  header->used += rec->size;
  answer(regs, tsc);
  return rec;
}
