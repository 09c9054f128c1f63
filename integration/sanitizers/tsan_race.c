// scenario: a ThreadSanitizer build with a data race between two threads:
// TSan reports it (it orders accesses by synchronisation, not by timing,
// so the recorder's one-thread-at-a-time schedule hides nothing) and exits
// 66; replay reproduces the report. Its addresses vary: stderr is not
// compared with the native run's.
// expect-exit: 66
// stderr: any
#include <pthread.h>
#include <stdio.h>

static int counter;

static void* bump(void* arg) {
  for (int i = 0; i < 1000; i++) counter++;
  return arg;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, bump, NULL);
  pthread_create(&b, NULL, bump, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  printf("joined\n");
  return 0;
}
