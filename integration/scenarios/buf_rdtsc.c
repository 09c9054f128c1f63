// scenario: rdtsc and rdtscp read by the preload library. Where the recorder
// patches them into trapping instructions (forced here with BACKSTEP_PATCH_RDTSC=1,
// the default where the kernel cannot make rdtsc fault), a site's first
// trap turns it into a jump to a stub through which the library reads the
// counter and logs it in the thread's buffer (preload/tsc_call.c). Three
// threads read it in loops, in a shared library of the scenario's own
// (lib/tsc_reads.c: a library lies within a jump's reach of the stubs), and
// check that it never goes back within a thread (7,500 reads, rdtscp's
// with its auxiliary value in ecx); a site whose next instructions cannot
// move (rdtsc; ret; ud2, and the same with rdtscp) keeps trapping. Replay
// must give every value back.
// requires: threads
// record-env: BACKSTEP_PATCH_RDTSC=1
// expect-buffered: 7000
#include "thread_util.h"

#define READS 2000

static long went_back[3], odd[3];
static unsigned aux_mix[3];

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
// The same with rdtscp (patched into `int 0x2f; nop`: four bytes before
// the ret).
__asm__(".text\n"
        ".globl tscp_low_then_return\n"
        ".type tscp_low_then_return, @function\n"
        "tscp_low_then_return:\n"
        "  rdtscp\n"
        "  ret\n"
        "  ud2\n"
        ".size tscp_low_then_return, . - tscp_low_then_return\n");
unsigned tscp_low_then_return(void);

void tsc_reads(int n, long* went_back, long* odd, unsigned* aux_mix);  // lib/tsc_reads.c

static void* reader(void* arg) {
  long id = (long)arg;
  tsc_reads(READS, &went_back[id], &odd[id], &aux_mix[id]);
  return NULL;
}

int main(void) {
  pthread_t t[2];
  for (long i = 0; i < 2; i++) PCHECK(pthread_create(&t[i], NULL, reader, (void*)(i + 1)));
  reader((void*)0);
  for (int i = 0; i < 2; i++) PCHECK(pthread_join(t[i], NULL));
  for (int i = 0; i < 3; i++) {
    printf("thread %d: %d reads, %ld went back\n", i, READS, went_back[i]);
    nd("thread %d: odd values %ld, rdtscp aux %u\n", i, odd[i], aux_mix[i]);
  }
  unsigned changed = 0, previous = tsc_low_then_return();
  for (int i = 0; i < 20; i++) {
    unsigned now = tsc_low_then_return();
    changed += now != previous;
    previous = now;
  }
  printf("rdtsc before a return: %s\n", changed > 0 ? "advances" : "stuck");
  changed = 0, previous = tscp_low_then_return();
  for (int i = 0; i < 20; i++) {
    unsigned now = tscp_low_then_return();
    changed += now != previous;
    previous = now;
  }
  printf("rdtscp before a return: %s\n", changed > 0 ? "advances" : "stuck");
  return 0;
}
