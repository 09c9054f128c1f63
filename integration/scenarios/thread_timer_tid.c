// scenario: a POSIX timer with SIGEV_THREAD_ID aimed at one worker: its
// SIGALRM handler runs only in that worker (index by thread-local variable)
// while main and another worker block SIGALRM; the worker waits in
// sigsuspend until 5 expirations were handled.
// requires: threads
#include "thread_util.h"

#include <signal.h>
#include <time.h>

static __thread int my_index = -1;
static volatile sig_atomic_t handled, wrong_thread;
static volatile pid_t target_tid;

static void on_alarm(int sig) {
  (void)sig;
  if (my_index != 1) wrong_thread++;
  handled++;
}

static void* worker(void* arg) {
  my_index = (int)(intptr_t)arg;
  if (my_index != 1) return NULL;  // keeps SIGALRM blocked
  sigset_t none;
  sigemptyset(&none);
  publish_tid(&target_tid);
  while (handled < 5) sigsuspend(&none);  // SIGALRM unblocked only while waiting
  return NULL;
}

int main(void) {
  my_index = 0;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  SYS(sigaction(SIGALRM, &sa, NULL));
  sigset_t alrm;
  sigemptyset(&alrm);
  sigaddset(&alrm, SIGALRM);
  PCHECK(pthread_sigmask(SIG_BLOCK, &alrm, NULL));
  pthread_t t[2];
  PCHECK(pthread_create(&t[0], NULL, worker, (void*)(intptr_t)1));
  PCHECK(pthread_create(&t[1], NULL, worker, (void*)(intptr_t)2));
  struct sigevent sev;
  memset(&sev, 0, sizeof sev);
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = SIGALRM;
  sev._sigev_un._tid = await_tid(&target_tid);
  timer_t timer;
  SYS(timer_create(CLOCK_MONOTONIC, &sev, &timer));
  struct itimerspec its = {{0, 2000000}, {0, 2000000}};  // every 2 ms
  SYS(timer_settime(timer, 0, &its, NULL));
  PCHECK(pthread_join(t[0], NULL));
  PCHECK(pthread_join(t[1], NULL));
  SYS(timer_delete(timer));
  printf("the timer's worker handled at least 5 expirations: %s; handlers in other threads: %d\n",
         handled >= 5 ? "yes" : "no", (int)wrong_thread);
  nd("handled %d\n", (int)handled);
  return 0;
}
