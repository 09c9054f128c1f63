// scenario: a parent and its child take turns on a counter in shared
// anonymous memory (two process-shared semaphores in the same page): the
// parent adds 2, the child 1, ten times each. gdb debugs the parent while
// the child is alive: reverse-continue (which restores a checkpoint of the
// whole tree, shared page included) and run c1.
#include <semaphore.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

struct shared {
  sem_t parent_turn, child_turn;
  int counter;
};

struct shared* s;

__attribute__((noinline)) void parent_added(int round) {
  (void)round;
}

int main(void) {
  s = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  sem_init(&s->parent_turn, 1, 1);
  sem_init(&s->child_turn, 1, 0);
  pid_t pid = fork();
  for (int round = 0; round < 10; round++) {
    if (pid == 0) {
      sem_wait(&s->child_turn);
      s->counter += 1;
      sem_post(&s->parent_turn);
    } else {
      sem_wait(&s->parent_turn);
      s->counter += 2;
      parent_added(round);
      sem_post(&s->child_turn);
    }
  }
  if (pid == 0) _exit(0);
  waitpid(pid, NULL, 0);
  printf("counter %d\n", s->counter);
  return 0;
}
