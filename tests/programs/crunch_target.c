// Driven by tests/timeline_interrupt_test.cc: two threads compute without
// system calls for a few hundred milliseconds each, so that the recorder
// hands the CPU between them at counted positions; the loop calls mark()
// every 2^22 passes (a breakpoint target), MARKS times in all.
#include <pthread.h>
#include <stdint.h>

#define PER_THREAD 64
#define PASSES ((uint64_t)PER_THREAD << 22)

volatile uint64_t marks[2];

__attribute__((noinline)) void mark(int who) { marks[who]++; }

static void* crunch(void* arg) {
  int who = (int)(intptr_t)arg;
  uint64_t h = (uint64_t)who + 1;
  for (uint64_t i = 0; i < PASSES; i++) {
    h = (h ^ (h >> 29)) * 0xbf58476d1ce4e5b9ull + i;
    if ((i & 0x3fffff) == 0) mark(who);
  }
  return (void*)(uintptr_t)h;
}

int main(void) {
  pthread_t t[2];
  for (intptr_t i = 0; i < 2; i++) pthread_create(&t[i], NULL, crunch, (void*)i);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  return marks[0] + marks[1] == 2 * PER_THREAD ? 0 : 1;
}
