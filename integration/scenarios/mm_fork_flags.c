// scenario: memory a fork does not copy. MADV_WIPEONFORK gives the child
// zeros where the parent has data (and the child's children too, the flag
// being inherited); MADV_DONTFORK leaves the range out of the child, which
// faults there; MADV_KEEPONFORK and MADV_DOFORK undo them for later forks.
// The parent keeps its own bytes throughout.
#include "proc_util.h"

#include <setjmp.h>
#include <sys/mman.h>

static sigjmp_buf fault_jump;
static void on_segv(int sig) {
  (void)sig;
  siglongjmp(fault_jump, 1);
}

// Whether reading *p faults (SIGSEGV), else its value in *value.
static int reads_fault(volatile unsigned char* p, unsigned char* value) {
  if (sigsetjmp(fault_jump, 1) != 0) return 1;
  *value = *p;
  return 0;
}

static void report_child(const char* label, unsigned char* kept, unsigned char* wiped, unsigned char* dropped) {
  unsigned char v = 0;
  int faults = reads_fault(dropped, &v);
  child_say("%s: copied page %d, wipe-on-fork page %d, dont-fork page %s %d\n", label, kept[0], wiped[0],
            faults ? "faults" : "reads", faults ? 0 : v);
}

int main(void) {
  const size_t page = 4096;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_segv;
  sigaction(SIGSEGV, &sa, NULL);
  unsigned char* kept = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  unsigned char* wiped = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  unsigned char* dropped = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(kept != MAP_FAILED && wiped != MAP_FAILED && dropped != MAP_FAILED);
  kept[0] = 11;
  wiped[0] = 22;
  wiped[page] = 23;
  dropped[0] = 33;
  // Only the first page of `wiped`: the mapping splits in two.
  printf("wipe-on-fork: %d\n", madvise(wiped, page, MADV_WIPEONFORK));
  printf("dont-fork: %d\n", madvise(dropped, page, MADV_DONTFORK));

  pid_t child = proc_fork();
  if (child == 0) {
    report_child("child", kept, wiped, dropped);
    child_say("child: second page of the split mapping %d\n", wiped[page]);
    wiped[0] = 44;  // its own page now, still wiped at its forks
    pid_t grandchild = fork();
    if (grandchild == 0) {
      report_child("grandchild", kept, wiped, dropped);
      _exit(0);
    }
    int status;
    waitpid(grandchild, &status, 0);
    _exit(WIFEXITED(status) ? 5 : 6);
  }
  printf("child: %s\n", status_text(wait_for(child)));
  printf("parent keeps: %d %d %d %d\n", kept[0], wiped[0], wiped[page], dropped[0]);

  printf("keep-on-fork: %d, do-fork: %d\n", madvise(wiped, page, MADV_KEEPONFORK),
         madvise(dropped, page, MADV_DOFORK));
  child = proc_fork();
  if (child == 0) {
    report_child("after undoing", kept, wiped, dropped);
    _exit(0);
  }
  printf("child: %s\n", status_text(wait_for(child)));
  return 0;
}
