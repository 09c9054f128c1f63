/* The one ABI shared by backstep's engine (C++) and its preload library (C):
 * the per-thread syscall buffer, the records in it, the patched-site stubs
 * and the tool-page addresses. Both sides include this header; a change to
 * any layout here bumps BS_PRELOAD_VERSION (the recorder refuses a library
 * of another version).
 *
 * How it fits together (docs/syscall-buffering.md has the long form):
 * - The recorder injects libbackstep_preload.so (LD_PRELOAD) and installs a
 *   seccomp filter before the program's first exec: a system call made from
 *   the tool page's untraced `syscall` instruction runs without a ptrace
 *   stop; every other one stops the program as without buffering.
 * - Each thread's library maps a buffer (a normal, recorded mmap) and
 *   registers it with BS_CALL_REGISTER_BUFFER (a traced call the kernel
 *   does not know). backstep then writes `mode` into the header.
 * - When a bufferable system call comes from a `syscall` instruction whose
 *   next instructions can run elsewhere (the engine decodes them:
 *   engine/core/syscall_stub.h), the recorder replaces them with a jump to
 *   a stub it writes into the library's stub area, and records those bytes
 *   as memory the event wrote, so replay patches identically.
 * - Record mode: the library performs a bufferable call through the
 *   untraced instruction and appends a record. At any stop of the thread the
 *   recorder reads the records, writes them into the trace as a
 *   BufferFlush event and empties the buffer.
 * - Replay mode: the BufferFlush event writes the records back into the
 *   buffer before the thread runs; the library returns their results and
 *   copies their outputs instead of calling the kernel, along the same code
 *   path, and takes the traced path exactly where recording did: when no
 *   record is left.
 */
#ifndef BACKSTEP_PRELOAD_INTERFACE_H
#define BACKSTEP_PRELOAD_INTERFACE_H

#include <stdint.h>

#define BS_PRELOAD_VERSION 7u

/* The tool page (engine/core/tool_page.h), mapped by backstep at this fixed
 * address in every recorded and replayed process. Offsets hold code: */
#define BS_TOOL_PAGE_ADDR 0x70000000ul
/* `syscall; ret`: the seccomp filter lets a call from here run without a
 * stop (the filter sees the address after the instruction, +2). */
#define BS_UNTRACED_SYSCALL_ADDR (BS_TOOL_PAGE_ADDR + 0x10)
#define BS_UNTRACED_SYSCALL_IP (BS_UNTRACED_SYSCALL_ADDR + 2)
/* `syscall; ret`: an ordinary (traced) call, for the library's own calls. */
#define BS_TRACED_SYSCALL_ADDR (BS_TOOL_PAGE_ADDR + 0x20)

/* A system call number the kernel does not have (natively: -ENOSYS, and the
 * library then never buffers). Arguments: buffer address, buffer size, stub
 * area address, stub area size, trampoline address, BS_PRELOAD_VERSION.
 * Returns 0 when backstep accepted the buffer. */
#define BS_CALL_REGISTER_BUFFER 0x5b5001l

/* Another number the kernel does not have: the pseudo call of a patched
 * rdtsc (preload/tsc_call.c). Its stub enters the trampoline through
 * bs_tsc_entry, which stands this many bytes before bs_syscall_trampoline
 * and sets rax to it; its record holds the counter's value in `ret`. */
#define BS_CALL_RDTSC 0x5b5002l
#define BS_TSC_ENTRY_BEFORE_TRAMPOLINE 16
/* The same for a patched rdtscp, through bs_tscp_entry: its record holds
 * the counter in `ret` and IA32_TSC_AUX (what rdtscp puts in ecx) in
 * `check`. */
#define BS_CALL_RDTSCP 0x5b5003l
#define BS_TSCP_ENTRY_BEFORE_TRAMPOLINE 32

/* Per-thread buffer: a header, then records, and at its end the stack the
 * library's hook runs on (BS_HOOK_STACK_SIZE): record and replay run
 * different code there, whose leftovers must not be in the program's own
 * stack, which backstep's state digests read. */
#define BS_BUFFER_SIZE (1u << 20)
#define BS_HOOK_STACK_SIZE (16u << 10)
/* Where the library maps buffers (MAP_FIXED_NOREPLACE, the first free
 * BS_BUFFER_SIZE slot): backstep leaves this region out of its digests of
 * the program's state (engine/core/state_digest.h), since a buffer's header
 * differs between record and replay. */
#define BS_BUFFER_REGION_START 0x70100000ul
#define BS_BUFFER_REGION_END 0x80000000ul
#define BS_MAX_FDS 1024
/* The bits of bs_buffer_header.kept_out: a few hundred mapped files leave
 * about one file in a hundred out by mistake (it is then traced once). */
#define BS_KEPT_OUT_BITS 4096u

enum bs_mode {
  BS_MODE_OFF = 0,     /* not registered (or refused): every call is traced */
  BS_MODE_RECORD = 1,  /* written by the recorder at registration */
  BS_MODE_REPLAY = 2,  /* written by the replayer at the registration event */
};

struct bs_buffer_header {
  uint32_t version;  /* the library writes BS_PRELOAD_VERSION */
  uint32_t mode;     /* enum bs_mode, written by backstep */
  /* Record: bytes of records after the header, appended by the library and
   * set back to 0 by the recorder at each flush. Replay: bytes of records
   * the last BufferFlush event wrote; `cursor` is how many the library has
   * consumed (the event sets it to 0). */
  uint32_t used;
  uint32_t cursor;
  /* Set by the library while it is inside a hook (1) and cleared on the way
   * out: the recorder takes no forced position and delivers no signal while
   * it is set. */
  uint32_t busy;
  /* Set by the recorder while the thread runs: the next bufferable call
   * takes the traced path (a switch point), and the library clears it. */
  uint32_t yield;
  /* Replay: the library found a record it did not expect (see
   * bs_divergence); it writes the details here and executes ud2. */
  uint32_t diverged_nr;      /* the call the program made */
  uint32_t diverged_reason;  /* enum bs_divergence */
  /* Buffered calls completed by this thread, never reset (a position
   * coordinate: calls since the thread's last event). */
  uint64_t calls;
  /* Record mode, the desched event (preload/desched.c): a per-thread
   * software perf event counting context switches, armed around a call that
   * may block. Its signal goes to the recorder, which then looks whether
   * the thread waits in the untraced call and, if so, abandons the buffered
   * attempt (the call's result becomes BS_RESULT_ABANDONED and the library
   * makes it again on the traced path, where other threads can run).
   * desched_fd and desched_tid belong to the library (-1 and 0 until it
   * opened one; the tid tells a fork's child that the descriptor it
   * inherited counts its parent); backstep writes the other two at
   * registration. */
  int32_t desched_fd;
  uint32_t desched_tid;
  uint32_t recorder_tid;    /* the recording thread: the event's signal goes there */
  uint32_t desched_signal;  /* F_SETSIG's signal */
  /* Record mode, the library's: after a call that blocked (abandoned), the
   * next skip_left calls of the same number on the same first argument take
   * the traced path at once, without arming the event (a strict ping-pong
   * would pay for the abandonment every time). skip_next is how many the
   * next abandonment skips: doubled each time one follows a skip, back to
   * BS_SKIP_AFTER_BLOCK when such a call completes without blocking. */
  uint32_t skip_nr;
  uint32_t skip_left;
  uint64_t skip_arg;
  uint32_t skip_next;
  /* Record mode: set by the recorder while a recorded tracer of this thread
   * (ptrace, emulated) asks for its system-call stops: every call then
   * takes the traced path. Replay needs nothing: a call traced in the
   * recording has no record, and the library traces it there too. */
  uint32_t traced;
  /* One bit per descriptor: calls gated on a descriptor (BS_GATE_FD) are
   * buffered only when its bit is set in fd_allowed (a file: the call does
   * not block) or, for BS_CALL_MAY_BLOCK calls, in fd_blocking (a pipe or
   * a socket: the call is made with the desched event armed). Written by
   * the recorder, which records each write as memory its event wrote, so
   * replay sees the same bits at the same moments. */
  uint64_t fd_allowed[BS_MAX_FDS / 64];
  uint64_t fd_blocking[BS_MAX_FDS / 64];
  /* Record mode: what the library needs to put a descriptor that a buffered
   * call created (BS_CALL_OPENS_FD: openat) into a gate itself, by the
   * rules the recorder applies at a traced call on it (engine/record/
   * buffer_gates.cc): with no stop between an open and the first call on
   * the new descriptor, the recorder never sees it in time. Written by the
   * recorder at registration (and kept_out whenever a file is mapped), not
   * recorded: the record carries the library's decision, which replay
   * applies (`check` of an OPENS_FD record). */
  uint32_t gate_opens;  /* 1: the library may; 0 (a header no recorder wrote): it leaves them out */
  /* The process whose descriptors the gates are about. Another one that
   * shares the buffer's memory (a vfork child, clone(CLONE_VM)) has a
   * descriptor table of its own: the library leaves its new descriptors
   * out, and so does the recorder (a bit set for them would stay in its
   * parent's gates, for numbers that are not the same files there). */
  uint32_t gate_pid;
  uint64_t proc_dev;    /* st_dev of /proc: its files stay out */
  /* A Bloom filter (bs_kept_out) of the files whose descriptors stay out:
   * backstep's own stdout and stderr (writes there are echoed) and every
   * file a recorded process has mapped (writes to it change the mappings'
   * memory). A file it does not hold is none of them. */
  uint64_t kept_out[BS_KEPT_OUT_BITS / 64];
  /* Record mode, where the kernel makes rdtsc fault (the library's own
   * would fault too): the counter the library gives a patched rdtsc or
   * rdtscp is made from CLOCK_MONOTONIC_RAW by bs_tsc_from_ns, as the
   * recorder makes the value of each one it traps (engine/core/
   * tsc_clock.h), so that the two kinds of reads agree. tsc_mult 0: the
   * library reads the counter itself (the kernel lets rdtsc run, and the
   * recorder patched the program's sites). Written by the recorder at
   * registration, not recorded: the record holds the value. */
  uint64_t tsc_base;     /* the counter at tsc_base_ns */
  uint64_t tsc_base_ns;  /* CLOCK_MONOTONIC_RAW, in nanoseconds */
  uint64_t tsc_mult;     /* counter ticks per nanosecond, 32.32 fixed point */
  /* Record mode: 1 while the thread made rdtsc fault for itself
   * (PR_SET_TSC): a patched read then takes the traced path, and faults. */
  uint32_t tsc_faults;
  uint32_t tsc_reserved;
};

/* The counter at CLOCK_MONOTONIC_RAW time `ns` (not before base_ns). */
static inline uint64_t bs_tsc_from_ns(uint64_t base, uint64_t base_ns, uint64_t mult, uint64_t ns) {
  return base + (uint64_t)(((unsigned __int128)(ns - base_ns) * mult) >> 32);
}

/* The result the recorder gives a buffered call it abandoned (the thread
 * blocked in it, or a signal interrupted it): the kernel never returns it.
 * The library then takes the traced path with the program's registers. */
#define BS_RESULT_ABANDONED (-4095l)
/* The library keeps each thread's desched descriptor at this number or
 * above (F_DUPFD_CLOEXEC), out of the way of the program's own. */
#define BS_DESCHED_FD_MIN 900
/* How many calls skip_left lets through traced after an abandonment, at
 * first and at most. */
#define BS_SKIP_AFTER_BLOCK 8u
#define BS_SKIP_MAX 1024u
/* The largest write-like call buffered on a descriptor that may block: up
 * to PIPE_BUF a pipe takes it whole or not at all (a write that blocks is
 * then interrupted before it wrote anything, and made again traced); a
 * larger one could be cut short by the recorder's interrupt. */
#define BS_BLOCKING_WRITE_MAX 4096u

enum bs_divergence {
  BS_DIVERGED_NONE = 0,
  BS_DIVERGED_NR = 1,     /* the next record is of another system call */
  BS_DIVERGED_DATA = 2,   /* a write-like call's data hash differs */
  BS_DIVERGED_SIZE = 3,   /* an output is larger than the program's argument allows */
};

/* One buffered call. Outputs follow the header in the order of the call's
 * table entry (struct bs_buffered_call), each out_len[i] bytes, then padding
 * to 8. */
#define BS_MAX_OUTS 4
struct bs_record {
  uint32_t size;  /* this record with its data and padding, a multiple of 8 */
  uint32_t nr;
  int64_t ret;
  /* Write-like calls: bs_hash of the bytes the call consumed (ret bytes at
   * the data argument); replay recomputes it and reports a difference.
   * BS_CALL_CLOSES_FD calls: the descriptor. BS_CALL_OPENS_FD calls: the
   * gate the new descriptor (the result) went into, enum bs_opened. */
  uint64_t check;
  uint32_t out_len[BS_MAX_OUTS];
};

/* How a buffered call's descriptor gates it. */
#define BS_GATE_NONE 0xff  /* always bufferable */

/* Output size rules: the same as the syscall spec's OUTPUTS
 * (engine/core/syscalls/syscalls.spec), evaluated after the call. */
enum bs_size_kind {
  BS_SIZE_FIXED = 0,      /* size bytes */
  BS_SIZE_RET = 1,        /* the result, in bytes */
  BS_SIZE_RET_TIMES = 2,  /* the result times size */
  BS_SIZE_ARG = 3,        /* argument size_arg, in bytes */
  BS_SIZE_ARG_TIMES = 4,  /* argument size_arg times size */
  BS_SIZE_DEREF_ARG = 5,  /* the uint32 argument size_arg points at: buffered
                           * only when the output's pointer is null */
  BS_SIZE_FDSET = 6,      /* select's fd_set: (int)argument size_arg rounded up to
                           * 64 bits, in bytes; above BS_MAX_FDS bits: traced */
  /* The indirect kinds: the output is memory described by memory. The
   * library reads those descriptions before the call with a system call
   * that fails cleanly on a bad pointer (bs_prepare_indirect), never with a
   * load that could fault where the kernel would answer EFAULT. */
  BS_SIZE_SCATTER = 7,    /* the result in bytes, spread over the iovec array at
                           * argument arg (its count in argument size_arg) */
  BS_SIZE_MSG_NAME = 8,   /* the msghdr at argument arg: what recvmsg wrote at
                           * msg_name (the smaller of msg_namelen before and after) */
  BS_SIZE_MSG_IOV = 9,    /* the msghdr at argument arg: the result in bytes over
                           * its iovec array */
};

struct bs_out_param {
  uint8_t arg;        /* which argument points at the output */
  uint8_t kind;       /* enum bs_size_kind */
  uint8_t size_arg;
  uint8_t flags;      /* BS_OUT_* */
  uint32_t size;
};

/* bs_out_param.flags. ALWAYS: the kernel writes the output even when the
 * call fails (the time left of select, pselect6 and ppoll, rewritten when a
 * signal interrupts them or a descriptor is bad): the library then copies
 * it too, through a read that cannot fault (BS_SIZE_FIXED outputs only). */
#define BS_OUT_ALWAYS 1u

/* The bytes an output of kind `kind` holds once a call succeeded: the one
 * rule of both sides, the recorder's for a traced call
 * (engine/core/syscalls/output_size.h) and the library's for a buffered one
 * (bs_out_len, preload/buffer_layout.h, which bounds it first). `size` is
 * the output's bytes or multiplier; `value` is argument size_arg for
 * BS_SIZE_ARG, BS_SIZE_ARG_TIMES and BS_SIZE_FDSET, and for
 * BS_SIZE_DEREF_ARG the uint32 that argument points at, read after the
 * call. Products wrap as uint64_t (the callers bound them). The indirect
 * kinds answer 0: their callers measure them. */
#define BS_DEREF_MAX (1u << 16)     /* the most a DEREF_ARG length counts */
#define BS_FDSET_MAX_FDS (1 << 16)  /* the most descriptors an fd_set counts */
static inline uint64_t bs_output_size(uint8_t kind, uint32_t size, uint64_t value, int64_t ret) {
  switch (kind) {
    case BS_SIZE_FIXED: return size;
    case BS_SIZE_RET: return ret > 0 ? (uint64_t)ret : 0;
    case BS_SIZE_RET_TIMES: return ret > 0 ? (uint64_t)ret * size : 0;
    case BS_SIZE_ARG: return value;
    case BS_SIZE_ARG_TIMES: return value * size;
    case BS_SIZE_DEREF_ARG: return value < BS_DEREF_MAX ? value : BS_DEREF_MAX;
    case BS_SIZE_FDSET: {
      /* The kernel takes nfds as an int, and writes no more than its
       * descriptor table holds: beyond, the bytes counted are unchanged. */
      int32_t nfds = (int32_t)value;
      if (nfds <= 0) return 0;
      return ((uint64_t)(nfds < BS_FDSET_MAX_FDS ? nfds : BS_FDSET_MAX_FDS) + 63) / 64 * 8;
    }
    default: return 0;
  }
}

/* One bufferable system call, as generated from the spec into
 * preload/syscall_buffer_table.generated.h (BS_BUFFERED_CALLS). */
struct bs_buffered_call {
  int32_t nr;
  uint8_t fd_arg;      /* the descriptor argument that gates it, or BS_GATE_NONE */
  uint8_t data_arg;    /* write-like: the argument holding the data, else BS_GATE_NONE */
  uint8_t out_count;
  uint8_t flags;       /* BS_CALL_* */
  struct bs_out_param outs[BS_MAX_OUTS];
  /* Operation gate (futex's, fcntl's command): buffered only when argument
   * op_arg, masked with op_mask, is below 64 with its bit set in op_values;
   * with BS_CALL_OP_EXACT, only when it equals op_values (ioctl's request).
   * BS_GATE_NONE: no such gate. */
  uint8_t op_arg;
  /* Null gate: buffered only when argument null_arg is 0 (ppoll's,
   * pselect6's and epoll_pwait's signal mask), BS_GATE_NONE: no such gate. */
  uint8_t null_arg;
  /* The argument holding the iovec array (its count in the next argument)
   * of a SCATTER output or a GATHER call, or the msghdr of a BS_CALL_MSG
   * call; BS_GATE_NONE: none. */
  uint8_t indirect_arg;
  /* Path gate: argument path_arg is a path, and the call is buffered only
   * when it does not start with "/proc/" (replay follows opens of
   * /proc/.../comm through traced events: engine/replay/comm_files.h);
   * record mode reads it without faulting. BS_GATE_NONE: no such gate. */
  uint8_t path_arg;
  uint32_t op_mask;
  uint64_t op_values;
};

/* bs_buffered_call.flags. CLOSES_FD: a successful call closes the gating
 * descriptor: the library clears the descriptor's bit in its own buffer (in
 * record and replay alike), and the recorder, at the flush, in the other
 * threads' buffers of the process and in what it knows of descriptors. */
#define BS_CALL_CLOSES_FD 1u
/* GATHER: a write-like call whose data argument is an iovec array (its
 * count in the next argument), or with MSG a msghdr holding one: `check`
 * hashes the ret bytes it consumed, buffer by buffer (bs_hash_iov). */
#define BS_CALL_GATHER 2u
/* MAY_BLOCK: the call may wait (for a pipe, a socket, poll's descriptors).
 * Ungated, it is always made with the desched event armed; gated, when its
 * descriptor's fd_blocking bit is set (fd_allowed: it cannot block there). */
#define BS_CALL_MAY_BLOCK 4u
/* MSG: argument indirect_arg is a struct msghdr (sendmsg, recvmsg): the
 * call is buffered only without ancillary data (msg_controllen 0); its
 * iovec array holds the data (with GATHER) or receives it (the
 * BS_SIZE_MSG_* outputs). */
#define BS_CALL_MSG 8u
/* NULL_AT: the null gate's argument may also point at a null word
 * (pselect6's {sigmask, size} pair without a mask). Record mode reads it
 * without faulting; replay needs no gate, since a record is left exactly
 * where recording buffered the call. */
#define BS_CALL_NULL_AT 16u
/* OPENS_FD: a success returns a new descriptor (openat). In record mode
 * the library sees what it is (fstat, through the untraced instruction) and
 * puts it into a gate where the recorder would (gate_opens, proc_dev,
 * kept_out), and writes its decision into the record's `check`; in both
 * modes it then sets that bit from the record, so replay sees the same
 * gates at the same call. */
#define BS_CALL_OPENS_FD 32u
/* OP_EXACT: the operation gate compares (see op_values). The table then
 * holds one entry per value, next to each other, each with the outputs that
 * value writes (ioctl's TCGETS writes a struct termios, FIONREAD an int). */
#define BS_CALL_OP_EXACT 64u
/* The gate a BS_CALL_OPENS_FD record's descriptor went into. */
enum bs_opened {
  BS_OPENED_NONE = 0,      /* none: the first gated call on it is traced */
  BS_OPENED_ALLOWED = 1,   /* fd_allowed: a file, a directory, /dev/null */
  BS_OPENED_BLOCKING = 2,  /* fd_blocking: a FIFO */
};
/* The most iovec entries of a buffered call whose iovec array the library
 * reads before the call (readv's, recvmsg's, a writev that may block):
 * more take the traced path. */
#define BS_IOV_MAX 64u
/* struct msghdr on x86-64 and the offsets the library reads. */
#define BS_MSGHDR_SIZE 56u
#define BS_MSG_NAME 0u
#define BS_MSG_NAMELEN 8u
#define BS_MSG_IOV 16u
#define BS_MSG_IOVLEN 24u
#define BS_MSG_CONTROLLEN 40u
/* The most a socket address takes (struct sockaddr_storage). */
#define BS_SOCKADDR_MAX 128u

/* A patched syscall site (the `syscall` and the instructions after it that
 * the jump covers, "displaced") jumps to a stub (written by the recorder
 * into the library's stub area, BS_STUB_SIZE bytes each, at a multiple of
 * BS_STUB_SIZE):
 *
 *   stub:    lea -128(%rsp),%rsp         step over the red zone
 *            call trampoline             returns to R (the next address) ...
 *   R:       lea 128(%rsp),%rsp          ... when the library handled the call
 *            <the displaced instructions>
 *            jmp <site + patched length>
 *   R+BS_STUB_TRACED_DELTA:              ... or here when it did not:
 *            lea 128(%rsp),%rsp
 *            syscall                      the traced call, with every
 *            <the displaced instructions> register as at the original site
 *            jmp <site + patched length>
 *   stub+BS_STUB_INFO_OFFSET:            struct bs_stub_info, never executed
 *
 * The displaced instructions are copied as they are, except that a
 * rip-relative operand is re-addressed and a jmp or jcc becomes its rel32
 * form, to the same destinations. A `ret` (with the alignment padding the
 * jump overwrites after it) ends the copy.
 *
 * Trampoline contract (preload/trampoline.S): entered with every register
 * as at the original `syscall` instruction (rax = number, arguments in rdi,
 * rsi, rdx, r10, r8, r9), rsp 8-byte aligned. Handled: returns to R with rax
 * = the result, rcx and r11 as they were at the site, every other general
 * register and rflags preserved. Not handled: returns to R +
 * BS_STUB_TRACED_DELTA with every register and rflags exactly as at entry.
 * It never touches vector or x87 state. */
#define BS_STUB_SIZE 128u
#define BS_STUB_TRACED_DELTA 40u
#define BS_STUB_AREA_SIZE (BS_STUB_SIZE * 1024u)
/* The most bytes the copies of the displaced instructions take, and the
 * most instructions displaced. */
#define BS_STUB_MAX_COPY 27u
#define BS_STUB_MAX_DISPLACED 4u
#define BS_STUB_INFO_MAGIC 0x62737362u /* "bssb" */

/* What a stub stands for, so that the engine can show a thread inside it
 * at the matching place of the original code. Offsets of the displaced
 * instructions: in the original code from the site (the first is 2, after
 * the `syscall`), and in each copy from the copy's start. */
struct bs_stub_info {
  uint64_t site;
  uint32_t magic;
  uint8_t site_length; /* bytes the jump and its padding cover */
  uint8_t count;       /* displaced instructions */
  uint8_t copy_length; /* bytes of one copy, without the jmp back */
  uint8_t reserved0;
  uint8_t original[BS_STUB_MAX_DISPLACED];
  uint8_t copied[BS_STUB_MAX_DISPLACED];
  uint64_t reserved1;
};
#define BS_STUB_INFO_OFFSET (BS_STUB_SIZE - 32u)
/* The stub area's first stub slot is reserved: its first 8 bytes count the
 * slots in use (the recorder reads and writes it; a fork's child inherits
 * it with the code, and a vfork child shares it). */

/* A word-wise hash of n bytes (the `check` of write-like records): cheap in
 * the library (four independent lanes, so that the multiplications overlap),
 * identical in the engine. */
static inline uint64_t bs_hash(const void *p, uint64_t n) {
  const unsigned char *b = (const unsigned char *)p;
  const uint64_t k = 0x100000001b3ull;
  uint64_t h0 = 0x9e3779b97f4a7c15ull ^ n, h1 = h0 + 1, h2 = h0 + 2, h3 = h0 + 3;
  uint64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    uint64_t w[4];
    __builtin_memcpy(w, b + i, 32);
    h0 = (h0 ^ w[0]) * k;
    h1 = (h1 ^ w[1]) * k;
    h2 = (h2 ^ w[2]) * k;
    h3 = (h3 ^ w[3]) * k;
    h0 ^= h0 >> 29;
    h1 ^= h1 >> 29;
    h2 ^= h2 >> 29;
    h3 ^= h3 >> 29;
  }
  uint64_t h = ((h0 * k ^ h1) * k ^ h2) * k ^ h3;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    __builtin_memcpy(&w, b + i, 8);
    h = (h ^ w) * k;
    h ^= h >> 29;
  }
  for (; i < n; ++i) h = (h ^ b[i]) * k;
  return h;
}

/* bs_hash over the first n bytes of an iovec array's buffers (struct iovec
 * is two 64-bit words: base, length). */
static inline uint64_t bs_hash_iov(const uint64_t *iov, uint64_t count, uint64_t n) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
  for (uint64_t i = 0; i < count && n > 0; ++i) {
    uint64_t len = iov[2 * i + 1] < n ? iov[2 * i + 1] : n;
    h = (h ^ bs_hash((const void *)(uintptr_t)iov[2 * i], len)) * 0x100000001b3ull;
    n -= len;
  }
  return h;
}

/* Where a file (st_dev, st_ino) sits in bs_buffer_header.kept_out: two bits
 * of a 64-bit mix of the pair, the same in the recorder and the library. */
static inline uint64_t bs_file_hash(uint64_t dev, uint64_t ino) {
  uint64_t h = dev * 0x9e3779b97f4a7c15ull ^ ino;
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
  return h ^ (h >> 31);
}
static inline uint32_t bs_kept_out_bit(uint64_t hash, int which) {
  return (uint32_t)(which ? hash >> 32 : hash) % BS_KEPT_OUT_BITS;
}
static inline int bs_kept_out(const uint64_t *filter, uint64_t dev, uint64_t ino) {
  uint64_t h = bs_file_hash(dev, ino);
  for (int i = 0; i < 2; ++i) {
    uint32_t b = bs_kept_out_bit(h, i);
    if (!((filter[b / 64] >> (b % 64)) & 1)) return 0;
  }
  return 1;
}

#ifdef __cplusplus
static_assert(sizeof(bs_buffer_header) == 96 + 2 * (BS_MAX_FDS / 8) + BS_KEPT_OUT_BITS / 8 + 32, "bs_buffer_header layout");
static_assert(sizeof(bs_record) == 40, "bs_record layout");
static_assert(sizeof(bs_out_param) == 8, "bs_out_param layout");
static_assert(sizeof(bs_buffered_call) == 24 + 8 * BS_MAX_OUTS, "bs_buffered_call layout");
static_assert(sizeof(bs_stub_info) == 32, "bs_stub_info layout");
static_assert(BS_STUB_TRACED_DELTA >= 8 + BS_STUB_MAX_COPY + 5, "handled path too long");
static_assert(5 + 5 + BS_STUB_TRACED_DELTA + 8 + 2 + BS_STUB_MAX_COPY + 5 <= BS_STUB_INFO_OFFSET, "stub too small");
#else
_Static_assert(sizeof(struct bs_buffer_header) == 96 + 2 * (BS_MAX_FDS / 8) + BS_KEPT_OUT_BITS / 8 + 32,
               "bs_buffer_header layout");
_Static_assert(sizeof(struct bs_record) == 40, "bs_record layout");
_Static_assert(sizeof(struct bs_out_param) == 8, "bs_out_param layout");
_Static_assert(sizeof(struct bs_buffered_call) == 24 + 8 * BS_MAX_OUTS, "bs_buffered_call layout");
_Static_assert(sizeof(struct bs_stub_info) == 32, "bs_stub_info layout");
#endif

#endif
