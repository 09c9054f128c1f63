// scenario: queued and real-time signals: sigqueue values delivered in
// order once unblocked (real-time ones queue, a standard one merges),
// rt_sigqueueinfo and rt_tgsigqueueinfo with our own siginfo, tgkill and
// tkill, a handler running on a sigaltstack, nanosleep interrupted by a
// SA_RESTART handler (EINTR all the same), sigsuspend, an ignored SIGPWR.
#include "scenario.h"

#include <signal.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>

static int order[32], count;
static void record_value(int sig, siginfo_t* info, void* ctx) {
  (void)ctx;
  if (count < 32) order[count++] = (sig - SIGRTMIN) * 100 + info->si_value.sival_int;
}

static char alt_stack[64 * 1024];
static volatile int on_alt;
static void check_stack(int sig) {
  (void)sig;
  char here;
  on_alt = &here >= alt_stack && &here < alt_stack + sizeof alt_stack;
}

static volatile sig_atomic_t alarms;
static void on_alarm(int sig) {
  (void)sig;
  alarms++;
}

int main(void) {
  struct sigaction sa = {0};
  sa.sa_sigaction = record_value;
  sa.sa_flags = SA_SIGINFO;
  SYS(sigaction(SIGRTMIN, &sa, NULL));
  SYS(sigaction(SIGRTMIN + 1, &sa, NULL));
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGRTMIN);
  sigaddset(&block, SIGRTMIN + 1);
  SYS(sigprocmask(SIG_BLOCK, &block, &old));
  for (int i = 1; i <= 3; i++) SYS(sigqueue(getpid(), SIGRTMIN + 1, (union sigval){.sival_int = i}));
  for (int i = 4; i <= 5; i++) SYS(sigqueue(getpid(), SIGRTMIN, (union sigval){.sival_int = i}));
  siginfo_t si = {0};
  si.si_code = SI_QUEUE;
  si.si_pid = getpid();
  si.si_uid = getuid();
  si.si_value.sival_int = 7;
  SYS(syscall(SYS_rt_sigqueueinfo, getpid(), SIGRTMIN, &si));
  si.si_value.sival_int = 8;
  SYS(syscall(SYS_rt_tgsigqueueinfo, getpid(), getpid(), SIGRTMIN, &si));
  sigset_t pending;
  SYS(sigpending(&pending));
  printf("pending: %d %d\n", sigismember(&pending, SIGRTMIN), sigismember(&pending, SIGRTMIN + 1));
  SYS(sigprocmask(SIG_SETMASK, &old, NULL));
  printf("delivered %d:", count);
  for (int i = 0; i < count; i++) printf(" %d", order[i]);
  printf("\n");

  stack_t ss = {.ss_sp = alt_stack, .ss_size = sizeof alt_stack, .ss_flags = 0}, old_ss;
  SYS(sigaltstack(&ss, &old_ss));
  printf("previous altstack disabled: %d\n", !!(old_ss.ss_flags & SS_DISABLE));
  struct sigaction alt = {0};
  alt.sa_handler = check_stack;
  alt.sa_flags = SA_ONSTACK;
  SYS(sigaction(SIGUSR1, &alt, NULL));
  SYS(syscall(SYS_tgkill, getpid(), getpid(), SIGUSR1));
  printf("tgkill handler on the alternate stack: %d\n", on_alt);
  on_alt = 0;
  SYS(syscall(SYS_tkill, getpid(), SIGUSR1));
  printf("tkill handler on the alternate stack: %d\n", on_alt);

  struct sigaction al = {0};
  al.sa_handler = on_alarm;
  al.sa_flags = SA_RESTART;
  SYS(sigaction(SIGALRM, &al, NULL));
  // A periodic timer: should an expiry land before nanosleep is entered (a
  // loaded machine, or a slow tracer), the next one still interrupts it.
  struct itimerval it = {{0, 20000}, {0, 20000}}, off = {{0, 0}, {0, 0}};
  SYS(setitimer(ITIMER_REAL, &it, NULL));
  struct timespec req = {5, 0}, rem = {0, 0};
  errno = 0;
  int r = nanosleep(&req, &rem);
  SYS(setitimer(ITIMER_REAL, &off, NULL));
  printf("nanosleep: %d %s, alarms >= 1: %d, time left %d\n", r, errname(errno), alarms >= 1,
         rem.tv_sec > 0);
  nd("left %ld.%09ld, alarms %d\n", (long)rem.tv_sec, rem.tv_nsec, (int)alarms);
  // SIGALRM stays blocked until sigsuspend, so that an early expiry is held
  // pending instead of being handled before the wait begins (which would wait
  // for ever).
  sigset_t alarm_only, all_but_alarm, before;
  sigemptyset(&alarm_only);
  sigaddset(&alarm_only, SIGALRM);
  SYS(sigprocmask(SIG_BLOCK, &alarm_only, &before));
  sigfillset(&all_but_alarm);
  sigdelset(&all_but_alarm, SIGALRM);
  int alarms_before = alarms;
  it = (struct itimerval){{0, 0}, {0, 1000}};
  SYS(setitimer(ITIMER_REAL, &it, NULL));
  errno = 0;
  r = sigsuspend(&all_but_alarm);
  printf("sigsuspend: %d %s, one more alarm: %d\n", r, errname(errno), alarms == alarms_before + 1);
  SYS(sigprocmask(SIG_SETMASK, &before, NULL));
  signal(SIGPWR, SIG_IGN);
  raise(SIGPWR);
  printf("SIGPWR ignored\n");
  return 0;
}
