// scenario: a stack overflow under a 1 MiB RLIMIT_STACK (replay runs under the
// driver's own, 8 MiB): the replayed stack has the recorded room, so the
// fault comes at the same depth. The program is stack_overflow_handler's
// (a SIGSEGV handler but no alternate stack: the process dies of it).
// stack-limit: 1048576
// expect-exit: 139
#include "stack_overflow_handler.c"
