// scenario: a program that execs itself three times, each process
// printing the cache sizes glibc's loader worked out from cpuid at its
// start (sysconf's _SC_LEVEL*_CACHE_*: dl_init_cacheinfo, dozens of cpuid
// leaves and subleaves). From the second exec of a recording on, the
// loader's cpuid sites are stubs answered from a table of the answers
// already given (engine/core/cpuid_table.h): the sizes must be the native
// ones all the same, replay must print them again, and each later exec
// must trap at most half as often as the first.
// expect-exec-traps: 50
#include "scenario.h"

#include <stdlib.h>
#include <sys/wait.h>

static void report(const char* who) {
  printf("%s: L1d %ld (line %ld, %ld-way), L1i %ld, L2 %ld (line %ld), L3 %ld\n", who,
         sysconf(_SC_LEVEL1_DCACHE_SIZE), sysconf(_SC_LEVEL1_DCACHE_LINESIZE), sysconf(_SC_LEVEL1_DCACHE_ASSOC),
         sysconf(_SC_LEVEL1_ICACHE_SIZE), sysconf(_SC_LEVEL2_CACHE_SIZE), sysconf(_SC_LEVEL2_CACHE_LINESIZE),
         sysconf(_SC_LEVEL3_CACHE_SIZE));
  fflush(stdout);
}

int main(int argc, char** argv) {
  int depth = argc > 1 ? atoi(argv[1]) : 0;
  char who[32];
  snprintf(who, sizeof(who), "exec %d", depth);
  report(who);
  if (depth == 3) return 0;
  char next[16];
  snprintf(next, sizeof(next), "%d", depth + 1);
  if (depth == 0) {
    // The first two in children, the last in place.
    for (int i = 0; i < 2; ++i) {
      pid_t pid = SYS(fork());
      if (pid == 0) {
        execl("/proc/self/exe", argv[0], "2", (char*)NULL);
        _exit(127);
      }
      int status;
      SYS(waitpid(pid, &status, 0));
      CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
  }
  if (depth == 0 || depth == 2) {
    execl("/proc/self/exe", argv[0], "3", (char*)NULL);
    return 127;
  }
  return 0;
}
