// scenario: a program that makes rdtsc fault for itself (prctl PR_SET_TSC,
// PR_TSC_SIGSEGV), as sandboxes and timing-attack tests do: rdtsc and
// rdtscp then raise SIGSEGV (SI_KERNEL) in the thread that asked, in a
// thread it creates afterwards and in a forked child, PR_GET_TSC says so,
// and PR_TSC_ENABLE gives the counter back. backstep traps rdtsc itself
// either way; the program must see what it asked for.
// requires: threads
// requires: tsc-fault
#include "proc_util.h"

#include <pthread.h>
#include <setjmp.h>
#include <sys/prctl.h>
#include <x86intrin.h>

static __thread sigjmp_buf jump;
static __thread int faults;
static volatile int last_code;

static void on_segv(int sig, siginfo_t* info, void* ctx) {
  (void)sig;
  (void)ctx;
  last_code = info->si_code;
  faults++;
  siglongjmp(jump, 1);
}

// 1 when rdtsc (or rdtscp) faulted, 0 when it ran.
static int rdtsc_faults(int with_p) {
  if (sigsetjmp(jump, 1) != 0) return 1;
  unsigned aux;
  volatile unsigned long long v = with_p ? __rdtscp(&aux) : __rdtsc();
  (void)v;
  return 0;
}

static int tsc_mode(void) {
  int mode = -1;
  CHECK(prctl(PR_GET_TSC, &mode, 0, 0, 0) == 0);
  return mode;
}

static void* thread_main(void* arg) {
  (void)arg;
  int f = rdtsc_faults(0);
  child_say("thread: mode %d, rdtsc faults %d\n", tsc_mode(), f);
  return NULL;
}

// Whether PR_SET_TSC(PR_TSC_SIGSEGV) makes rdtsc fault here (some
// hypervisors accept it and run rdtsc anyway).
static int tsc_can_fault(void) {
  if (prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0) != 0) return 0;
  volatile int faulted = 0;
  if (sigsetjmp(scenario_probe_jump, 1) == 0) {
    volatile unsigned long long v = __rdtsc();
    (void)v;
  } else {
    faulted = 1;
  }
  prctl(PR_SET_TSC, PR_TSC_ENABLE, 0, 0, 0);
  return faulted;
}

int main(void) {
  require_machine("rdtsc faults after PR_SET_TSC(PR_TSC_SIGSEGV) (the hypervisor ignores it)", tsc_can_fault);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &sa, NULL);
  printf("mode at start %d (PR_TSC_ENABLE %d), rdtsc faults %d\n", tsc_mode(), PR_TSC_ENABLE, rdtsc_faults(0));
  printf("PR_SET_TSC(PR_TSC_SIGSEGV): %d\n", prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0));
  printf("mode %d (PR_TSC_SIGSEGV %d)\n", tsc_mode(), PR_TSC_SIGSEGV);
  int a = rdtsc_faults(0), b = rdtsc_faults(1);
  printf("rdtsc faults %d, rdtscp faults %d, si_code SI_KERNEL %d\n", a, b, last_code == SI_KERNEL);
  pthread_t t;
  CHECK(pthread_create(&t, NULL, thread_main, NULL) == 0);
  CHECK(pthread_join(t, NULL) == 0);
  pid_t child = proc_fork();
  if (child == 0) {
    int f = rdtsc_faults(0);
    child_say("child: mode %d, rdtsc faults %d\n", tsc_mode(), f);
    _exit(0);
  }
  printf("child: %s\n", status_text(wait_for(child)));
  printf("PR_SET_TSC(PR_TSC_ENABLE): %d\n", prctl(PR_SET_TSC, PR_TSC_ENABLE, 0, 0, 0));
  unsigned long long t1 = __rdtsc(), t2 = __rdtsc();
  printf("mode %d, rdtsc faults %d, counts up %d\n", tsc_mode(), rdtsc_faults(0), t2 >= t1);
  nd("tsc %llu %llu\n", t1, t2);
  printf("faults in main %d\n", faults);
  return 0;
}
