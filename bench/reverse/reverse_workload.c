// Workloads recorded and replayed by reverse_bench (bench/reverse/). One
// binary, several modes; built with -O1 -fno-pie -no-pie so that the symbols
// below (f, g, spin) are at fixed addresses the benchmark looks up.
//
//   memtouch MB...   map max(MB) MiB of anonymous memory; for each MB in turn
//                    touch (write) every page up to MB MiB, then getppid()
//                    (the marker: an event boundary the benchmark stops at),
//                    then 10 getpid() (the "loop" after it)
//   calls N HIT...   N iterations, one getpid() each (one event each); f(i)
//                    is called only at the iterations listed (ascending)
//   dense N          N iterations of f(i); getpid()
//   inner N          getppid(); N iterations of g(i), no system call at all;
//                    getppid()
//   spin N           getppid(); spin(N): a one-line loop, no calls, no system
//                    calls; spun(result); getppid()
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

volatile long sink;

__attribute__((noinline)) void f(long i) {
  sink += i;
}

__attribute__((noinline)) void g(long i) {
  sink ^= i * 3;
}

__attribute__((noinline)) long spin(long n) {
  long s = 0;
  for (long i = 0; i < n; i++) s += (i * i) ^ (s >> 3);
  return s;
}

// Called right after spin(): the first reverse-stepi from its breakpoint
// goes back into the end of spin's loop.
__attribute__((noinline)) void spun(long s) { sink = s; }

static void event(void) { syscall(SYS_getpid); }
static void marker(void) { syscall(SYS_getppid); }

static int memtouch(int argc, char** argv) {
  long max_mb = 0;
  for (int k = 0; k < argc; k++) {
    long mb = atol(argv[k]);
    if (mb > max_mb) max_mb = mb;
  }
  if (max_mb <= 0) return 2;
  char* p = mmap(NULL, (size_t)max_mb << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return 3;
  size_t touched = 0;
  for (int k = 0; k < argc; k++) {
    size_t upto = (size_t)atol(argv[k]) << 20;
    for (; touched < upto; touched += 4096) p[touched] = (char)(touched >> 12);
    marker();
    for (int j = 0; j < 10; j++) event();
  }
  return 0;
}

static int calls(long n, int argc, char** argv) {
  long* hits = calloc((size_t)argc + 1, sizeof(long));
  if (!hits) return 3;
  for (int k = 0; k < argc; k++) hits[k] = atol(argv[k]);
  hits[argc] = -1;
  long* next = hits;
  for (long i = 0; i < n; i++) {
    if (i == *next) {
      f(i);
      next++;
    }
    event();
  }
  free(hits);
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const char* mode = argv[1];
  long n = atol(argv[2]);
  if (!strcmp(mode, "memtouch")) return memtouch(argc - 2, argv + 2);
  if (!strcmp(mode, "calls")) return calls(n, argc - 3, argv + 3);
  if (!strcmp(mode, "dense")) {
    for (long i = 0; i < n; i++) {
      f(i);
      event();
    }
    return 0;
  }
  if (!strcmp(mode, "inner")) {
    marker();
    for (long i = 0; i < n; i++) g(i);
    marker();
    return 0;
  }
  if (!strcmp(mode, "spin")) {
    marker();
    spun(spin(n));
    marker();
    return 0;
  }
  return 2;
}
