// Two threads compute without system calls for about 0.6 s each, so that
// the recorder hands the CPU between them at forced positions, a dozen or
// so on a two-core machine (the first of each thread by digest, the
// others counted; expect-positions checks there are some). Breakpoints in
// a function the loop calls every 2^22 passes and on the loop's own line
// that calls it must be reported at every one of their 192 hits, as gdb
// run natively on the program reports them: replay runs through every
// pass of the loop on its way to each position, never skipping ahead.
// compare: native gdb
// expect-positions: 3
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#define PASSES (96ull << 22)

static volatile uint64_t marks[2];

__attribute__((noinline)) void mark(int who) {
  marks[who]++;
}

static void* crunch(void* arg) {
  int who = (int)(intptr_t)arg;
  uint64_t h = (uint64_t)who + 1;
  for (uint64_t i = 0; i < PASSES; i++) {
    h = (h ^ (h >> 29)) * 0xbf58476d1ce4e5b9ull + i;
    if ((i & 0x3fffff) == 0)
      mark(who);
  }
  return (void*)(uintptr_t)h;
}

int main(void) {
  pthread_t t[2];
  for (intptr_t i = 0; i < 2; i++) pthread_create(&t[i], NULL, crunch, (void*)i);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  printf("marks %llu %llu\n", (unsigned long long)marks[0], (unsigned long long)marks[1]);
  return 0;
}
