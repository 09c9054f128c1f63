// scenario: main calls pthread_exit while 3 workers keep running and write
// their output in turn (main is a zombie leader); the process exits with 0
// when the last worker returns.
// requires: threads
#include "thread_util.h"

#include <semaphore.h>

#define N 3

static sem_t turn[N + 1];
static volatile pid_t main_tid_v;

static void* worker(void* arg) {
  int i = (int)(intptr_t)arg;
  while (sem_wait(&turn[i]) != 0) CHECK(errno == EINTR);
  if (i == 0) {
    // main has called pthread_exit: its task is a zombie (or gone from the
    // syscall file's point of view); wait until it is no longer running.
    char path[64], state = 0;
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)main_tid_v);
    for (;;) {
      FILE* f = fopen(path, "r");
      CHECK(f);
      CHECK(fscanf(f, "%*d (%*[^)]) %c", &state) == 1);
      fclose(f);
      if (state == 'Z') break;
      sched_yield();
    }
    printf("worker 0: main is a zombie leader\n");
  }
  printf("worker %d writes after main's pthread_exit\n", i);
  fflush(stdout);
  SYS(sem_post(&turn[i + 1]));
  return NULL;
}

int main(void) {
  main_tid_v = thread_tid();
  for (int i = 0; i <= N; i++) SYS(sem_init(&turn[i], 0, 0));
  pthread_t t[N];
  for (int i = 0; i < N; i++) PCHECK(pthread_create(&t[i], NULL, worker, (void*)(intptr_t)i));
  printf("main: pthread_exit with %d workers running\n", N);
  fflush(stdout);
  SYS(sem_post(&turn[0]));
  pthread_exit(NULL);
}
