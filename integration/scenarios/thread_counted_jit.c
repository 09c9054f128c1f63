// scenario: JIT-like code: the program writes a computing loop into an
// anonymous executable mapping, two threads run it, and between rounds the
// program rewrites the loop's constant (as a JIT recompiles). Code made at
// run time is never patched by the recorder's counting (it could be
// rewritten under the jump), so these hand-overs stay digest positions;
// replay must follow both the rewritten code and the schedule.
// requires: threads
#include "thread_util.h"

#include <string.h>
#include <sys/mman.h>

// uint64_t loop(uint64_t n /*rdi*/): h = 1; while (n--) h = h * 3 + K; return h
//   mov $1, %eax; mov $K, %rcx (imm64 at offset 7)
//   top: imul $3, %rax, %rax; add %rcx, %rax; dec %rdi; jnz top; ret
static const unsigned char kLoop[] = {
    0xb8, 0x01, 0x00, 0x00, 0x00,                                // mov $1,%eax
    0x48, 0xb9, 0, 0, 0, 0, 0, 0, 0, 0,                          // movabs $K,%rcx
    0x48, 0x6b, 0xc0, 0x03,                                      // imul $3,%rax,%rax
    0x48, 0x01, 0xc8,                                            // add %rcx,%rax
    0x48, 0xff, 0xcf,                                            // dec %rdi
    0x75, 0xf4,                                                  // jnz imul
    0xc3,                                                        // ret
};

typedef uint64_t (*loop_fn)(uint64_t);
static loop_fn code;

static void* worker(void* arg) {
  return (void*)(uintptr_t)code((uint64_t)(uintptr_t)arg);
}

int main(void) {
  unsigned char* page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return 1;
  memcpy(page, kLoop, sizeof kLoop);
  code = (loop_fn)page;
  for (uint64_t round = 0; round < 3; round++) {
    uint64_t k = 0x9e3779b97f4a7c15ull + round;
    memcpy(page + 7, &k, 8);  // the "recompiled" constant
    __builtin___clear_cache((char*)page, (char*)page + sizeof kLoop);
    pthread_t t[2];
    for (uintptr_t i = 0; i < 2; i++) PCHECK(pthread_create(&t[i], NULL, worker, (void*)(uintptr_t)(60000000 + i)));
    for (int i = 0; i < 2; i++) {
      void* h;
      PCHECK(pthread_join(t[i], &h));
      printf("round %llu thread %d: %016llx\n", (unsigned long long)round, i, (unsigned long long)(uintptr_t)h);
    }
  }
  return 0;
}
