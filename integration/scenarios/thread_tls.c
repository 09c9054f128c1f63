// scenario: thread-local storage: a __thread counter and an initialised
// __thread array per thread, and pthread_key values whose destructors run at
// thread exit (twice for a key set again in its destructor).
// requires: threads
#include "thread_util.h"

#define N 4

static __thread int counter;
static __thread char label[16] = "unset";
static pthread_key_t key, key_again;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long destroyed_sum;
static int destroyed_count, again_rounds;
static int seen_counter[N];
static char seen_label[N][16];

static void destroy(void* p) {
  PCHECK(pthread_mutex_lock(&lock));
  destroyed_sum += *(long*)p;
  destroyed_count++;
  PCHECK(pthread_mutex_unlock(&lock));
  free(p);
}

// Sets its key once more the first time: glibc then calls it a second time.
static void destroy_again(void* p) {
  PCHECK(pthread_mutex_lock(&lock));
  again_rounds++;
  PCHECK(pthread_mutex_unlock(&lock));
  if ((intptr_t)p == 1) PCHECK(pthread_setspecific(key_again, (void*)2));
}

static void* work(void* arg) {
  int i = (int)(intptr_t)arg;
  CHECK(counter == 0 && strcmp(label, "unset") == 0);
  for (int k = 0; k <= i * 10; k++) counter += k;
  snprintf(label, sizeof label, "thread-%d", i);
  long* v = malloc(sizeof *v);
  CHECK(v);
  *v = 1000 + i;
  PCHECK(pthread_setspecific(key, v));
  CHECK(pthread_getspecific(key) == v);
  PCHECK(pthread_setspecific(key_again, (void*)1));
  seen_counter[i] = counter;
  memcpy(seen_label[i], label, sizeof label);
  return NULL;
}

int main(void) {
  PCHECK(pthread_key_create(&key, destroy));
  PCHECK(pthread_key_create(&key_again, destroy_again));
  counter = -1;
  pthread_t t[N];
  for (int i = 0; i < N; i++) PCHECK(pthread_create(&t[i], NULL, work, (void*)(intptr_t)i));
  for (int i = 0; i < N; i++) PCHECK(pthread_join(t[i], NULL));
  for (int i = 0; i < N; i++) printf("thread %d: counter %d, label %s\n", i, seen_counter[i], seen_label[i]);
  printf("main: counter %d, label %s, key %s\n", counter, label,
         pthread_getspecific(key) ? "set" : "unset");
  printf("destructors: %d calls, sum %ld; re-set key destructor ran %d times\n", destroyed_count,
         destroyed_sum, again_rounds);
  CHECK(destroyed_count == N && again_rounds == 2 * N);
  return 0;
}
