/* bs_hook: the C half of bs_syscall_trampoline. Decides whether this call
 * can be buffered (the thread has a buffer, the call is in the table, its
 * descriptor is allowed) and hands it to record or replay; then updates the
 * descriptor gates as the record says (a close, a new descriptor). */
#define _GNU_SOURCE  /* the generated table's sizes name GNU types (struct statx) */
#include "preload/buffer_layout.h"
#include "syscall_buffer_table.generated.h"

/* The kernel's x86-64 numbers stop below 512 (512.. are x32). */
#define BS_NR_LIMIT 512

/* Position + 1 in BS_BUFFERED_CALLS of each number's first entry, 0 where
 * it is not bufferable. Filled by the library's constructor, before any
 * call can reach the hook; zero (nothing bufferable) until then. */
static uint8_t call_index[BS_NR_LIMIT];

_Static_assert(BS_BUFFERED_CALL_COUNT < 255, "call_index holds positions in a uint8_t");

__attribute__((constructor(101))) static void build_call_index(void) {
  for (unsigned i = 0; i < BS_BUFFERED_CALL_COUNT; ++i) {
    int32_t nr = BS_BUFFERED_CALLS[i].nr;
    if (nr >= 0 && nr < BS_NR_LIMIT && call_index[nr] == 0) call_index[nr] = (uint8_t)(i + 1);
  }
}

/* Whether the call's operation gate lets these arguments through. */
static int op_gate_open(const struct bs_buffered_call *call, const uint64_t *args) {
  if (call->op_arg == BS_GATE_NONE) return 1;
  uint64_t op = args[call->op_arg] & call->op_mask;
  if (call->flags & BS_CALL_OP_EXACT) return op == call->op_values;
  return op < 64 && ((call->op_values >> op) & 1);
}

/* The table's entry for this call: with BS_CALL_OP_EXACT, the one of the
 * number's entries whose value the arguments hold (ioctl's request), none
 * when no entry does. */
static const struct bs_buffered_call *lookup(uint64_t nr, const uint64_t *args) {
  if (nr >= BS_NR_LIMIT || call_index[nr] == 0) return 0;
  const struct bs_buffered_call *call = &BS_BUFFERED_CALLS[call_index[nr] - 1];
  if (!(call->flags & BS_CALL_OP_EXACT)) return call;
  const struct bs_buffered_call *end = BS_BUFFERED_CALLS + BS_BUFFERED_CALL_COUNT;
  for (; call < end && (uint64_t)call->nr == nr; ++call) {
    if (op_gate_open(call, args)) return call;
  }
  return 0;
}

static int bit(const uint64_t *bits, uint64_t fd) { return (bits[fd / 64] >> (fd % 64)) & 1; }

/* How the call's descriptor gate lets it through: GATE_CLOSED (traced),
 * GATE_OPEN, or GATE_BLOCKING (buffered with the desched event armed). */
enum gate { GATE_CLOSED, GATE_OPEN, GATE_BLOCKING };

/* ppoll's signal mask and the like: with one, the call is traced. */
static int null_gate_open(const struct bs_buffered_call *call, const uint64_t *args, uint32_t mode) {
  if (call->null_arg == BS_GATE_NONE || args[call->null_arg] == 0) return 1;
  if (!(call->flags & BS_CALL_NULL_AT)) return 0;
  if (mode == BS_MODE_REPLAY) return 1;  /* the records say what recording did */
  uint64_t word = 1;
  return bs_safe_read(&word, args[call->null_arg], sizeof(word)) && word == 0;
}

/* openat's path: not under /proc/ (see bs_buffered_call.path_arg). Its
 * first bytes are read in at most two pieces, split where a page ends: a
 * short path may end right before unmapped memory. */
static int path_gate_open(const struct bs_buffered_call *call, const uint64_t *args, uint32_t mode) {
  if (call->path_arg == BS_GATE_NONE || mode == BS_MODE_REPLAY) return 1;
  static const char proc[] = "/proc/";
  const uint64_t n = sizeof(proc) - 1;
  uint64_t path = args[call->path_arg];
  uint64_t first = 4096 - (path & 4095);
  if (first > n) first = n;
  char head[sizeof(proc) - 1];
  for (uint64_t at = 0; at < n;) {
    uint64_t len = at == 0 ? first : n - at;
    if (!bs_safe_read(head + at, path + at, len)) return 0;  /* the kernel answers EFAULT: traced */
    for (uint64_t i = at; i < at + len; ++i) {
      if (head[i] != proc[i]) return 1;
    }
    at += len;
  }
  return 0;
}

static enum gate gate_of(const struct bs_buffer_header *header, const struct bs_buffered_call *call,
                         const uint64_t *args) {
  int may_block = (call->flags & BS_CALL_MAY_BLOCK) != 0;
  if (!null_gate_open(call, args, header->mode) || !path_gate_open(call, args, header->mode)) return GATE_CLOSED;
  if (!op_gate_open(call, args)) return GATE_CLOSED;
  if (call->fd_arg == BS_GATE_NONE) return may_block ? GATE_BLOCKING : GATE_OPEN;
  uint64_t fd = args[call->fd_arg];
  /* Negative descriptors are huge here: never allowed. */
  if (fd >= BS_MAX_FDS) return GATE_CLOSED;
  if (bit(header->fd_allowed, fd)) return GATE_OPEN;
  if (may_block && bit(header->fd_blocking, fd)) return GATE_BLOCKING;
  return GATE_CLOSED;
}

static void set_bit(uint64_t *bits, uint64_t fd) { bits[fd / 64] |= 1ull << (fd % 64); }
static void clear_bit(uint64_t *bits, uint64_t fd) { bits[fd / 64] &= ~(1ull << (fd % 64)); }

/* What a buffered call did to the descriptor gates, the same in record and
 * replay: a close leaves them, a new descriptor enters the one its record
 * names (the library's decision when recording). */
static void update_gates(struct bs_buffer_header *header, const struct bs_buffered_call *call,
                         const struct bs_record *rec, const uint64_t *args) {
  if ((call->flags & BS_CALL_CLOSES_FD) && rec->ret == 0) {
    uint64_t fd = args[call->fd_arg];
    clear_bit(header->fd_allowed, fd);
    clear_bit(header->fd_blocking, fd);
  }
  if ((call->flags & BS_CALL_OPENS_FD) && rec->ret >= 0 && rec->ret < BS_MAX_FDS) {
    if (rec->check == BS_OPENED_ALLOWED) set_bit(header->fd_allowed, (uint64_t)rec->ret);
    if (rec->check == BS_OPENED_BLOCKING) set_bit(header->fd_blocking, (uint64_t)rec->ret);
  }
}

long bs_hook(struct bs_saved_regs *regs) {
  /* a patched rdtsc or rdtscp (tsc_call.c) */
  int tsc = regs->rax == (uint64_t)BS_CALL_RDTSC || regs->rax == (uint64_t)BS_CALL_RDTSCP;
  const struct bs_buffered_call *call = tsc ? 0 : lookup(regs->rax, regs->args);
  if (!call && !tsc) return 0;
  int fresh = bs_thread.status == BS_THREAD_NEW;
  struct bs_buffer_header *header = bs_thread_buffer();
  if (!header) return 0;
  /* Registered just now, on the program's stack: the trampoline calls again
   * on the buffer's own stack. */
  if (fresh) return BS_HOOK_AGAIN;
  uint32_t mode = header->mode;
  if (mode != BS_MODE_RECORD && mode != BS_MODE_REPLAY) return 0;
  /* Busy from here: recording and replay run different code (the gate may
   * read memory through a system call when recording). */
  header->busy = 1;
  BS_COMPILER_BARRIER();
  enum gate gate = tsc ? GATE_CLOSED : gate_of(header, call, regs->args);
  const struct bs_record *rec = tsc ? bs_tsc_call(header, regs) : 0;
  if (gate != GATE_CLOSED) {
    rec = mode == BS_MODE_RECORD ? bs_record_call(header, call, regs, gate == GATE_BLOCKING)
                                 : bs_replay_call(header, call, regs);
  }
  if (rec) {
    header->calls++;
    if (call) update_gates(header, call, rec, regs->args);
  }
  BS_COMPILER_BARRIER();
  header->busy = 0;
  return rec != 0;
}

/* The trampoline calls the hook through this local name, so that neither
 * another library's bs_hook nor the PLT stands between them. */
extern __typeof__(bs_hook) bs_hook_local __attribute__((alias("bs_hook"), visibility("hidden")));
