// scenario: process and thread ids: main's tid is the pid, a worker's is
// not; getpid, getppid, getpgrp and getsid agree across threads;
// /proc/self/task lists every thread; tgkill(getpid(), tid, 0) finds a live
// thread and not one that is gone. Values are printed as booleans only.
// requires: threads
#include "thread_util.h"

#include <dirent.h>
#include <semaphore.h>
#include <signal.h>

#define N 3

struct seen { pid_t tid, pid, ppid, pgrp, sid, tid_libc; };
static struct seen w[N];
static sem_t ready, finish;

static void* worker(void* arg) {
  int i = (int)(intptr_t)arg;
  w[i].tid = thread_tid();
  w[i].tid_libc = gettid();
  w[i].pid = getpid();
  w[i].ppid = getppid();
  w[i].pgrp = getpgrp();
  w[i].sid = getsid(0);
  SYS(sem_post(&ready));
  while (sem_wait(&finish) != 0) CHECK(errno == EINTR);
  return NULL;
}

static int count_tasks(void) {
  DIR* d = opendir("/proc/self/task");
  CHECK(d);
  int n = 0;
  struct dirent* e;
  while ((e = readdir(d))) n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

#define B(x) ((x) ? "yes" : "no")

int main(void) {
  pid_t pid = getpid();
  printf("main: tid == pid: %s, gettid() == syscall: %s\n", B(thread_tid() == pid),
         B(gettid() == thread_tid()));
  printf("tasks before: %d\n", count_tasks());
  SYS(sem_init(&ready, 0, 0));
  SYS(sem_init(&finish, 0, 0));
  pthread_t t[N];
  for (int i = 0; i < N; i++) PCHECK(pthread_create(&t[i], NULL, worker, (void*)(intptr_t)i));
  for (int i = 0; i < N; i++) while (sem_wait(&ready) != 0) CHECK(errno == EINTR);
  printf("tasks with %d workers: %d\n", N, count_tasks());
  for (int i = 0; i < N; i++) {
    printf("worker %d: tid != pid %s, gettid agrees %s, same pid %s, ppid %s, pgrp %s, sid %s\n", i, B(w[i].tid != pid), B(w[i].tid_libc == w[i].tid),
           B(w[i].pid == pid), B(w[i].ppid == getppid()), B(w[i].pgrp == getpgrp()),
           B(w[i].sid == getsid(0)));
    for (int j = 0; j < i; j++) CHECK(w[i].tid != w[j].tid);
    printf("worker %d: tgkill(pid, tid, 0) = %s\n", i,
           syscall(SYS_tgkill, pid, w[i].tid, 0) == 0 ? "0" : errname(errno));
  }
  for (int i = 0; i < N; i++) SYS(sem_post(&finish));
  for (int i = 0; i < N; i++) PCHECK(pthread_join(t[i], NULL));
  // pthread_join returns when the kernel clears the tid (CLONE_CHILD_CLEARTID),
  // which happens before the exiting task leaves /proc: wait for that.
  long looks = 1;
  while (count_tasks() != 1) {
    sched_yield();
    looks++;
  }
  nd("looked %ld times until only main was left\n", looks);
  long r = syscall(SYS_tgkill, pid, w[0].tid, 0);
  printf("joined worker 0, gone from /proc: tgkill = %s\n", r == 0 ? "0" : errname(errno));
  return 0;
}
