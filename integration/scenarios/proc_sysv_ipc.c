// scenario: System V IPC between processes: a shared memory segment
// attached before fork (inherited) and one attached by the child after
// fork, and a semaphore set (two semaphores) used to alternate between
// parent and child; semop with SEM_UNDO, GETVAL, GETPID and IPC_STAT.
#include "proc_util.h"

#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/shm.h>

union semun {
  int val;
  struct semid_ds* buf;
  unsigned short* array;
};

static void sem_op(int id, int num, int delta) {
  struct sembuf op = {(unsigned short)num, (short)delta, 0};
  while (semop(id, &op, 1) != 0) CHECK(errno == EINTR);
}

int main(void) {
  int shm = SYS(shmget(IPC_PRIVATE, 8192, IPC_CREAT | 0600));
  int shm2 = SYS(shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600));
  long* counter = shmat(shm, NULL, 0);
  CHECK(counter != (void*)-1);
  int sem = SYS(semget(IPC_PRIVATE, 2, IPC_CREAT | 0600));
  unsigned short init[2] = {1, 0};
  union semun arg = {.array = init};
  SYS(semctl(sem, 0, SETALL, arg));
  pid_t pid = proc_fork();
  if (pid == 0) {
    char* late = shmat(shm2, NULL, 0);
    if (late == (void*)-1) _exit(3);
    for (int i = 0; i < 500; i++) {
      sem_op(sem, 1, -1);
      counter[1 + counter[0]] = 2;
      counter[0]++;
      sem_op(sem, 0, 1);
    }
    strcpy(late, "written by the child into a segment it attached itself");
    struct sembuf undo = {0, 5, SEM_UNDO};  // undone when the child exits
    semop(sem, &undo, 1);
    _exit(0);
  }
  for (int i = 0; i < 500; i++) {
    sem_op(sem, 0, -1);
    counter[1 + counter[0]] = 1;
    counter[0]++;
    sem_op(sem, 1, 1);
  }
  printf("child: %s\n", status_text(wait_for(pid)));
  int alternating = 1;
  for (int i = 0; i < 1000; i++) alternating &= counter[1 + i] == (i % 2 ? 2 : 1);
  printf("counter %ld, alternating %d\n", counter[0], alternating);
  printf("sem 0 after the child's SEM_UNDO: %ld, sem 1: %ld\n", SYS(semctl(sem, 0, GETVAL)), SYS(semctl(sem, 1, GETVAL)));
  printf("last semop on sem 0 by the child: %d\n", SYS(semctl(sem, 0, GETPID)) == pid);
  char* late = shmat(shm2, NULL, SHM_RDONLY);
  CHECK(late != (void*)-1);
  printf("late segment: %s\n", late);
  struct shmid_ds ds;
  SYS(shmctl(shm, IPC_STAT, &ds));
  printf("segment attached %lu times, last detach by the child %d\n", (unsigned long)ds.shm_nattch, ds.shm_lpid == pid);
  SYS(shmdt(counter));
  SYS(shmdt(late));
  SYS(shmctl(shm, IPC_RMID, NULL));
  SYS(shmctl(shm2, IPC_RMID, NULL));
  SYS(semctl(sem, 0, IPC_RMID));
  return 0;
}
