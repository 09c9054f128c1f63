// Two threads compute without system calls, most of the time in an inner
// loop made of the `loop` instruction, which has no rel32 form: a counting
// stub moves it as lea, jrcxz and a jmp (engine/core/x86_decoder.h), so
// the forced positions the recorder takes there are counted or found by
// registers, and none needs a stored state that would skip passes. A
// breakpoint in a function called after every inner loop, and one on the
// line that calls it, must be reported at every one of their 512 hits, as
// gdb run natively on the program reports them.
// compare: native gdb
// expect-positions: 3
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#define ROUNDS 256
#define INNER_PASSES (1ull << 23)

static volatile uint64_t marks[2];
static uint64_t sums[2];

__attribute__((noinline)) void mark(int who) {
  marks[who]++;
}

// x plus passes + (passes - 1) + ... + 1.
static uint64_t inner(uint64_t x, uint64_t passes) {
  __asm__ volatile("1:\n\t"
                   "add %%rcx, %0\n\t"
                   "loop 1b"
                   : "+r"(x), "+c"(passes));
  return x;
}

static void* crunch(void* arg) {
  int who = (int)(intptr_t)arg;
  uint64_t x = (uint64_t)who;
  for (int r = 0; r < ROUNDS; r++) {
    x = inner(x, INNER_PASSES);
    mark(who);
  }
  sums[who] = x;
  return NULL;
}

int main(void) {
  pthread_t t[2];
  for (intptr_t i = 0; i < 2; i++) pthread_create(&t[i], NULL, crunch, (void*)i);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  printf("marks %llu %llu sums %llx %llx\n", (unsigned long long)marks[0], (unsigned long long)marks[1],
         (unsigned long long)sums[0], (unsigned long long)sums[1]);
  return 0;
}
