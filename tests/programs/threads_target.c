// Driven by tests/timeline_threads_test.cc: two workers, one after the
// other, each naming itself, waiting for a byte from main and calling
// work() once; main waits for each in pthread_join.
#include <pthread.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

int slots[4];
static int go[2];

__attribute__((noinline)) void work(long id) { slots[id] = (int)id * 11; }

static void* worker(void* arg) {
  long id = (long)arg;
  char name[16];
  snprintf(name, sizeof name, "worker-%ld", id);
  prctl(PR_SET_NAME, name);
  char c;
  if (read(go[0], &c, 1) != 1) return NULL;
  work(id);
  return NULL;
}

int main(void) {
  if (pipe(go) != 0) return 1;
  for (long id = 1; id <= 2; id++) {
    pthread_t t;
    if (pthread_create(&t, NULL, worker, (void*)id) != 0) return 1;
    // The worker cannot get far before main waits in pthread_join.
    if (write(go[1], "x", 1) != 1) return 1;
    pthread_join(t, NULL);
  }
  return slots[1] + slots[2];  // 33
}
