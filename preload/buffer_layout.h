/* The arithmetic of records that recording and replay share: how much an
 * output may take (reserved before the call, checked again at replay) and
 * how much it took. What it took follows the engine's rule for traced calls
 * (bs_output_size, preload_interface.h), so a buffered call records the
 * same bytes as a traced one. */
#ifndef BACKSTEP_PRELOAD_BUFFER_LAYOUT_H
#define BACKSTEP_PRELOAD_BUFFER_LAYOUT_H

#include <stdint.h>

#include "preload/preload_internal.h"

/* Room for records after the header. */
#define BS_RECORDS_CAPACITY ((uint64_t)BS_BUFFER_SIZE - BS_HOOK_STACK_SIZE - sizeof(struct bs_buffer_header))

static inline uint64_t bs_round8(uint64_t n) { return (n + 7) & ~(uint64_t)7; }

static inline struct bs_record *bs_record_at(struct bs_buffer_header *header, uint32_t offset) {
  return (struct bs_record *)((unsigned char *)(header + 1) + offset);
}

/* The kernel's failure results: -4095..-1. */
static inline int bs_failed(int64_t ret) { return ret < 0 && ret >= -4095; }

/* The most bytes an output can take, from the arguments alone. Saturates
 * at BS_RECORDS_CAPACITY + 1 (more than any buffer holds) so that a huge
 * count never overflows. For Ret kinds size_arg is the bounding argument
 * (the generator puts it there). */
static inline uint64_t bs_out_bound(const struct bs_out_param *out, const uint64_t *args) {
  const uint64_t too_big = BS_RECORDS_CAPACITY + 1;
  uint64_t n;
  switch (out->kind) {
    case BS_SIZE_FIXED: return out->size;
    case BS_SIZE_RET:
    case BS_SIZE_ARG: n = args[out->size_arg]; return n > too_big ? too_big : n;
    case BS_SIZE_RET_TIMES:
    case BS_SIZE_ARG_TIMES:
      n = args[out->size_arg];
      return n > too_big / out->size ? too_big : n * out->size;
    case BS_SIZE_DEREF_ARG: return args[out->arg] == 0 ? 0 : too_big;  /* a null pointer writes nothing */
    case BS_SIZE_FDSET:
      /* The kernel takes nfds as an int; beyond BS_MAX_FDS bits: traced. */
      if ((int32_t)args[out->size_arg] > BS_MAX_FDS) return too_big;
      return bs_output_size(out->kind, out->size, args[out->size_arg], 0);
    default: return too_big;  /* the indirect kinds: buffer_record.c bounds them */
  }
}

/* The bytes the call wrote through the output: nothing when it failed or
 * the pointer is null; never more than the bound. (A DEREF_ARG output is
 * buffered only with a null pointer, so its length is never read here.) */
static inline uint64_t bs_out_len(const struct bs_out_param *out, const uint64_t *args, int64_t ret) {
  if (bs_failed(ret) || args[out->arg] == 0) return 0;
  uint64_t n = bs_output_size(out->kind, out->size, args[out->size_arg], ret);
  uint64_t bound = bs_out_bound(out, args);
  return n > bound ? bound : n;
}

/* The iovec array of a msghdr (struct msghdr is read as 64-bit words). */
static inline const uint64_t *bs_msg_iov(uint64_t msghdr) { return (const uint64_t *)((const uint64_t *)msghdr)[BS_MSG_IOV / 8]; }
static inline uint64_t bs_msg_iovlen(uint64_t msghdr) { return ((const uint64_t *)msghdr)[BS_MSG_IOVLEN / 8]; }

/* A write-like call's check: the hash of the n bytes it consumed (for a
 * gathering call, of its iovec array's buffers, or of its msghdr's; the
 * kernel read them all, so they are valid). */
static inline uint64_t bs_data_check(const struct bs_buffered_call *call, const uint64_t *args, uint64_t n) {
  uint64_t arg = args[call->data_arg];
  if (call->flags & BS_CALL_MSG) return bs_hash_iov(bs_msg_iov(arg), bs_msg_iovlen(arg), n);
  if (call->flags & BS_CALL_GATHER) return bs_hash_iov((const uint64_t *)arg, args[call->data_arg + 1], n);
  return bs_hash((const void *)arg, n);
}

/* The hook may not call libc's memcpy, nor touch vector registers: `rep
 * movsb` copies fast on any CPU with ERMS, with general registers only (the
 * trampoline clears the direction flag and restores it). */
static inline void bs_copy(void *dst, const void *src, uint64_t n) {
  __asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}

/* Copies up to n bytes between a flat buffer and the buffers of an iovec
 * array of count entries (two 64-bit words each: base, length), in the
 * array's order; returns how many it copied (less than n when the array
 * holds less). */
static inline uint64_t bs_gather_iov(unsigned char *dst, const uint64_t *iov, uint64_t count, uint64_t n) {
  uint64_t done = 0;
  for (uint64_t i = 0; i < count && done < n; ++i) {
    uint64_t len = iov[2 * i + 1] < n - done ? iov[2 * i + 1] : n - done;
    bs_copy(dst + done, (const void *)(uintptr_t)iov[2 * i], len);
    done += len;
  }
  return done;
}
static inline uint64_t bs_scatter_iov(const uint64_t *iov, uint64_t count, const unsigned char *src, uint64_t n) {
  uint64_t done = 0;
  for (uint64_t i = 0; i < count && done < n; ++i) {
    uint64_t len = iov[2 * i + 1] < n - done ? iov[2 * i + 1] : n - done;
    bs_copy((void *)(uintptr_t)iov[2 * i], src + done, len);
    done += len;
  }
  return done;
}

/* Orders the library's stores to the buffer with the program's view of it
 * (the recorder reads it at ptrace stops, which fall between instructions,
 * so the compiler's order is all that matters). */
#define BS_COMPILER_BARRIER() __asm__ volatile("" ::: "memory")

#endif
