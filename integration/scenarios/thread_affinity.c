// scenario: CPU affinity per thread: a worker pins itself to the first CPU
// main may use, reads its mask back, and main's own mask is unchanged;
// sched_getcpu agrees with the pin. Counts and CPU numbers go on "~" lines.
// requires: threads
#include "thread_util.h"

static cpu_set_t main_mask;
static int first_cpu = -1, worker_count = -1, worker_on = -1, worker_in_mask = -1;

static void* worker(void* arg) {
  (void)arg;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first_cpu, &one);
  PCHECK(pthread_setaffinity_np(pthread_self(), sizeof one, &one));
  cpu_set_t back;
  PCHECK(pthread_getaffinity_np(pthread_self(), sizeof back, &back));
  worker_count = CPU_COUNT(&back);
  worker_in_mask = CPU_ISSET(first_cpu, &back);
  worker_on = sched_getcpu();  // running only there from now on
  return NULL;
}

int main(void) {
  SYS(sched_getaffinity(0, sizeof main_mask, &main_mask));
  for (int c = 0; c < CPU_SETSIZE && first_cpu < 0; c++)
    if (CPU_ISSET(c, &main_mask)) first_cpu = c;
  CHECK(first_cpu >= 0);
  nd("main may run on %d CPU(s), the first is %d\n", CPU_COUNT(&main_mask), first_cpu);
  pthread_t t;
  PCHECK(pthread_create(&t, NULL, worker, NULL));
  PCHECK(pthread_join(t, NULL));
  cpu_set_t after;
  SYS(sched_getaffinity(0, sizeof after, &after));
  printf("worker's mask after pinning: %d CPU, the chosen one: %s\n", worker_count,
         worker_in_mask ? "yes" : "no");
  printf("worker's sched_getcpu is the pinned CPU: %s\n", worker_on == first_cpu ? "yes" : "no");
  printf("main's mask unchanged: %s\n", CPU_EQUAL(&after, &main_mask) ? "yes" : "no");
  return 0;
}
