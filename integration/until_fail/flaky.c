// The program behind run_until_fail.py: how it "fails" is chosen by its
// arguments, and which run fails by a counter in a file that outlives each
// run (the n-th run is the one that reads n-1).
//   flaky COUNTER N exit      run N exits with status 3, the others 0
//   flaky COUNTER N print     run N prints "oops: N" and exits 0
//   flaky COUNTER N hang      run N sleeps for an hour
//   flaky COUNTER 0 never     every run exits 0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  int n = 0;
  FILE* f = fopen(argv[1], "r");
  if (f) {
    if (fscanf(f, "%d", &n) != 1) n = 0;
    fclose(f);
  }
  n++;
  f = fopen(argv[1], "w");
  if (!f) return 2;
  fprintf(f, "%d\n", n);
  fclose(f);
  int chosen = atoi(argv[2]);
  printf("run %d\n", n);
  fflush(stdout);
  if (n != chosen) return 0;
  if (strcmp(argv[3], "exit") == 0) return 3;
  if (strcmp(argv[3], "print") == 0) printf("oops: %d\n", n);
  if (strcmp(argv[3], "hang") == 0) sleep(3600);
  return 0;
}
