// scenario: gdb lists every thread of a replay with its name (`info threads`),
// scenario: shows a worker's stack (`thread N`, `bt`) and all of them
// scenario: (`thread apply all bt`), while three workers wait in read()
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define WORKERS 3

static int go[WORKERS][2];        // one pipe per worker: a byte lets it finish
static volatile pid_t tids[WORKERS];

// Where gdb looks: every worker waits in read().
static void all_waiting(void) {}

static void* worker(void* arg) {
  long id = (long)arg;
  char name[16];
  snprintf(name, sizeof name, "worker-%ld", id);
  prctl(PR_SET_NAME, name);
  tids[id - 1] = gettid();
  char c;
  read(go[id - 1][0], &c, 1);
  return NULL;
}

// Whether thread `tid` is in a read() call (the kernel says so in
// /proc/self/task/TID/syscall: the call's number first).
static int in_read(pid_t tid) {
  char path[64], text[128] = "";
  snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
  FILE* f = fopen(path, "r");
  if (!f) return 0;
  fgets(text, sizeof text, f);
  fclose(f);
  return strncmp(text, "0 ", 2) == 0;
}

int main(void) {
  pthread_t threads[WORKERS];
  for (long i = 0; i < WORKERS; i++) {
    pipe(go[i]);
    pthread_create(&threads[i], NULL, worker, (void*)(i + 1));
  }
  for (int i = 0; i < WORKERS; i++) {
    while (tids[i] == 0 || !in_read(tids[i])) usleep(1000);
  }
  all_waiting();
  for (int i = 0; i < WORKERS; i++) write(go[i][1], "x", 1);
  for (int i = 0; i < WORKERS; i++) pthread_join(threads[i], NULL);
  printf("%d workers done\n", WORKERS);
  return 0;
}
