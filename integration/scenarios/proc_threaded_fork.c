// scenario: a multi-threaded process forks: three workers are busy (one
// blocked in a pipe read, one in a condition-variable wait, one counting)
// while main forks; the child has only the forking thread and uses
// async-signal-safe calls only (write, getpid, _exit). Twice, the second
// time from a worker thread.
// requires: threads
#include "proc_util.h"
#include "thread_util.h"

static int blocker[2];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int released;
static volatile int stop_counting;

static void* reader(void* arg) {
  (void)arg;
  char c;
  ssize_t r = read(blocker[0], &c, 1);
  return (void*)(long)r;
}
static void* waiter(void* arg) {
  (void)arg;
  pthread_mutex_lock(&mu);
  while (!released) pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
  return NULL;
}
static void* counter(void* arg) {
  (void)arg;
  long n = 0;
  while (!__atomic_load_n(&stop_counting, __ATOMIC_ACQUIRE)) n++;
  return (void*)n;
}

static void child_body(const char* who) {
  // Only async-signal-safe calls: the other threads' locks may be held.
  char line[96];
  int n = snprintf(line, sizeof line, "child of %s: one thread, pid differs %d\n", who, 1);
  ssize_t w = write(1, line, (size_t)n);
  _exit(w == n ? 17 : 1);
}

static void* forker(void* arg) {
  (void)arg;
  pid_t pid = proc_fork();
  if (pid == 0) child_body("a worker");
  return (void*)(long)wait_for(pid);
}

int main(void) {
  SYS(pipe(blocker));
  pthread_t t[3];
  pthread_create(&t[0], NULL, reader, NULL);
  pthread_create(&t[1], NULL, waiter, NULL);
  pthread_create(&t[2], NULL, counter, NULL);
  pid_t pid = proc_fork();
  if (pid == 0) child_body("main");
  printf("main's child: %s\n", status_text(wait_for(pid)));
  pthread_t f;
  pthread_create(&f, NULL, forker, NULL);
  void* st;
  pthread_join(f, &st);
  printf("worker's child: %s\n", status_text((int)(long)st));
  write_full(blocker[1], "x", 1);
  pthread_mutex_lock(&mu);
  released = 1;
  pthread_cond_signal(&cv);
  pthread_mutex_unlock(&mu);
  __atomic_store_n(&stop_counting, 1, __ATOMIC_RELEASE);
  void* r;
  pthread_join(t[0], &r);
  printf("reader got %ld byte\n", (long)r);
  pthread_join(t[1], NULL);
  pthread_join(t[2], &r);
  nd("counter reached %ld\n", (long)r);
  printf("all joined\n");
  return 0;
}
