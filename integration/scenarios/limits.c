// scenario: getrlimit/setrlimit/prlimit64 (values printed; the ones the
// program sets are checked), getrusage, getpriority, sched_getaffinity,
// sysconf.
#include "scenario.h"

#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>

static const struct {
  int res;
  const char* name;
} limits[] = {
    {RLIMIT_CPU, "CPU"},       {RLIMIT_FSIZE, "FSIZE"},     {RLIMIT_DATA, "DATA"},
    {RLIMIT_STACK, "STACK"},   {RLIMIT_CORE, "CORE"},       {RLIMIT_NOFILE, "NOFILE"},
    {RLIMIT_AS, "AS"},         {RLIMIT_NPROC, "NPROC"},     {RLIMIT_MEMLOCK, "MEMLOCK"},
    {RLIMIT_SIGPENDING, "SIGPENDING"}, {RLIMIT_RTPRIO, "RTPRIO"},
};

int main(void) {
  for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
    struct rlimit rl;
    SYS(getrlimit(limits[i].res, &rl));
    nd("%-10s cur %lld max %lld\n", limits[i].name, (long long)rl.rlim_cur,
       (long long)rl.rlim_max);
  }
  struct rlimit nofile;
  SYS(getrlimit(RLIMIT_NOFILE, &nofile));
  struct rlimit lower = {256, nofile.rlim_max};
  SYS(setrlimit(RLIMIT_NOFILE, &lower));
  struct rlimit check;
  SYS(getrlimit(RLIMIT_NOFILE, &check));
  printf("NOFILE soft after setrlimit: %lld\n", (long long)check.rlim_cur);
  struct rlimit core_new = {0, 0}, core_old;
  SYS(prlimit(0, RLIMIT_CORE, &core_new, &core_old));
  SYS(prlimit(0, RLIMIT_CORE, NULL, &check));
  printf("CORE after prlimit: %lld/%lld\n", (long long)check.rlim_cur, (long long)check.rlim_max);
  struct rlimit raw;
  SYS(syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &raw));
  printf("raw prlimit64 NOFILE soft: %lld\n", (long long)raw.rlim_cur);
  errno = 0;
  struct rlimit bad = {10, 5};
  CHECK(setrlimit(RLIMIT_NOFILE, &bad) == -1);
  printf("soft above hard: %s\n", errname(errno));

  volatile double x = 0;
  for (int i = 0; i < 2000000; i++) x += i * 0.5;
  struct rusage ru;
  SYS(getrusage(RUSAGE_SELF, &ru));
  nd("rusage self: utime %ld.%06ld stime %ld.%06ld maxrss %ld minflt %ld nvcsw %ld\n",
     (long)ru.ru_utime.tv_sec, (long)ru.ru_utime.tv_usec, (long)ru.ru_stime.tv_sec,
     (long)ru.ru_stime.tv_usec, ru.ru_maxrss, ru.ru_minflt, ru.ru_nvcsw);
  printf("maxrss positive: %s\n", ru.ru_maxrss > 0 ? "yes" : "no");
  SYS(getrusage(RUSAGE_CHILDREN, &ru));
  printf("children utime: %ld.%06ld\n", (long)ru.ru_utime.tv_sec, (long)ru.ru_utime.tv_usec);
  errno = 0;
  int prio = getpriority(PRIO_PROCESS, 0);
  nd("priority %d (errno %d)\n", prio, errno);
  cpu_set_t set;
  SYS(sched_getaffinity(0, sizeof set, &set));
  nd("affinity cpus %d, online %ld, configured %ld\n", CPU_COUNT(&set),
     sysconf(_SC_NPROCESSORS_ONLN), sysconf(_SC_NPROCESSORS_CONF));
  printf("affinity non-empty: %s\n", CPU_COUNT(&set) > 0 ? "yes" : "no");
  printf("clock ticks %ld page size %ld\n", sysconf(_SC_CLK_TCK), sysconf(_SC_PAGESIZE));
  return 0;
}
