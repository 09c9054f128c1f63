/* What the preload library's files share: the registers the trampoline
 * saves, the per-thread state, and the entry points between its C and
 * assembly halves. Nothing here calls libc: the hook runs in the middle of
 * the program's own system call, where libc may be in any state. */
#ifndef BACKSTEP_PRELOAD_INTERNAL_H
#define BACKSTEP_PRELOAD_INTERNAL_H

#include <stdint.h>

#include "preload/preload_interface.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BS_HIDDEN __attribute__((visibility("hidden")))

/* The registers bs_syscall_trampoline pushes, lowest address first: the
 * hook reads the call from them and, when it handles the call, writes the
 * result into rax. It leaves every field alone when it does not. */
struct bs_saved_regs {
  uint64_t rax;      /* the system call number; the result once handled */
  uint64_t args[6];  /* rdi, rsi, rdx, r10, r8, r9 */
  uint64_t rcx;
  uint64_t r11;
  uint64_t rflags;
};

/* Returns 1 when the library performed (record) or replayed the call and
 * stored its result in regs->rax, 0 when the call takes the traced path,
 * BS_HOOK_AGAIN when it registered the thread's buffer just now (the
 * trampoline calls it again, on the buffer's stack). */
#define BS_HOOK_AGAIN 2
long bs_hook(struct bs_saved_regs *regs);

/* Per-thread state (initial-exec TLS: no allocation, no lock, usable from
 * the first instruction of a new thread). A fork's child inherits it with
 * its copy of the buffer; a vfork child shares both with its parent. */
enum bs_thread_status {
  BS_THREAD_NEW = 0,       /* no buffer yet: the next hook call registers one */
  BS_THREAD_STARTING = 1,  /* registering (a hook call now is not handled) */
  BS_THREAD_READY = 2,     /* buffer registered */
  BS_THREAD_REFUSED = 3,   /* no backstep (or it refused): never buffer */
};
struct bs_thread_state {
  struct bs_buffer_header *buffer;
  uint32_t status;  /* enum bs_thread_status */
};
extern __thread struct bs_thread_state bs_thread BS_HIDDEN;

/* This thread's registered buffer, registering one on first use; NULL when
 * it has none (not under backstep, or refused). */
struct bs_buffer_header *bs_thread_buffer(void) BS_HIDDEN;

/* Record mode: what the memory behind a call's arguments said before the
 * call (bs_prepare_indirect): its msghdr (BS_CALL_MSG) and its iovec
 * array, read with a call that fails on a bad pointer instead of faulting.
 * The kernel reads the same memory at the call: no other thread of the
 * program runs meanwhile. */
struct bs_indirect {
  uint64_t msg[BS_MSGHDR_SIZE / 8];
  uint64_t iov[2 * BS_IOV_MAX];
  uint64_t iov_count;
  uint64_t iov_total;  /* the bytes its buffers hold, saturated at more than a buffer holds */
};
/* 1 when the call's indirect memory was read (and a msghdr has no
 * ancillary data); 0: the call takes the traced path. */
int bs_prepare_indirect(const struct bs_buffered_call *call, const uint64_t *args, struct bs_indirect *ind) BS_HIDDEN;
/* Copies n bytes of the program's memory at src to dst through
 * process_vm_readv; 1 when all of them were readable. */
int bs_safe_read(void *dst, uint64_t src, uint64_t n) BS_HIDDEN;

/* Record and replay one call of the table: the record appended (record)
 * or consumed (replay) when handled, NULL when the call takes the traced
 * path. */
const struct bs_record *bs_record_call(struct bs_buffer_header *header, const struct bs_buffered_call *call,
                                       struct bs_saved_regs *regs, int may_block) BS_HIDDEN;
const struct bs_record *bs_replay_call(struct bs_buffer_header *header, const struct bs_buffered_call *call,
                                       struct bs_saved_regs *regs) BS_HIDDEN;

/* Replay: reports a record that does not match (header.diverged_*) and
 * stops the thread with ud2. */
__attribute__((noreturn)) void bs_diverge(struct bs_buffer_header *header, uint32_t nr,
                                          enum bs_divergence reason) BS_HIDDEN;
/* tsc_call.c: the pseudo call BS_CALL_RDTSC of a patched rdtsc, recorded
 * or replayed; its answer is in the saved rax and rdx. */
const struct bs_record *bs_tsc_call(struct bs_buffer_header *header, struct bs_saved_regs *regs) BS_HIDDEN;

/* desched.c: arm this thread's desched event around a call that may block
 * (opening it on first use); 0 when it cannot (the call is then traced). */
int bs_desched_arm(struct bs_buffer_header *header) BS_HIDDEN;
void bs_desched_disarm(struct bs_buffer_header *header) BS_HIDDEN;

/* trampoline.S and syscalls.S. */
void bs_syscall_trampoline(void);
extern unsigned char bs_stub_area[];
/* Through the tool page's untraced instruction: no ptrace stop. Only valid
 * once backstep accepted this thread's buffer (it maps the tool page). */
long bs_untraced_syscall(long nr, long a0, long a1, long a2, long a3, long a4, long a5) BS_HIDDEN;
/* The library's own `syscall; ret` (3 bytes, too short to be patched into a
 * jump, so the recorder never redirects it into the library): an ordinary,
 * traced call, which works natively too. */
long bs_native_syscall(long nr, long a0, long a1, long a2, long a3, long a4, long a5) BS_HIDDEN;

#ifdef __cplusplus
}
#endif

#endif
