// scenario: rdtsc read by the preload library. Where the recorder patches
// rdtsc into a trapping instruction (forced here with BACKSTEP_PATCH_RDTSC=1,
// the default where the kernel cannot make rdtsc fault), a site's first
// trap turns it into a jump to a stub through which the library reads the
// counter and logs it in the thread's buffer (preload/tsc_call.c). Three
// threads read it in loops, in a shared library of the scenario's own
// (lib/tsc_reads.c: a library lies within a jump's reach of the stubs), and
// check that it never goes back within a thread; a site whose next
// instructions cannot move (rdtsc; ret; ud2) keeps trapping. Replay must
// give every value back.
// requires: threads
// record-env: BACKSTEP_PATCH_RDTSC=1
// expect-buffered: 5000
#include "thread_util.h"

#define READS 2000

static long went_back[3], odd[3];

// rdtsc right before a return, then ud2: a site the stub cannot take (its
// jump needs five bytes, and what follows the ret is not padding), so it
// traps each time. Returns the low half (eax).
__asm__(".text\n"
        ".globl tsc_low_then_return\n"
        ".type tsc_low_then_return, @function\n"
        "tsc_low_then_return:\n"
        "  rdtsc\n"
        "  ret\n"
        "  ud2\n"
        ".size tsc_low_then_return, . - tsc_low_then_return\n");
unsigned tsc_low_then_return(void);

void tsc_reads(int n, long* went_back, long* odd);  // lib/tsc_reads.c

static void* reader(void* arg) {
  long id = (long)arg;
  tsc_reads(READS, &went_back[id], &odd[id]);
  return NULL;
}

int main(void) {
  pthread_t t[2];
  for (long i = 0; i < 2; i++) PCHECK(pthread_create(&t[i], NULL, reader, (void*)(i + 1)));
  reader((void*)0);
  for (int i = 0; i < 2; i++) PCHECK(pthread_join(t[i], NULL));
  for (int i = 0; i < 3; i++) {
    printf("thread %d: %d reads, %ld went back\n", i, READS, went_back[i]);
    nd("thread %d: odd values %ld\n", i, odd[i]);
  }
  unsigned changed = 0, previous = tsc_low_then_return();
  for (int i = 0; i < 20; i++) {
    unsigned now = tsc_low_then_return();
    changed += now != previous;
    previous = now;
  }
  printf("rdtsc before a return: %s\n", changed > 0 ? "advances" : "stuck");
  return 0;
}
