// A program whose output is different on every run: the process id, the
// clock, random bytes, the CPU's time-stamp counter, a file it wrote. Record
// it once and every replay prints the same thing again, even after the
// binary and the file are gone.
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

int main(void) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  printf("pid %d, time %lld.%09ld\n", getpid(), (long long)now.tv_sec, now.tv_nsec);

  unsigned char dice[5];
  if (getrandom(dice, sizeof dice, 0) != sizeof dice) return 1;
  printf("dice:");
  for (int i = 0; i < 5; ++i) printf(" %d", dice[i] % 6 + 1);
  printf("\n");
  printf("tsc %llu\n", (unsigned long long)__rdtsc());

  FILE* f = fopen("roll.txt", "w");
  if (!f) return 2;
  fprintf(f, "%d %d\n", dice[0] % 6 + 1, dice[1] % 6 + 1);
  fclose(f);
  int a = 0, b = 0;
  f = fopen("roll.txt", "r");
  if (!f || fscanf(f, "%d %d", &a, &b) != 2) return 3;
  fclose(f);
  printf("read back %d + %d = %d\n", a, b, a + b);
  return (a + b) % 7;  // the exit status is part of the recording too
}
