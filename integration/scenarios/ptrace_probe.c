// scenario: the checks a program makes for a debugger: /proc/self/status's
// TracerPid, then PTRACE_TRACEME (0 natively, EPERM under any tracer such
// as backstep: "~" lines, but the two checks agree either way), and
// requests aimed at processes it does not trace (ESRCH).
#include "scenario.h"

#include <sys/ptrace.h>

static int tracer_pid(void) {
  FILE* f = fopen("/proc/self/status", "r");
  CHECK(f != NULL);
  char line[256];
  int tracer = -1;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "TracerPid:", 10) == 0) tracer = atoi(line + 10);
  }
  fclose(f);
  return tracer;
}

int main(void) {
  int tracer = tracer_pid();
  nd("TracerPid %d\n", tracer);
  errno = 0;
  long r = ptrace(PTRACE_TRACEME, 0, NULL, NULL);
  nd("PTRACE_TRACEME: %ld %s\n", r, errname(errno));
  printf("the two checks agree: %d\n", (r != 0) == (tracer != 0));
  errno = 0;
  r = ptrace(PTRACE_PEEKDATA, 1, NULL, NULL);
  printf("PEEKDATA of init: %ld %s\n", r, errno == ESRCH ? "ESRCH" : errname(errno));
  errno = 0;
  r = ptrace(PTRACE_GETEVENTMSG, 1, NULL, NULL);
  printf("GETEVENTMSG of init: %ld %s\n", r, errno == ESRCH ? "ESRCH" : errname(errno));
  return 0;
}
