// The program fuzz/session_fuzz.cc records and serves: no libc, so that its
// whole replay is a few hundred instructions and a dozen events, and every
// resume a fuzz input makes stays short. A loop calls bump() (a breakpoint
// target), writes a global array (watchpoint targets) and makes system calls
// (events), then exits with 0.
static volatile long counter;
static volatile long values[8];

static long syscall3(long nr, long a, long b, long c) {
  long r;
  __asm__ volatile("syscall" : "=a"(r) : "a"(nr), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
  return r;
}

__attribute__((noinline)) static void bump(long i) {
  counter += i;
  values[i % 8] = counter;
}

__attribute__((force_align_arg_pointer, noreturn)) void _start(void) {
  for (long i = 1; i <= 6; i++) {
    bump(i);
    if (i % 2 == 0) syscall3(1, 1, (long)"tick\n", 5);  // write
    syscall3(39, 0, 0, 0);                               // getpid
  }
  syscall3(60, 0, 0, 0);  // exit
  __builtin_unreachable();
}
