// scenario: thread names: pthread_setname_np from main and from the thread
// itself, prctl(PR_SET_NAME), read back with pthread_getname_np,
// prctl(PR_GET_NAME) and /proc/self/task/TID/comm; a too-long name is refused.
// requires: threads
#include "thread_util.h"

#include <semaphore.h>
#include <sys/prctl.h>

#define N 3

static sem_t named, finish;
static volatile pid_t tids[N];
static char self_seen[N][16];

static void* worker(void* arg) {
  int i = (int)(intptr_t)arg;
  publish_tid(&tids[i]);
  if (i == 1) PCHECK(pthread_setname_np(pthread_self(), "self-named-1"));
  if (i == 2) SYS(prctl(PR_SET_NAME, "prctl-named-2xxxxxxxx"));  // cut to 15 bytes
  SYS(prctl(PR_GET_NAME, self_seen[i]));
  SYS(sem_post(&named));
  while (sem_wait(&finish) != 0) CHECK(errno == EINTR);
  return NULL;
}

static void read_comm(pid_t tid, char* out, size_t size) {
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%d/comm", (int)tid);
  FILE* f = fopen(path, "r");
  CHECK(f);
  CHECK(fgets(out, (int)size, f));
  fclose(f);
  out[strcspn(out, "\n")] = 0;
}

int main(void) {
  SYS(sem_init(&named, 0, 0));
  SYS(sem_init(&finish, 0, 0));
  pthread_t t[N];
  for (int i = 0; i < N; i++) PCHECK(pthread_create(&t[i], NULL, worker, (void*)(intptr_t)i));
  for (int i = 0; i < N; i++) while (sem_wait(&named) != 0) CHECK(errno == EINTR);
  PCHECK(pthread_setname_np(t[0], "set-by-main-0"));
  printf("a 16-byte name: %s\n", errname(pthread_setname_np(t[0], "sixteen-chars-xx")));
  char buf[64];
  read_comm(getpid(), buf, sizeof buf);
  printf("main: comm %s\n", buf);
  for (int i = 0; i < N; i++) {
    char got[16];
    PCHECK(pthread_getname_np(t[i], got, sizeof got));
    read_comm(await_tid(&tids[i]), buf, sizeof buf);
    printf("worker %d: getname %s, comm %s, its own PR_GET_NAME %s\n", i, got, buf, self_seen[i]);
  }
  for (int i = 0; i < N; i++) SYS(sem_post(&finish));
  for (int i = 0; i < N; i++) PCHECK(pthread_join(t[i], NULL));
  return 0;
}
