// scenario: thread churn: 200 threads created and joined one at a time
// (stacks and tids reused), then 16 at once, each returning a value; a
// thread with a small explicit stack size and one with a guard page checked.
// requires: threads
#include "thread_util.h"

static void* square(void* arg) {
  long v = (long)(intptr_t)arg;
  return (void*)(intptr_t)(v * v);
}

static void* stack_info(void* arg) {
  pthread_attr_t a;
  size_t size = 0, guard = 0;
  PCHECK(pthread_getattr_np(pthread_self(), &a));
  PCHECK(pthread_attr_getstacksize(&a, &size));
  PCHECK(pthread_attr_getguardsize(&a, &guard));
  PCHECK(pthread_attr_destroy(&a));
  size_t* out = arg;
  out[0] = size;
  out[1] = guard;
  return NULL;
}

int main(void) {
  long sum = 0;
  for (long i = 0; i < 200; i++) {
    pthread_t t;
    void* r;
    PCHECK(pthread_create(&t, NULL, square, (void*)(intptr_t)i));
    PCHECK(pthread_join(t, &r));
    sum += (long)(intptr_t)r;
  }
  printf("200 sequential threads: sum of squares %ld\n", sum);
  pthread_t many[16];
  for (long i = 0; i < 16; i++) PCHECK(pthread_create(&many[i], NULL, square, (void*)(intptr_t)(i + 1000)));
  sum = 0;
  for (int i = 0; i < 16; i++) {
    void* r;
    PCHECK(pthread_join(many[i], &r));
    sum += (long)(intptr_t)r;
  }
  printf("16 concurrent threads: sum of squares %ld\n", sum);

  pthread_attr_t a;
  PCHECK(pthread_attr_init(&a));
  PCHECK(pthread_attr_setstacksize(&a, 64 * 1024));
  PCHECK(pthread_attr_setguardsize(&a, 8192));
  size_t info[2];
  pthread_t t;
  PCHECK(pthread_create(&t, &a, stack_info, info));
  PCHECK(pthread_join(t, NULL));
  PCHECK(pthread_attr_destroy(&a));
  printf("explicit attributes: stack %zu bytes, guard %zu bytes\n", info[0], info[1]);
  return 0;
}
