// scenario: an AddressSanitizer build with leak detection on (the
// default), recorded with syscall buffering: LeakSanitizer's stop-the-world
// attaches to each thread with ptrace and reads its registers, which the
// recorder emulates; the leak report and the exit status (ASan's 1) are
// the native run's, and replay reproduces them. The report's addresses and
// pid vary from run to run: stderr is not compared with the native run's.
// expect-exit: 1
// stderr: any
#include "leaks.h"
