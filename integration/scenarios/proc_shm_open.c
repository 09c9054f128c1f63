// scenario: POSIX shared memory by name: the parent shm_open()s an object,
// sizes it and maps it; the child opens the same name on its own (a new
// open file description) and maps it too; they hand a token back and
// forth 300 times through a process-shared mutex and condition variable in
// the object; then the name is unlinked.
#include "proc_util.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>

struct area {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int turn;  // 0: parent, 1: child
  int rounds;
  char note[64];
};

static struct area* map_area(int fd) {
  struct area* a = mmap(NULL, sizeof(struct area), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  CHECK(a != MAP_FAILED);
  return a;
}

static void play(struct area* a, int me) {
  for (int i = 0; i < 300; i++) {
    pthread_mutex_lock(&a->mu);
    while (a->turn != me) pthread_cond_wait(&a->cv, &a->mu);
    a->rounds++;
    a->turn = !me;
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
  }
}

int main(void) {
  char name[64];
  snprintf(name, sizeof name, "/backstep-scenario-%d", (int)getpid());
  int fd = SYS(shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600));
  SYS(ftruncate(fd, sizeof(struct area)));
  struct area* a = map_area(fd);
  pthread_mutexattr_t ma;
  pthread_mutexattr_init(&ma);
  pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
  pthread_mutex_init(&a->mu, &ma);
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
  pthread_cond_init(&a->cv, &ca);
  close(fd);
  pid_t pid = proc_fork();
  if (pid == 0) {
    int cfd = shm_open(name, O_RDWR, 0);
    if (cfd < 0) _exit(3);
    struct area* mine = map_area(cfd);
    close(cfd);
    play(mine, 1);
    strcpy(mine->note, "the child's own mapping");
    _exit(0);
  }
  play(a, 0);
  printf("child: %s\n", status_text(wait_for(pid)));
  printf("rounds %d, note '%s'\n", a->rounds, a->note);
  SYS(shm_unlink(name));
  errno = 0;
  {
    long r = (long)(shm_open(name, O_RDWR, 0));
    int e = errno;
    printf("open after unlink: %ld %s\n", r, errname(e));
  }
  return 0;
}
