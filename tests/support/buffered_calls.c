/* The preload library's table of bufferable calls (generated from the
 * syscall spec), for C++ tests: the generated header is C, whose
 * designated initializers C++ does not take in that order. */
#define _GNU_SOURCE  /* the generated table's sizes name GNU types (struct statx) */
#include "syscall_buffer_table.generated.h"

const struct bs_buffered_call *bs_test_buffered_calls(unsigned *count);

const struct bs_buffered_call *bs_test_buffered_calls(unsigned *count) {
  *count = BS_BUFFERED_CALL_COUNT;
  return BS_BUFFERED_CALLS;
}
