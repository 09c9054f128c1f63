// scenario: a dedicated thread reads signals from a signalfd (SIGUSR1,
// SIGUSR2 blocked in every thread); main sends them with kill(getpid()) and
// sigqueue (with a value), one at a time, waiting for each to be read.
// requires: threads
#include "thread_util.h"

#include <semaphore.h>
#include <signal.h>
#include <sys/signalfd.h>

static int sfd;
static sem_t got;
static int sigs[4], values[4], n;

static void* reader(void* arg) {
  (void)arg;
  for (;;) {
    struct signalfd_siginfo si;
    CHECK(SYS(read(sfd, &si, sizeof si)) == sizeof si);
    CHECK(si.ssi_pid == (uint32_t)getpid());
    sigs[n] = (int)si.ssi_signo;
    values[n] = si.ssi_int;
    n++;
    SYS(sem_post(&got));
    if (si.ssi_signo == SIGUSR2) return NULL;
  }
}

int main(void) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  sigaddset(&set, SIGUSR2);
  PCHECK(pthread_sigmask(SIG_BLOCK, &set, NULL));
  sfd = (int)SYS(signalfd(-1, &set, SFD_CLOEXEC));
  SYS(sem_init(&got, 0, 0));
  pthread_t t;
  PCHECK(pthread_create(&t, NULL, reader, NULL));
  SYS(kill(getpid(), SIGUSR1));
  while (sem_wait(&got) != 0) CHECK(errno == EINTR);
  union sigval v = {.sival_int = 1234};
  SYS(sigqueue(getpid(), SIGUSR1, v));
  while (sem_wait(&got) != 0) CHECK(errno == EINTR);
  v.sival_int = 5678;
  SYS(sigqueue(getpid(), SIGUSR2, v));
  PCHECK(pthread_join(t, NULL));
  for (int i = 0; i < n; i++)
    printf("signalfd read %d: %s, value %d\n", i, sigs[i] == SIGUSR1 ? "SIGUSR1" : "SIGUSR2", values[i]);
  CHECK(n == 3);
  return 0;
}
