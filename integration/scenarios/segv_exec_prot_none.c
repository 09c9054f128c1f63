// scenario: jumping into a PROT_NONE page (and into a readable page without
// PROT_EXEC) raises SIGSEGV at the instruction fetch, si_addr == the pc;
// the handler siglongjmps out, the page is made executable and the call
// then runs.
#include "scenario.h"

#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>

static sigjmp_buf env;
static volatile void* fault_addr;
static volatile int fault_code;

static void handler(int sig, siginfo_t* si, void* ctx) {
  (void)ctx;
  CHECK(sig == SIGSEGV);
  fault_addr = si->si_addr;
  fault_code = si->si_code;
  siglongjmp(env, 1);
}

typedef int (*fn)(void);

static void attempt(const char* what, unsigned char* code) {
  if (sigsetjmp(env, 1) == 0) {
    int r = ((fn)code)();
    printf("%s: returned %d\n", what, r);
    return;
  }
  printf("%s: caught SIGSEGV, code %s, at the entry %s\n", what,
         fault_code == SEGV_ACCERR ? "SEGV_ACCERR" : fault_code == SEGV_MAPERR ? "SEGV_MAPERR" : "other",
         fault_addr == (void*)code ? "yes" : "no");
}

int main(void) {
  long page = sysconf(_SC_PAGESIZE);
  struct sigaction sa = {0};
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  SYS(sigaction(SIGSEGV, &sa, NULL));

  unsigned char* code = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(code != MAP_FAILED);
  static const unsigned char ret42[] = {0xb8, 42, 0, 0, 0, 0xc3};  // mov $42, %eax; ret
  memcpy(code, ret42, sizeof ret42);
  SYS(mprotect(code, page, PROT_NONE));
  attempt("jump to PROT_NONE", code);
  SYS(mprotect(code, page, PROT_READ));
  attempt("jump to PROT_READ", code);
  SYS(mprotect(code, page, PROT_READ | PROT_EXEC));
  attempt("jump to PROT_EXEC", code);
  SYS(munmap(code, page));
  attempt("jump to unmapped", code);
  return 0;
}
