// What gdb watches in run_traced_by_tool.py --tool gdb-watch while
// backstep records gdb itself: a thread stores into a global four times
// while the main thread waits for it in pthread_join (a blocking call when
// gdb arms its debug registers); then main reads it and passes it on.
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
volatile int shared;
int seen;
__attribute__((noinline)) int report(int v) { return printf("shared=%d seen=%d\n", shared, v); }
static void* worker(void* arg) {
  (void)arg;
  for (int i = 1; i <= 4; i++) {
    shared = i * 10;
    usleep(1000);
  }
  return NULL;
}
int main(void) {
  pthread_t th;
  pthread_create(&th, NULL, worker, NULL);
  pthread_join(th, NULL);
  seen = shared;
  report(seen);
  return 0;
}
