// scenario: two threads compute without system calls, most of the time in
// an inner loop made of the `loop` instruction, where no counting stub
// fits, beside an 8 MiB table that never changes once filled. Each writes
// only a few pages of its own: a page of sums, and a page it fills in one
// round and clears in the next; between cycles of rounds it maps and
// unmaps a region. Recorded with counted hand-overs off
// (BACKSTEP_COUNTED_HANDOVERS=0), every hand-over between them is a
// position found by digest that stores the program's state, and a stored
// state holds only the pages that changed since the process's previous
// one (every 16th is full). Replay, which takes each stored state at once
// under --autopilot, must rebuild every whole state from the chain.
// run_stored_states.py checks the sizes `dump --stats` shows;
// tests/stored_state_test.cc replays it in a copy made for a checkpoint.
// env: BACKSTEP_COUNTED_HANDOVERS=0
// requires: threads
#include "thread_util.h"

#include <string.h>
#include <sys/mman.h>

#define TABLE_WORDS (1u << 20)  // 8 MiB
#define CYCLES 4
#define ROUNDS 8
#define CALLS 4                 // inner loops a round
#define PASSES (15ull << 21)    // passes of an inner loop

static uint64_t* table;

struct worker {
  uint64_t sums[512];  // one page, written after every inner loop
  uint64_t flip[512];  // one page, filled and cleared by turns
  uint64_t result;
} __attribute__((aligned(4096)));

static struct worker workers[2] __attribute__((aligned(4096)));
static volatile uint64_t marks[2];

// Called after every inner loop (a place for a breakpoint).
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
  struct worker* w = arg;
  int who = (int)(w - workers);
  uint64_t h = (uint64_t)who + 1;
  for (int cycle = 0; cycle < CYCLES; cycle++) {
    // A mapping of the cycle's own, gone before the next.
    uint64_t* extra = mmap(NULL, 16 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (extra == MAP_FAILED) return NULL;
    for (unsigned i = 0; i < 16 * 512; i += 512) extra[i] = h + i;
    // Longer than the recorder's slice (100 ms) without a system call.
    for (int round = 0; round < ROUNDS; round++) {
      if (round % 2) memset(w->flip, 0, sizeof w->flip);
      for (int call = 0; call < CALLS; call++) {
        h = inner(h ^ table[h & (TABLE_WORDS - 1)], PASSES);
        w->sums[(h >> 7) & 511] += h;
        if (round % 2 == 0) w->flip[(h >> 17) & 511] = h | 1;
        mark(who);
      }
    }
    for (unsigned i = 0; i < 16 * 512; i += 512) h ^= extra[i];
    munmap(extra, 16 * 4096);
  }
  for (int i = 0; i < 512; i++) h ^= w->sums[i] + w->flip[i];
  w->result = h;
  return NULL;
}

int main(void) {
  table = malloc(TABLE_WORDS * sizeof *table);
  if (!table) return 1;
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (unsigned i = 0; i < TABLE_WORDS; i++) {
    x = (x ^ (x >> 31)) * 0x7fb5d329728ea185ull + i;
    table[i] = x | 1;
  }
  pthread_t t[2];
  for (int i = 0; i < 2; i++) PCHECK(pthread_create(&t[i], NULL, crunch, &workers[i]));
  for (int i = 0; i < 2; i++) PCHECK(pthread_join(t[i], NULL));
  printf("marks %llu %llu results %016llx %016llx\n", (unsigned long long)marks[0], (unsigned long long)marks[1],
         (unsigned long long)workers[0].result, (unsigned long long)workers[1].result);
  return 0;
}
