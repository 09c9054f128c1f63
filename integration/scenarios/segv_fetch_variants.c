// scenario: SIGSEGV at an instruction fetch, every way round: call and jmp
// into PROT_NONE, PROT_READ and PROT_READ|PROT_WRITE pages, into an unmapped
// page, through a null pointer, to a non-canonical address (#GP, SI_KERNEL),
// from inside another signal's handler; handlers that siglongjmp out, one
// that makes the page executable and returns (the call then runs), one that
// skips the call by rewriting the context, and one on an alternate stack
// with SA_NODEFER | SA_RESETHAND.
#include "scenario.h"

#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>

typedef int (*fn)(void);
static sigjmp_buf env;
static void* volatile fault_addr;
static volatile int fault_code;
static unsigned char* volatile fix_page;
static long page;

static void record_fault(siginfo_t* si) {
  fault_addr = si->si_addr;
  fault_code = si->si_code;
}
static void jump_out(int sig, siginfo_t* si, void* ctx) {
  (void)sig, (void)ctx;
  record_fault(si);
  siglongjmp(env, 1);
}
static void make_executable(int sig, siginfo_t* si, void* ctx) {
  (void)sig, (void)ctx;
  record_fault(si);
  if (mprotect(fix_page, page, PROT_READ | PROT_EXEC) != 0) _exit(3);
}
static void skip_call(int sig, siginfo_t* si, void* ctx) {  // return to the caller with 7
  (void)sig;
  record_fault(si);
  ucontext_t* uc = ctx;
  uint64_t* sp = (uint64_t*)uc->uc_mcontext.gregs[REG_RSP];
  uc->uc_mcontext.gregs[REG_RIP] = (greg_t)*sp;
  uc->uc_mcontext.gregs[REG_RSP] += 8;
  uc->uc_mcontext.gregs[REG_RAX] = 7;
}
static const char* code_name(int c) {
  return c == SEGV_ACCERR ? "ACCERR" : c == SEGV_MAPERR ? "MAPERR" : c == SI_KERNEL ? "KERNEL" : "other";
}
static void handle(void (*h)(int, siginfo_t*, void*), int flags) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = h;
  sa.sa_flags = SA_SIGINFO | flags;
  SYS(sigaction(SIGSEGV, &sa, NULL));
}

static void via_call(const char* what, unsigned char* code) {
  if (sigsetjmp(env, 1) == 0) {
    printf("%s, call: returned %d\n", what, ((fn)code)());
    return;
  }
  printf("%s, call: SIGSEGV %s, at the target: %s\n", what, code_name(fault_code), fault_addr == code ? "yes" : "no");
}
static void via_jmp(const char* what, unsigned char* code) {
  if (sigsetjmp(env, 1) == 0) {
    int r;
    __asm__ volatile("lea 1f(%%rip), %%rcx\n push %%rcx\n jmp *%1\n1:" : "=a"(r) : "r"(code) : "rcx", "memory");
    printf("%s, jmp: returned %d\n", what, r);
    return;
  }
  printf("%s, jmp: SIGSEGV %s, at the target: %s\n", what, code_name(fault_code), fault_addr == code ? "yes" : "no");
}

static unsigned char* usr1_target;
static void on_usr1(int sig) {
  (void)sig;
  ((fn)usr1_target)();  // faults inside this handler; jump_out leaves both
}

int main(void) {
  page = sysconf(_SC_PAGESIZE);
  static const unsigned char ret42[] = {0xb8, 42, 0, 0, 0, 0xc3};  // mov $42, %eax; ret
  unsigned char* code = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(code != MAP_FAILED);
  memcpy(code, ret42, sizeof ret42);
  handle(jump_out, 0);
  SYS(mprotect(code, page, PROT_NONE));
  via_call("PROT_NONE", code);
  via_jmp("PROT_NONE", code);
  SYS(mprotect(code, page, PROT_READ));
  via_call("PROT_READ", code);
  via_jmp("PROT_READ", code);
  SYS(mprotect(code, page, PROT_READ | PROT_WRITE));
  via_call("PROT_READ|PROT_WRITE", code);
  SYS(munmap(code + page, page));
  via_call("unmapped", code + page);
  via_jmp("unmapped", code + page);
  via_call("null", NULL);
  via_jmp("non-canonical", (unsigned char*)0x8000000000000000ull);

  SYS(mprotect(code, page, PROT_NONE));
  usr1_target = code;
  signal(SIGUSR1, on_usr1);
  if (sigsetjmp(env, 1) == 0) {
    raise(SIGUSR1);
    printf("inside a SIGUSR1 handler: no fault?\n");
  } else {
    printf("inside a SIGUSR1 handler: SIGSEGV %s\n", code_name(fault_code));
  }

  handle(make_executable, 0);
  fix_page = code;
  int r = ((fn)code)();
  printf("handler made it executable: returned %d, SIGSEGV %s\n", r, code_name(fault_code));

  SYS(mprotect(code, page, PROT_NONE));
  handle(skip_call, 0);
  r = ((fn)code)();
  printf("handler skipped the call: returned %d\n", r);

  stack_t ss = {.ss_sp = malloc(1 << 16), .ss_size = 1 << 16};
  CHECK(ss.ss_sp != NULL);
  SYS(sigaltstack(&ss, NULL));
  handle(skip_call, SA_ONSTACK | SA_NODEFER | SA_RESETHAND);
  r = ((fn)code)();
  printf("on the alternate stack: returned %d\n", r);
  struct sigaction now;
  SYS(sigaction(SIGSEGV, NULL, &now));
  printf("handler reset: %s\n", now.sa_handler == SIG_DFL ? "yes" : "no");
  return 0;
}
