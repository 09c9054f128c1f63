// scenario: thread-local variables (qGetTLSAddr). Each thread has its own
// tls_count and tls_name; two workers run one after the other, so the
// threads that exist at each stop are always the same. gdb prints each
// thread's own values at a breakpoint, another thread's after `thread N`,
// and the earlier values after going backwards.
#include <pthread.h>
#include <stdio.h>

static __thread int tls_count = 7;
__thread char tls_name[16] = "main";

__attribute__((noinline)) void checkpoint(int round) {
  __asm__ volatile("" ::"r"(round) : "memory");
}

static void* worker(void* arg) {
  int id = (int)(long)arg;
  snprintf(tls_name, sizeof(tls_name), "worker%d", id);
  for (int round = 1; round <= 3; round++) {
    tls_count += id * 10;
    checkpoint(round);
  }
  return NULL;
}

int main(void) {
  tls_count = 1;
  for (long id = 1; id <= 2; id++) {
    pthread_t t;
    pthread_create(&t, NULL, worker, (void*)id);
    pthread_join(t, NULL);
  }
  tls_count = 2;
  printf("main tls_count %d name %s\n", tls_count, tls_name);
  return 0;
}
