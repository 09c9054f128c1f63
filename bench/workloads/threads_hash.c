/* Multi-threaded: 4 threads hash in chunks and add each chunk's result to a
 * shared counter under a mutex (contended: futex waits and wakes), so the
 * recorder switches threads at blocking calls and, when a thread runs long
 * without one, at forced positions.
 * Usage: threads_hash [CHUNKS]   (default 4000 per thread, 20,000 hashes each) */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t shared_sum;
static long chunks = 4000;

static inline uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

static void* worker(void* arg) {
  uint64_t h = (uint64_t)(uintptr_t)arg;
  for (long c = 0; c < chunks; ++c) {
    for (int i = 0; i < 20000; ++i) h = mix64(h + (uint64_t)i);
    pthread_mutex_lock(&lock);
    shared_sum += h;
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

int main(int argc, char** argv) {
  if (argc > 1) chunks = strtol(argv[1], NULL, 10);
  pthread_t t[4];
  for (uintptr_t i = 0; i < 4; ++i) pthread_create(&t[i], NULL, worker, (void*)(i + 1));
  for (int i = 0; i < 4; ++i) pthread_join(t[i], NULL);
  printf("threads_hash chunks=%ld sum=%016llx\n", chunks, (unsigned long long)shared_sum);
  return 0;
}
