// Two threads compute without system calls for about half a second each,
// so that the recorder hands the CPU between them at forced positions
// (expect-positions checks there are some). Going back from the end of the
// program, a breakpoint in a function the loop calls every 2^23 passes
// must be hit as often as going forwards natively (72 times): every hit
// before now, across the positions, down to the start of the recording
// (gdb's step back off each hit is a reverse-stepi into ~10^8
// instructions, approached with counting stubs: docs/user-guide.md).
// compare: native gdb
// expect-positions: 3
// timeout: 300
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#define PASSES (36ull << 23)

static volatile uint64_t marks[2];

__attribute__((noinline)) void mark(int who) {
  marks[who]++;
}

static void* crunch(void* arg) {
  int who = (int)(intptr_t)arg;
  uint64_t h = (uint64_t)who + 1;
  for (uint64_t i = 0; i < PASSES; i++) {
    h = (h ^ (h >> 29)) * 0xbf58476d1ce4e5b9ull + i;
    if ((i & 0x7fffff) == 0) mark(who);
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
