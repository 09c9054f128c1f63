// scenario: SIGSEGV handlers that siglongjmp out: a write to a page made
// read-only by mprotect (SEGV_ACCERR), to PROT_NONE memory, and through a
// null pointer (SEGV_MAPERR), the last one handled on an alternate stack.
#include "scenario.h"

#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>

static sigjmp_buf env;
static volatile void* fault_addr;
static volatile int fault_code;
static volatile int on_altstack;
static char altstack[64 * 1024];

static void handler(int sig, siginfo_t* si, void* ctx) {
  (void)ctx;
  fault_addr = si->si_addr;
  fault_code = si->si_code;
  char here;
  on_altstack = &here >= altstack && &here < altstack + sizeof altstack;
  CHECK(sig == SIGSEGV);
  siglongjmp(env, 1);
}

static void attempt(const char* what, volatile char* target, int expect_code) {
  if (sigsetjmp(env, 1) == 0) {
    *target = 1;
    printf("%s: no fault?\n", what);
    return;
  }
  printf("%s: caught SIGSEGV, code %s, address matches %s, on altstack %d\n", what,
         fault_code == SEGV_ACCERR ? "SEGV_ACCERR"
         : fault_code == SEGV_MAPERR ? "SEGV_MAPERR"
                                     : "other",
         fault_addr == (void*)target ? "yes" : "no", on_altstack);
  CHECK(fault_code == expect_code);
}

int main(void) {
  long page = sysconf(_SC_PAGESIZE);
  struct sigaction sa = {0};
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  SYS(sigaction(SIGSEGV, &sa, NULL));

  char* p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(p != MAP_FAILED);
  p[0] = 'w';
  SYS(mprotect(p, page, PROT_READ));
  for (int i = 0; i < 3; i++) attempt("write to read-only page", p + 8 * i, SEGV_ACCERR);
  SYS(mprotect(p + page, page, PROT_NONE));
  attempt("write to PROT_NONE page", p + page + 5, SEGV_ACCERR);

  stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack, .ss_flags = 0};
  SYS(sigaltstack(&ss, NULL));
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  SYS(sigaction(SIGSEGV, &sa, NULL));
  attempt("null pointer write", (volatile char*)0, SEGV_MAPERR);
  attempt("write to address 16", (volatile char*)16, SEGV_MAPERR);

  // The signal mask was restored by siglongjmp: SIGSEGV is not blocked.
  sigset_t cur;
  SYS(sigprocmask(SIG_BLOCK, NULL, &cur));
  printf("SIGSEGV blocked after siglongjmp: %d\n", sigismember(&cur, SIGSEGV));
  SYS(mprotect(p, 2 * page, PROT_READ | PROT_WRITE));
  p[1] = 'x';
  printf("writable again: %c%c\n", p[0], p[1]);
  return 0;
}
