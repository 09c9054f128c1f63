// Helpers shared by the scenario programs (integration/scenarios/*.c).
//
// Output conventions the driver (run_scenario.py) relies on:
//   - A line that starts with "~" carries values that differ from run to run
//     (times, pids, addresses, random bytes). The driver ignores such lines
//     when it compares a native run with the recording, but replay must
//     reproduce them byte for byte like every other line.
//   - Every other line must be the same in every native run on one machine.
//   - A failed self-check prints "CHECK failed ..." on stderr and exits 2, so a
//     broken scenario (or a recorder that changes what the program sees) shows
//     up as an unexpected exit status.
#pragma once

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK(cond)                                                         \
  do {                                                                      \
    if (!(cond)) {                                                          \
      int check_errno_ = errno;                                             \
      fflush(stdout);                                                       \
      fprintf(stderr, "CHECK failed %s:%d: %s (errno %d: %s)\n", __FILE__,  \
              __LINE__, #cond, check_errno_, strerror(check_errno_));       \
      exit(2);                                                              \
    }                                                                       \
  } while (0)

// A call that returns -1 on failure; evaluates to its result.
#define SYS(expr)                                                           \
  ({                                                                        \
    long sys_r_ = (long)(expr);                                             \
    if (sys_r_ == -1) {                                                     \
      int sys_errno_ = errno;                                               \
      fflush(stdout);                                                       \
      fprintf(stderr, "SYS failed %s:%d: %s (errno %d: %s)\n", __FILE__,    \
              __LINE__, #expr, sys_errno_, strerror(sys_errno_));           \
      exit(2);                                                              \
    }                                                                       \
    sys_r_;                                                                 \
  })

// Prints one nondeterministic line ("~ " + text) on stdout.
static inline __attribute__((format(printf, 1, 2))) void nd(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("~ ", stdout);
  vprintf(fmt, ap);
  va_end(ap);
}

// Prints "~ LABEL: hex bytes".
static inline void nd_hex(const char* label, const void* data, size_t len) {
  const unsigned char* p = (const unsigned char*)data;
  printf("~ %s: ", label);
  for (size_t i = 0; i < len; i++) printf("%02x", p[i]);
  putchar('\n');
}

// FNV-1a, 64 bits: a checksum that is cheap to print and compare.
static inline uint64_t fnv1a(const void* data, size_t len, uint64_t h) {
  const unsigned char* p = (const unsigned char*)data;
  for (size_t i = 0; i < len; i++) {
    h ^= p[i];
    h *= 1099511628211ULL;
  }
  return h;
}
#define FNV_INIT 14695981039346656037ULL

// Deterministic pseudo-random numbers (xorshift64*), for data that only has
// to look random.
static inline uint64_t xorshift(uint64_t* s) {
  uint64_t x = *s;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *s = x;
  return x * 2685821657736338717ULL;
}

// Name of an errno value, for deterministic output.
static inline const char* errname(int e) {
  switch (e) {
    case 0: return "0";
    case ENOENT: return "ENOENT";
    case EEXIST: return "EEXIST";
    case EAGAIN: return "EAGAIN";
    case EINTR: return "EINTR";
    case EINVAL: return "EINVAL";
    case ENOTTY: return "ENOTTY";
    case EBADF: return "EBADF";
    case EACCES: return "EACCES";
    case ENOTDIR: return "ENOTDIR";
    case EISDIR: return "EISDIR";
    case ENOTEMPTY: return "ENOTEMPTY";
    case EINPROGRESS: return "EINPROGRESS";
    case EPIPE: return "EPIPE";
    case ECONNREFUSED: return "ECONNREFUSED";
    case ENOTCONN: return "ENOTCONN";
    case ESPIPE: return "ESPIPE";
    case EFAULT: return "EFAULT";
    case ENOSYS: return "ENOSYS";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    case ETIMEDOUT: return "ETIMEDOUT";
    case ERANGE: return "ERANGE";
    case E2BIG: return "E2BIG";
    case ENOMEM: return "ENOMEM";
    case EPERM: return "EPERM";
    case ENOPROTOOPT: return "ENOPROTOOPT";
    case ECONNRESET: return "ECONNRESET";
    case ESRCH: return "ESRCH";
    case EDEADLK: return "EDEADLK";
    case EBUSY: return "EBUSY";
    case EOWNERDEAD: return "EOWNERDEAD";
    case ENOTRECOVERABLE: return "ENOTRECOVERABLE";
    default: return "E?";
  }
}

// Whether /proc/self/maps has a mapping named `name` ("[vsyscall]").
static inline int has_mapping_named(const char* name) {
  FILE* f = fopen("/proc/self/maps", "r");
  CHECK(f != NULL);
  char line[512];
  int found = 0;
  while (fgets(line, sizeof line, f)) found |= strstr(line, name) != NULL;
  fclose(f);
  return found;
}

// For a scenario whose header says `requires: ia32-emulation`, `requires:
// ldt` or `requires: tsc-fault`: what this machine's kernel or hypervisor
// may not offer at all (a kernel without IA32 emulation faults on int
// 0x80; some hypervisors fault on a loaded LDT selector, or ignore
// PR_SET_TSC). `probe` says whether the machine has it (a SIGSEGV inside
// it: no). Without it, the program says so on stderr and exits 77, which
// run_scenario.py reports as SKIPPED. Run with SCENARIO_PROBE=1 in the
// environment, the program only probes (exit 0 when the machine has it):
// the driver does that before the native runs.
#include <setjmp.h>
#include <signal.h>

static sigjmp_buf scenario_probe_jump;
static inline void scenario_probe_fault(int sig) { siglongjmp(scenario_probe_jump, sig); }

static inline void require_machine(const char* what, int (*probe)(void)) {
  struct sigaction guard, old;
  memset(&guard, 0, sizeof guard);
  guard.sa_handler = scenario_probe_fault;
  sigaction(SIGSEGV, &guard, &old);
  int has = 0;
  if (!sigsetjmp(scenario_probe_jump, 1)) has = probe();
  sigaction(SIGSEGV, &old, NULL);
  if (!has) {
    fprintf(stderr, "this machine has no %s\n", what);
    exit(77);
  }
  if (getenv("SCENARIO_PROBE")) exit(0);
}
