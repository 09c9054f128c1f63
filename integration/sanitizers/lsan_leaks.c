// scenario: a standalone LeakSanitizer build (-fsanitize=leak): its
// stop-the-world uses ptrace, which the recorder emulates; the leak report
// and its exit status (23) are the native run's, and replay reproduces
// them. The report's addresses vary: stderr is not compared.
// expect-exit: 23
// stderr: any
#include "leaks.h"
