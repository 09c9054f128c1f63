// scenario: 100 short-lived children, each exiting with its own status
// (its index); the parent reaps them in whatever order they end and sums
// the statuses and checks that each index came back exactly once.
#include "proc_util.h"

#define N 100

int main(void) {
  pid_t pids[N];
  for (int i = 0; i < N; i++) {
    pids[i] = proc_fork();
    if (pids[i] == 0) _exit(i + 1);
  }
  int seen[N] = {0};
  long sum = 0;
  for (int k = 0; k < N; k++) {
    int status;
    pid_t p = wait(&status);
    CHECK(p > 0);
    CHECK(WIFEXITED(status));
    int code = WEXITSTATUS(status);
    CHECK(code >= 1 && code <= N);
    CHECK(pids[code - 1] == p);
    seen[code - 1]++;
    sum += code;
  }
  for (int i = 0; i < N; i++) CHECK(seen[i] == 1);
  errno = 0;
  {
    long r = (long)wait(NULL);
    int e = errno;
    printf("wait after the last: %ld %s\n", r, errname(e));
  }
  printf("sum of %d statuses: %ld\n", N, sum);
  return 0;
}
