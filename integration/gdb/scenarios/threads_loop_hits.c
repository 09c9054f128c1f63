// Two threads compute without system calls for about half a second each,
// so that the recorder hands the CPU between them at forced positions (the
// first of each thread by digest, the others counted). A breakpoint in a
// function the loop calls every 2^22 passes must be reported at every one
// of its 72 calls, as natively: replay runs through every pass of the loop
// on its way to each position, never skipping ahead.
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

static volatile uint64_t marks[2];

__attribute__((noinline)) void mark(int who) {
  marks[who]++;
}

static void* crunch(void* arg) {
  int who = (int)(intptr_t)arg;
  uint64_t h = (uint64_t)who + 1;
  for (uint64_t i = 0; i < 150000000ull; i++) {
    h = (h ^ (h >> 29)) * 0xbf58476d1ce4e5b9ull + i;
    if ((i & 0x3fffff) == 0) mark(who);
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
