// scenario: signal handlers invoked synchronously: raise(SIGUSR1) with an
// SA_SIGINFO handler, kill/tgkill to self, a blocked signal left pending
// (sigpending) then delivered on unblock, SA_RESETHAND, SA_NODEFER nesting,
// sigqueue with a value, and the handler's own mask.
#include "scenario.h"

#include <signal.h>
#include <sys/syscall.h>

static volatile sig_atomic_t count1, count2, depth, max_depth, last_code, last_value;
static volatile sig_atomic_t usr2_blocked_in_handler;

static void on_usr1(int sig, siginfo_t* si, void* ctx) {
  (void)ctx;
  CHECK(sig == SIGUSR1 || sig == SIGRTMIN);
  count1++;
  last_code = si->si_code;
  last_value = si->si_value.sival_int;
  sigset_t cur;
  sigprocmask(SIG_BLOCK, NULL, &cur);
  usr2_blocked_in_handler = sigismember(&cur, SIGUSR2);
}

static void on_usr2(int sig) {
  (void)sig;
  count2++;
  depth++;
  if (depth > max_depth) max_depth = depth;
  if (depth < 3) raise(SIGUSR2);  // nests because of SA_NODEFER
  depth--;
}

static void on_usr2_once(int sig) {
  (void)sig;
  count2++;
}

static const char* code_name(int c) {
  switch (c) {
    case SI_USER: return "SI_USER";
    case SI_TKILL: return "SI_TKILL";
    case SI_QUEUE: return "SI_QUEUE";
    default: return "other";
  }
}

int main(void) {
  struct sigaction sa = {0};
  sa.sa_sigaction = on_usr1;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGUSR2);
  SYS(sigaction(SIGUSR1, &sa, NULL));

  SYS(raise(SIGUSR1));
  printf("after raise: count %d code %s, SIGUSR2 blocked in handler %d\n", (int)count1,
         code_name(last_code), (int)usr2_blocked_in_handler);
  SYS(kill(getpid(), SIGUSR1));
  printf("after kill: count %d code %s\n", (int)count1, code_name(last_code));
  SYS(syscall(SYS_tgkill, getpid(), gettid(), SIGUSR1));
  printf("after tgkill: count %d code %s\n", (int)count1, code_name(last_code));
  union sigval val = {.sival_int = 1234};
  SYS(sigqueue(getpid(), SIGUSR1, val));
  printf("after sigqueue: count %d code %s value %d\n", (int)count1, code_name(last_code),
         (int)last_value);

  sigset_t block, pending;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR1);
  SYS(sigprocmask(SIG_BLOCK, &block, NULL));
  raise(SIGUSR1);
  raise(SIGUSR1);  // a standard signal is pending only once
  SYS(sigpending(&pending));
  printf("blocked: count %d, pending %d\n", (int)count1, sigismember(&pending, SIGUSR1));
  SYS(sigprocmask(SIG_UNBLOCK, &block, NULL));
  printf("unblocked: count %d\n", (int)count1);

  struct sigaction sb = {0};
  sb.sa_handler = on_usr2;
  sb.sa_flags = SA_NODEFER;
  SYS(sigaction(SIGUSR2, &sb, NULL));
  raise(SIGUSR2);
  printf("SA_NODEFER: handler ran %d times, max depth %d\n", (int)count2, (int)max_depth);

  sb.sa_handler = on_usr2_once;
  sb.sa_flags = SA_RESETHAND;
  SYS(sigaction(SIGUSR2, &sb, NULL));
  raise(SIGUSR2);
  struct sigaction now;
  SYS(sigaction(SIGUSR2, NULL, &now));
  printf("SA_RESETHAND: count %d, handler reset to default: %s\n", (int)count2,
         now.sa_handler == SIG_DFL ? "yes" : "no");

  signal(SIGUSR2, SIG_IGN);
  raise(SIGUSR2);
  printf("ignored SIGUSR2 survived\n");
  // Real-time signals queue.
  struct sigaction rt = {0};
  rt.sa_sigaction = on_usr1;
  rt.sa_flags = SA_SIGINFO;
  SYS(sigaction(SIGRTMIN, &rt, NULL));
  sigset_t rtset;
  sigemptyset(&rtset);
  sigaddset(&rtset, SIGRTMIN);
  SYS(sigprocmask(SIG_BLOCK, &rtset, NULL));
  int before = count1;
  for (int i = 0; i < 3; i++) {
    val.sival_int = 100 + i;
    SYS(sigqueue(getpid(), SIGRTMIN, val));
  }
  SYS(sigprocmask(SIG_UNBLOCK, &rtset, NULL));
  printf("real-time signals delivered: %d, last value %d\n", (int)(count1 - before),
         (int)last_value);
  return 0;
}
