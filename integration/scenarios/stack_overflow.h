// A recursion that never ends: each call takes 1 KiB more stack, until the
// stack's guard page (stack_overflow_*.c).
#pragma once

__attribute__((noinline)) static int recurse(int n) {
  volatile char frame[1024];
  frame[0] = (char)n;
  if (n < 0) return 0;  // never: each call goes one frame deeper
  return recurse(n + 1) + frame[0];
}
