// scenario: a dedicated signal thread: every thread blocks SIGUSR1 and
// SIGUSR2, one thread takes them with sigwait/sigwaitinfo; main sends
// kill(getpid(), ...) and tgkill to the waiting thread, one at a time.
// requires: threads
#include "thread_util.h"

#include <semaphore.h>
#include <signal.h>

static sem_t got;
static int received[8], count;
static volatile pid_t waiter_tid;

static void* waiter(void* arg) {
  sigset_t* set = arg;
  publish_tid(&waiter_tid);
  for (;;) {
    int sig = 0;
    if (count % 2 == 0) {
      PCHECK(sigwait(set, &sig));
    } else {
      siginfo_t info;
      sig = (int)SYS(sigwaitinfo(set, &info));
      CHECK(info.si_pid == getpid());  // both kill and tgkill carry the sender's tgid
    }
    received[count++] = sig;
    SYS(sem_post(&got));
    if (sig == SIGUSR2) return NULL;
  }
}

int main(void) {
  static sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  sigaddset(&set, SIGUSR2);
  PCHECK(pthread_sigmask(SIG_BLOCK, &set, NULL));
  SYS(sem_init(&got, 0, 0));
  pthread_t t;
  PCHECK(pthread_create(&t, NULL, waiter, &set));
  pid_t wt = await_tid(&waiter_tid);
  int plan[4] = {SIGUSR1, SIGUSR1, SIGUSR1, SIGUSR2};
  for (int i = 0; i < 4; i++) {
    if (i % 2 == 0) SYS(kill(getpid(), plan[i]));
    else SYS(syscall(SYS_tgkill, getpid(), wt, plan[i]));
    while (sem_wait(&got) != 0) CHECK(errno == EINTR);
  }
  PCHECK(pthread_join(t, NULL));
  for (int i = 0; i < count; i++)
    printf("signal %d (%s): %s\n", i, i % 2 ? "tgkill" : "kill", received[i] == SIGUSR1 ? "SIGUSR1" : "SIGUSR2");
  CHECK(count == 4);
  return 0;
}
