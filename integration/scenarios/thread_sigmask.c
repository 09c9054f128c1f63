// scenario: SIGUSR1 is blocked in main and 3 of 4 workers (pthread_sigmask);
// kill(getpid(), SIGUSR1) is sent to the process, so the kernel must deliver
// it to the one worker that leaves it unblocked. Done 3 times; each time the
// handler says which worker ran it, and the others' pending sets are empty.
// requires: threads
#include "thread_util.h"

#include <semaphore.h>
#include <signal.h>

#define N 4
#define OPEN 2  // the worker that does not block SIGUSR1

static __thread int my_index = -1;
static volatile sig_atomic_t ran_in[3], ran_count;
static sem_t handled, ready, go;
static int pending_seen[N];

static void on_usr1(int sig) {
  (void)sig;
  ran_in[ran_count++] = my_index;
  sem_post(&handled);
}

static void* worker(void* arg) {
  my_index = (int)(intptr_t)arg;
  if (my_index == OPEN) {
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGUSR1);
    PCHECK(pthread_sigmask(SIG_UNBLOCK, &s, NULL));  // inherited blocked from main
  }
  SYS(sem_post(&ready));
  while (sem_wait(&go) != 0) CHECK(errno == EINTR);
  sigset_t pend;
  SYS(sigpending(&pend));
  pending_seen[my_index] = sigismember(&pend, SIGUSR1);
  return NULL;
}

int main(void) {
  my_index = 99;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  SYS(sigaction(SIGUSR1, &sa, NULL));
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGUSR1);
  PCHECK(pthread_sigmask(SIG_BLOCK, &s, NULL));  // workers inherit it
  SYS(sem_init(&handled, 0, 0));
  SYS(sem_init(&ready, 0, 0));
  SYS(sem_init(&go, 0, 0));
  pthread_t t[N];
  for (int i = 0; i < N; i++) PCHECK(pthread_create(&t[i], NULL, worker, (void*)(intptr_t)i));
  for (int i = 0; i < N; i++) while (sem_wait(&ready) != 0) CHECK(errno == EINTR);
  for (int k = 0; k < 3; k++) {
    SYS(kill(getpid(), SIGUSR1));
    while (sem_wait(&handled) != 0) CHECK(errno == EINTR);
  }
  for (int i = 0; i < N; i++) SYS(sem_post(&go));
  for (int i = 0; i < N; i++) PCHECK(pthread_join(t[i], NULL));
  for (int k = 0; k < ran_count; k++) printf("kill(getpid()) #%d handled in worker %d\n", k, (int)ran_in[k]);
  for (int i = 0; i < N; i++) printf("worker %d: SIGUSR1 left pending: %d\n", i, pending_seen[i]);
  SYS(sigpending(&s));
  printf("main: SIGUSR1 pending: %d\n", sigismember(&s, SIGUSR1));
  CHECK(ran_count == 3);
  for (int k = 0; k < 3; k++) CHECK(ran_in[k] == OPEN);
  return 0;
}
