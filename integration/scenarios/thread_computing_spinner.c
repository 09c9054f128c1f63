// scenario: a worker computes in a loop without system calls (its state
// changes on every pass) while main sends it SIGURG with tgkill twenty
// times, as a runtime's preemption signal would, each once the last was
// handled (sleeping 1 ms at a time meanwhile); an ITIMER_PROF timer ticks. The recorder hands the CPU back and
// forth at forced positions, each of which stores the worker's state; the
// replay without a debugger takes each position from that state.
// requires: threads
#include "thread_util.h"

#include <signal.h>
#include <sys/time.h>

static volatile sig_atomic_t urg_hits;
static volatile sig_atomic_t prof_hits;
static volatile int stop;
static volatile pid_t worker_tid;

static void on_urg(int sig) {
  (void)sig;
  urg_hits++;
}

static void on_prof(int sig) {
  (void)sig;
  prof_hits++;
}

static void* worker(void* arg) {
  (void)arg;
  worker_tid = thread_tid();
  unsigned long h = 0;
  while (!stop) h = h * 33 + 1;
  return (void*)h;
}

int main(void) {
  struct sigaction sa = {0};
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sa.sa_handler = on_urg;
  SYS(sigaction(SIGURG, &sa, NULL));
  sa.sa_handler = on_prof;
  SYS(sigaction(SIGPROF, &sa, NULL));
  struct itimerval it = {{0, 1000}, {0, 1000}};
  SYS(setitimer(ITIMER_PROF, &it, NULL));

  pthread_t th;
  PCHECK(pthread_create(&th, NULL, worker, NULL));
  while (!worker_tid) sched_yield();
  // The next signal only once the last was handled: two pending at once
  // would merge into one.
  for (int i = 0; i < 20; i++) {
    SYS(syscall(SYS_tgkill, getpid(), worker_tid, SIGURG));
    while (urg_hits <= i) usleep(1000);
  }
  stop = 1;
  void* h;
  PCHECK(pthread_join(th, &h));
  struct itimerval off = {{0, 0}, {0, 0}};
  SYS(setitimer(ITIMER_PROF, &off, NULL));
  printf("the worker took %d SIGURG\n", (int)urg_hits);
  printf("~ SIGPROF %d times, the worker's hash %lx\n", (int)prof_hits, (unsigned long)h);
  return 0;
}
