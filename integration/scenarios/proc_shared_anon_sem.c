// scenario: shared anonymous memory across fork: a counter in a
// MAP_SHARED|MAP_ANONYMOUS page, incremented by parent and child in strict
// alternation (2,000 turns each), handed over with two process-shared
// semaphores (sem_t, pshared=1) that live in the same page. A private
// mapping next to it shows copy-on-write instead.
#include "proc_util.h"

#include <semaphore.h>
#include <sys/mman.h>

struct shared {
  sem_t parent_turn;
  sem_t child_turn;
  long counter;
  long trail[4000];  // who incremented at each step (1 parent, 2 child)
};

int main(void) {
  struct shared* s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  CHECK(s != MAP_FAILED);
  long* private_page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(private_page != MAP_FAILED);
  *private_page = 100;
  SYS(sem_init(&s->parent_turn, 1, 1));
  SYS(sem_init(&s->child_turn, 1, 0));
  pid_t pid = proc_fork();
  if (pid == 0) {
    for (int i = 0; i < 2000; i++) {
      while (sem_wait(&s->child_turn) != 0) {
      }
      s->trail[s->counter] = 2;
      s->counter++;
      sem_post(&s->parent_turn);
    }
    *private_page = 200;
    _exit(0);
  }
  for (int i = 0; i < 2000; i++) {
    while (sem_wait(&s->parent_turn) != 0) {
    }
    s->trail[s->counter] = 1;
    s->counter++;
    sem_post(&s->child_turn);
  }
  printf("child: %s\n", status_text(wait_for(pid)));
  int alternating = 1;
  for (int i = 0; i < 4000; i++) alternating &= s->trail[i] == (i % 2 ? 2 : 1);
  printf("counter %ld, strictly alternating %d\n", s->counter, alternating);
  printf("private page still %ld\n", *private_page);
  return 0;
}
