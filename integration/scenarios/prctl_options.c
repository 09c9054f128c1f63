// scenario: prctl options beyond names and dumpable: PR_GET_AUXV, the
// speculation controls, PR_SET_TSC(PR_TSC_ENABLE) and PR_GET_TSC (option 26
// and 25: rdtsc stays enabled, as natively), PR_MCE_KILL (33) and its GET,
// PR_SET_MDWE/PR_GET_MDWE (then a write+execute mprotect fails), the options
// x86 refuses (PR_GET_ENDIAN/FPEMU/FPEXC/UNALIGN/FP_MODE), PR_SCHED_CORE_GET,
// PR_GET_TID_ADDRESS, timer slack, THP, I/O flusher, memory merge, perf
// events, and an option number no kernel knows (EINVAL). Pointer outputs
// start filled with a pattern, so memory the recording missed shows.
#include "scenario.h"

#include <elf.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <x86intrin.h>

#define FILL 0xa5
#define SET_MDWE 65
#define GET_MDWE 66
#define MDWE_REFUSE_EXEC_GAIN 1
#define SET_MEMORY_MERGE 67
#define GET_MEMORY_MERGE 68
#define GET_SHADOW_STACK_STATUS 74
#define GET_AUXV 0x41555856

static long call(const char* name, int option, unsigned long a2, unsigned long a3, unsigned long a4,
                 unsigned long a5) {
  errno = 0;
  long r = prctl(option, a2, a3, a4, a5);
  if (r < 0) {
    printf("%s (%d): %s\n", name, option, strerrorname_np(errno));
  } else {
    printf("%s (%d): %ld\n", name, option, r);
  }
  return r;
}

static void int_out(const char* name, int option) {
  int v;
  memset(&v, FILL, sizeof v);
  if (call(name, option, (unsigned long)&v, 0, 0, 0) >= 0) printf("  wrote %d\n", v);
}

int main(void) {
  uint64_t auxv[128];
  memset(auxv, FILL, sizeof auxv);
  long size = call("PR_GET_AUXV", GET_AUXV, (unsigned long)auxv, sizeof auxv, 0, 0);
  if (size > 0) {  // Linux 6.4 and later
    CHECK(size <= (long)sizeof auxv);
    long pagesz = -1;
    for (long i = 0; i + 1 < size / 8 && auxv[i] != AT_NULL; i += 2) {
      if (auxv[i] == AT_PAGESZ) pagesz = (long)auxv[i + 1];
    }
    printf("  AT_PAGESZ %ld, ends with AT_NULL: %s\n", pagesz, auxv[size / 8 - 2] == AT_NULL ? "yes" : "no");
    nd("auxv checksum %016llx\n", (unsigned long long)fnv1a(auxv, sizeof auxv, FNV_INIT));
    uint64_t small[2];
    memset(small, FILL, sizeof small);
    call("PR_GET_AUXV (16 bytes)", GET_AUXV, (unsigned long)small, sizeof small, 0, 0);
    printf("  first entry type matches: %s\n", small[0] == auxv[0] ? "yes" : "no");
  }

  call("PR_GET_SPECULATION_CTRL store bypass", PR_GET_SPECULATION_CTRL, PR_SPEC_STORE_BYPASS, 0, 0, 0);
  call("PR_GET_SPECULATION_CTRL indirect branch", PR_GET_SPECULATION_CTRL, PR_SPEC_INDIRECT_BRANCH, 0, 0, 0);
  call("PR_SET_SPECULATION_CTRL store bypass", PR_SET_SPECULATION_CTRL, PR_SPEC_STORE_BYPASS,
       PR_SPEC_DISABLE, 0, 0);
  call("PR_GET_SPECULATION_CTRL again", PR_GET_SPECULATION_CTRL, PR_SPEC_STORE_BYPASS, 0, 0, 0);

  call("PR_SET_TSC enable", PR_SET_TSC, PR_TSC_ENABLE, 0, 0, 0);
  int_out("PR_GET_TSC", PR_GET_TSC);
  call("PR_SET_TSC bogus mode", PR_SET_TSC, 7, 0, 0, 0);
  unsigned long long t1 = __rdtsc(), t2 = __rdtsc();
  printf("rdtsc still runs: %s\n", t2 >= t1 ? "yes" : "no");

  call("PR_MCE_KILL set early", PR_MCE_KILL, PR_MCE_KILL_SET, PR_MCE_KILL_EARLY, 0, 0);
  call("PR_MCE_KILL_GET", PR_MCE_KILL_GET, 0, 0, 0, 0);
  call("PR_MCE_KILL clear", PR_MCE_KILL, PR_MCE_KILL_CLEAR, 0, 0, 0);
  call("PR_MCE_KILL_GET", PR_MCE_KILL_GET, 0, 0, 0, 0);

  int_out("PR_GET_ENDIAN", PR_GET_ENDIAN);
  int_out("PR_GET_FPEMU", PR_GET_FPEMU);
  int_out("PR_GET_FPEXC", PR_GET_FPEXC);
  int_out("PR_GET_UNALIGN", PR_GET_UNALIGN);
  int_out("PR_GET_PDEATHSIG", PR_GET_PDEATHSIG);
  int_out("PR_GET_CHILD_SUBREAPER", PR_GET_CHILD_SUBREAPER);
  call("PR_GET_FP_MODE", PR_GET_FP_MODE, 0, 0, 0, 0);
  call("PR_GET_TIMING", PR_GET_TIMING, 0, 0, 0, 0);
  call("PR_CAPBSET_READ CAP_CHOWN", PR_CAPBSET_READ, 0, 0, 0, 0);
  call("PR_GET_SECUREBITS", PR_GET_SECUREBITS, 0, 0, 0, 0);
  call("PR_GET_KEEPCAPS", PR_GET_KEEPCAPS, 0, 0, 0, 0);
  call("PR_GET_NO_NEW_PRIVS", PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
  call("PR_GET_IO_FLUSHER", PR_GET_IO_FLUSHER, 0, 0, 0, 0);
  call("PR_SET_TIMERSLACK", PR_SET_TIMERSLACK, 123456, 0, 0, 0);
  call("PR_GET_TIMERSLACK", PR_GET_TIMERSLACK, 0, 0, 0, 0);
  call("PR_SET_THP_DISABLE", PR_SET_THP_DISABLE, 1, 0, 0, 0);
  call("PR_GET_THP_DISABLE", PR_GET_THP_DISABLE, 0, 0, 0, 0);
  call("PR_TASK_PERF_EVENTS_DISABLE", PR_TASK_PERF_EVENTS_DISABLE, 0, 0, 0, 0);
  call("PR_TASK_PERF_EVENTS_ENABLE", PR_TASK_PERF_EVENTS_ENABLE, 0, 0, 0, 0);
  call("PR_GET_MEMORY_MERGE", GET_MEMORY_MERGE, 0, 0, 0, 0);

  uint64_t cookie;
  memset(&cookie, FILL, sizeof cookie);
  if (call("PR_SCHED_CORE get", PR_SCHED_CORE, PR_SCHED_CORE_GET, 0, PR_SCHED_CORE_SCOPE_THREAD,
           (unsigned long)&cookie) == 0) {
    printf("  cookie %llu\n", (unsigned long long)cookie);
  }
  uint64_t shadow;
  memset(&shadow, FILL, sizeof shadow);
  if (call("PR_GET_SHADOW_STACK_STATUS", GET_SHADOW_STACK_STATUS, (unsigned long)&shadow, 0, 0, 0) == 0) {
    printf("  status %llu\n", (unsigned long long)shadow);
  }
  int* tid_address;
  memset(&tid_address, FILL, sizeof tid_address);
  call("PR_GET_TID_ADDRESS", PR_GET_TID_ADDRESS, (unsigned long)&tid_address, 0, 0, 0);
  nd("clear-child-tid at %p\n", (void*)tid_address);
  call("unknown option 999", 999, 0, 0, 0, 0);
  call("unknown option 0x7fffffff", 0x7fffffff, 1, 2, 3, 4);

  call("PR_GET_MDWE", GET_MDWE, 0, 0, 0, 0);
  if (call("PR_SET_MDWE refuse exec gain", SET_MDWE, MDWE_REFUSE_EXEC_GAIN, 0, 0, 0) == 0) {
    call("PR_GET_MDWE", GET_MDWE, 0, 0, 0, 0);
    void* page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(page != MAP_FAILED);
    errno = 0;
    int r = mprotect(page, 4096, PROT_READ | PROT_WRITE | PROT_EXEC);
    printf("write+execute mprotect: %s\n", r == 0 ? "ok" : strerrorname_np(errno));
    errno = 0;
    void* wx = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    printf("write+execute mmap: %s\n", wx != MAP_FAILED ? "ok" : strerrorname_np(errno));
    SYS(munmap(page, 4096));
  }
  return 0;
}
