// scenario: pthread_kill sends SIGUSR1 to each of 4 workers in turn (each
// waits in sem_wait for it); the handler records the index of the thread it
// ran in. Then SIGUSR2 to worker 2 only, twice.
// requires: threads
#include "thread_util.h"

#include <semaphore.h>
#include <signal.h>

#define N 4

static __thread int my_index = -1;
static volatile sig_atomic_t ran_in[8];
static volatile sig_atomic_t ran_count, usr2_count[N];
static sem_t handled, ready, go[N];

static void on_usr1(int sig) {
  (void)sig;
  ran_in[ran_count++] = my_index;
  sem_post(&handled);
}
static void on_usr2(int sig) {
  (void)sig;
  usr2_count[my_index]++;
  sem_post(&handled);
}

static void* worker(void* arg) {
  my_index = (int)(intptr_t)arg;
  SYS(sem_post(&ready));
  // Interrupted by the handler or not, it returns once main posts go.
  while (sem_wait(&go[my_index]) != 0) CHECK(errno == EINTR);
  return NULL;
}

static void wait_handled(void) {
  while (sem_wait(&handled) != 0) CHECK(errno == EINTR);
}

int main(void) {
  my_index = 99;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  SYS(sigaction(SIGUSR1, &sa, NULL));
  sa.sa_handler = on_usr2;
  SYS(sigaction(SIGUSR2, &sa, NULL));
  SYS(sem_init(&handled, 0, 0));
  SYS(sem_init(&ready, 0, 0));
  pthread_t t[N];
  for (int i = 0; i < N; i++) {
    SYS(sem_init(&go[i], 0, 0));
    PCHECK(pthread_create(&t[i], NULL, worker, (void*)(intptr_t)i));
  }
  for (int i = 0; i < N; i++) while (sem_wait(&ready) != 0) CHECK(errno == EINTR);
  for (int i = N - 1; i >= 0; i--) {
    PCHECK(pthread_kill(t[i], SIGUSR1));
    wait_handled();
  }
  PCHECK(pthread_kill(t[2], SIGUSR2));
  wait_handled();
  PCHECK(pthread_kill(t[2], SIGUSR2));
  wait_handled();
  for (int i = 0; i < N; i++) SYS(sem_post(&go[i]));
  for (int i = 0; i < N; i++) PCHECK(pthread_join(t[i], NULL));
  for (int k = 0; k < ran_count; k++) printf("SIGUSR1 #%d ran in worker %d\n", k, (int)ran_in[k]);
  for (int i = 0; i < N; i++) printf("worker %d: SIGUSR2 handled %d time(s)\n", i, (int)usr2_count[i]);
  CHECK(ran_count == N && usr2_count[2] == 2);
  for (int k = 0; k < N; k++) CHECK(ran_in[k] == N - 1 - k);
  return 0;
}
