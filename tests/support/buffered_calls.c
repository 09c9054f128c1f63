/* The preload library's table of bufferable calls (generated from the
 * syscall spec) and its output-size rules, for C++ tests: the generated
 * header is C, whose designated initializers C++ does not take in that
 * order, and the rules are compiled here as the library compiles them. */
#define _GNU_SOURCE  /* the generated table's sizes name GNU types (struct statx) */
#include "preload/buffer_layout.h"
#include "syscall_buffer_table.generated.h"

const struct bs_buffered_call *bs_test_buffered_calls(unsigned *count);
uint64_t bs_test_out_bound(const struct bs_out_param *out, const uint64_t *args);
uint64_t bs_test_out_len(const struct bs_out_param *out, const uint64_t *args, int64_t ret);
uint64_t bs_test_records_capacity(void);

const struct bs_buffered_call *bs_test_buffered_calls(unsigned *count) {
  *count = BS_BUFFERED_CALL_COUNT;
  return BS_BUFFERED_CALLS;
}

uint64_t bs_test_out_bound(const struct bs_out_param *out, const uint64_t *args) { return bs_out_bound(out, args); }

uint64_t bs_test_out_len(const struct bs_out_param *out, const uint64_t *args, int64_t ret) {
  return bs_out_len(out, args, ret);
}

uint64_t bs_test_records_capacity(void) { return BS_RECORDS_CAPACITY; }
