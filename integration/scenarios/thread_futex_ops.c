// scenario: raw futex operations between threads, beyond what glibc's
// mutexes use: WAIT/WAKE, WAIT_BITSET/WAKE_BITSET with disjoint masks,
// CMP_REQUEUE from one word to another, WAKE_OP, and a WAIT with a timeout
// that expires; each waiter is known to be blocked before it is woken.
// requires: threads
#include "thread_util.h"

#include <linux/futex.h>
#include <stdatomic.h>
#include <time.h>

static _Atomic int a, b;
static volatile pid_t tids[3];
static int woke[3];

static long futex(_Atomic int* uaddr, int op, int val, const struct timespec* ts, _Atomic int* uaddr2,
                  int val3) {
  return syscall(SYS_futex, uaddr, op, val, ts, uaddr2, val3);
}

struct waiter_arg {
  int index, op;
  _Atomic int* word;
  int bitset;
};

static void* waiter(void* p) {
  struct waiter_arg* w = p;
  publish_tid(&tids[w->index]);
  while (atomic_load(w->word) == 0) {
    long r = futex(w->word, w->op | FUTEX_PRIVATE_FLAG, 0, NULL, NULL, w->bitset);
    CHECK(r == 0 || errno == EAGAIN || errno == EINTR);
  }
  woke[w->index] = 1;
  return NULL;
}

static void start(pthread_t* t, struct waiter_arg* w) {
  tids[w->index] = 0;
  PCHECK(pthread_create(t, NULL, waiter, w));
  wait_blocked_in(await_tid(&tids[w->index]), SYS_futex);
}

int main(void) {
  pthread_t t[3];
  // WAIT_BITSET with masks 1 and 2: a WAKE_BITSET with mask 2 wakes one only.
  struct waiter_arg w0 = {0, FUTEX_WAIT_BITSET, &a, 1}, w1 = {1, FUTEX_WAIT_BITSET, &a, 2};
  start(&t[0], &w0);
  start(&t[1], &w1);
  atomic_store(&a, 1);
  long n = futex(&a, FUTEX_WAKE_BITSET | FUTEX_PRIVATE_FLAG, 10, NULL, NULL, 2);
  PCHECK(pthread_join(t[1], NULL));
  printf("WAKE_BITSET mask 2 woke %ld waiter(s); the mask-2 waiter returned: %d\n", n, woke[1]);
  // The mask-1 waiter still sleeps (a is 1 now, but nobody woke it).
  CHECK(thread_syscall_of(tids[0]) == SYS_futex);
  n = futex(&a, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 10, NULL, NULL, 0);
  PCHECK(pthread_join(t[0], NULL));
  printf("WAKE woke %ld; the mask-1 waiter returned: %d\n", n, woke[0]);

  // CMP_REQUEUE: two waiters on a; wake none, move both to b; wake b.
  atomic_store(&a, 0);
  struct waiter_arg r0 = {0, FUTEX_WAIT, &a, 0}, r1 = {1, FUTEX_WAIT, &a, 0};
  woke[0] = woke[1] = 0;
  start(&t[0], &r0);
  start(&t[1], &r1);
  n = futex(&a, FUTEX_CMP_REQUEUE | FUTEX_PRIVATE_FLAG, 0, (const struct timespec*)(uintptr_t)10, &b, 0);
  printf("CMP_REQUEUE a->b: %ld (woken + requeued)\n", n);
  atomic_store(&a, 1);
  n = futex(&a, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 10, NULL, NULL, 0);
  printf("WAKE on a after the requeue: %ld\n", n);
  // WAKE_OP: set b = 1 (op SET 1) and wake up to 10 on b, plus up to 10 on
  // a if the old value of b was 0 (there are none left on a).
  n = futex(&b, FUTEX_WAKE_OP | FUTEX_PRIVATE_FLAG, 10, (const struct timespec*)(uintptr_t)10, &b,
            FUTEX_OP(FUTEX_OP_SET, 1, FUTEX_OP_CMP_EQ, 0));
  PCHECK(pthread_join(t[0], NULL));
  PCHECK(pthread_join(t[1], NULL));
  printf("WAKE_OP on b woke %ld; both requeued waiters returned: %d %d; b = %d\n", n, woke[0],
         woke[1], atomic_load(&b));

  // A wait that times out.
  struct timespec ts = {0, 5000000};
  _Atomic int zero = 0;
  long r = futex(&zero, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 0, &ts, NULL, 0);
  printf("WAIT with a 5 ms timeout: %s\n", r == 0 ? "0" : errname(errno));
  return 0;
}
