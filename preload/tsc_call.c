/* The time-stamp counter, read by the library: at the first trap of a
 * program's rdtsc (made to fault by the kernel, or patched into a trapping
 * `int 0x2e` where the kernel cannot: engine/core/tsc_sites.h), the recorder
 * turns the site into a jump to a stub that enters the trampoline with
 * rax = BS_CALL_RDTSC (bs_tsc_entry); an rdtscp (or its `int 0x2f; nop`)
 * enters with BS_CALL_RDTSCP (bs_tscp_entry).
 * Recording reads the counter here (or, where the kernel makes rdtsc fault,
 * makes it from the clock as the recorder does: bs_tsc_from_ns) and
 * appends it to the thread's buffer as
 * a record of that number (rdtscp's IA32_TSC_AUX in the record's `check`);
 * replay returns the recorded values. Either way the hook answers like the
 * instruction: eax the low half, edx the high half (the saved rdx, which
 * the trampoline restores), and for rdtscp ecx the auxiliary value. Without a record to give (recording: no room, or
 * the recorder asked for a switch point; replay: none left), the stub's
 * traced path traps as before, and the value is an Rdtsc event. */
#include <sys/syscall.h>
#include <linux/time.h> /* CLOCK_MONOTONIC_RAW, struct __kernel_timespec */

#include "preload/buffer_layout.h"

static void answer(struct bs_saved_regs *regs, uint32_t nr, uint64_t tsc, uint64_t aux) {
  regs->rax = tsc & 0xffffffffu;
  regs->args[2] = tsc >> 32; /* rdx */
  if (nr == BS_CALL_RDTSCP) regs->rcx = aux & 0xffffffffu;
}

const struct bs_record *bs_tsc_call(struct bs_buffer_header *header, struct bs_saved_regs *regs) {
  uint32_t nr = (uint32_t)regs->rax; /* BS_CALL_RDTSC or BS_CALL_RDTSCP */
  if (header->mode == BS_MODE_REPLAY) {
    if (header->cursor >= header->used) return 0;
    if (header->used > BS_RECORDS_CAPACITY || header->used - header->cursor < sizeof(struct bs_record)) {
      bs_diverge(header, nr, BS_DIVERGED_SIZE);
    }
    const struct bs_record *rec = bs_record_at(header, header->cursor);
    if (rec->nr != nr) bs_diverge(header, nr, BS_DIVERGED_NR);
    if (rec->size != sizeof(struct bs_record)) bs_diverge(header, nr, BS_DIVERGED_SIZE);
    header->cursor += rec->size;
    answer(regs, nr, (uint64_t)rec->ret, rec->check);
    return rec;
  }
  /* The program made rdtsc fault for itself: it does, on the traced path. */
  if (header->tsc_faults) return 0;
  /* The recorder asks for a switch point: this one traps. */
  if (header->yield != 0) {
    header->yield = 0;
    return 0;
  }
  if (header->used > BS_RECORDS_CAPACITY || sizeof(struct bs_record) > BS_RECORDS_CAPACITY - header->used) return 0;
  uint64_t tsc;
  uint32_t aux = 0;
  if (header->tsc_mult) {
    /* The kernel makes rdtsc fault here: the counter the recorder gives too. */
    struct __kernel_timespec now;
    if (bs_untraced_syscall(SYS_clock_gettime, CLOCK_MONOTONIC_RAW, (long)&now, 0, 0, 0, 0) != 0) return 0;
    tsc = bs_tsc_from_ns(header->tsc_base, header->tsc_base_ns, header->tsc_mult,
                         (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec);
    if (nr == BS_CALL_RDTSCP) {
      /* IA32_TSC_AUX as Linux sets it: the node above bit 12, the CPU below. */
      uint32_t cpu = 0, node = 0;
      if (bs_untraced_syscall(SYS_getcpu, (long)&cpu, (long)&node, 0, 0, 0, 0) != 0) return 0;
      aux = node << 12 | cpu;
    }
  } else {
    uint32_t lo, hi;
    /* The recorder never patches the library's own rdtsc (tsc_patching.cc). */
    if (nr == BS_CALL_RDTSCP) __asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
    else __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    tsc = ((uint64_t)hi << 32) | lo;
  }
  struct bs_record *rec = bs_record_at(header, header->used);
  for (uint8_t i = 0; i < BS_MAX_OUTS; ++i) rec->out_len[i] = 0;
  rec->check = aux;
  rec->size = sizeof(struct bs_record);
  rec->nr = nr;
  rec->ret = (int64_t)tsc;
  /* Published last, as bs_record_call does. */
  BS_COMPILER_BARRIER();
  header->used += rec->size;
  answer(regs, nr, tsc, aux);
  return rec;
}
