/* Each thread's buffer: mapped and registered with backstep on the
 * thread's first bufferable call (the main thread's in the constructor).
 * Natively the registration call is unknown to the kernel (-ENOSYS): the
 * buffer is unmapped again and the thread never buffers, so the library is
 * harmless in any program. */
#define _GNU_SOURCE  /* MAP_ANONYMOUS */
#include <sys/mman.h>
#include <sys/syscall.h>

#include "preload/preload_internal.h"

__thread struct bs_thread_state bs_thread __attribute__((tls_model("initial-exec")));

static int is_error(long ret) { return ret < 0 && ret >= -4095; }

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* The next slot of the buffer region to try: process-wide (a fork's child
 * has a copy). Threads register one at a time under the recorder. */
static unsigned long next_slot;

/* A buffer in the region backstep leaves out of its state digests
 * (BS_BUFFER_REGION_START), in the first free slot from the hint on; where
 * the region is full or taken, anywhere (the digests then see the buffer,
 * whose header differs between record and replay). */
static long map_buffer(void) {
  const unsigned long slots = (BS_BUFFER_REGION_END - BS_BUFFER_REGION_START) / BS_BUFFER_SIZE;
  for (unsigned long i = 0; i < slots; ++i) {
    unsigned long slot = (next_slot + i) % slots;
    unsigned long want = BS_BUFFER_REGION_START + slot * BS_BUFFER_SIZE;
    long addr = bs_native_syscall(SYS_mmap, (long)want, BS_BUFFER_SIZE, PROT_READ | PROT_WRITE,
                                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if ((unsigned long)addr == want) {
      next_slot = slot + 1;
      return addr;
    }
    if (!is_error(addr)) {
      /* A kernel without MAP_FIXED_NOREPLACE took it as a hint. */
      bs_native_syscall(SYS_munmap, addr, BS_BUFFER_SIZE, 0, 0, 0, 0);
      break;
    }
    if (addr != -17 /* EEXIST */) break;
  }
  return bs_native_syscall(SYS_mmap, 0, BS_BUFFER_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
                           0);
}

static void start_thread_buffer(void) {
  bs_thread.status = BS_THREAD_STARTING;
  /* Ordinary traced calls: the recorder records the mapping like any other,
   * and replay maps it at the same address. */
  long addr = map_buffer();
  if (is_error(addr)) {
    bs_thread.status = BS_THREAD_REFUSED;
    return;
  }
  struct bs_buffer_header *header = (struct bs_buffer_header *)addr;
  header->version = BS_PRELOAD_VERSION;
  header->desched_fd = -1;  /* opened on the first call that may block */
  long ret = bs_native_syscall(BS_CALL_REGISTER_BUFFER, addr, BS_BUFFER_SIZE, (long)bs_stub_area,
                               BS_STUB_AREA_SIZE, (long)&bs_syscall_trampoline, BS_PRELOAD_VERSION);
  if (ret != 0) {
    bs_native_syscall(SYS_munmap, addr, BS_BUFFER_SIZE, 0, 0, 0, 0);
    bs_thread.status = BS_THREAD_REFUSED;
    return;
  }
  bs_thread.buffer = header;
  bs_thread.status = BS_THREAD_READY;
}

struct bs_buffer_header *bs_thread_buffer(void) {
  switch (bs_thread.status) {
    case BS_THREAD_READY: return bs_thread.buffer;
    case BS_THREAD_NEW: start_thread_buffer(); return bs_thread.status == BS_THREAD_READY ? bs_thread.buffer : 0;
    default: return 0;  /* refused, or a call made while registering */
  }
}

__attribute__((constructor(102))) static void start_main_thread(void) {
  if (bs_thread.status == BS_THREAD_NEW) start_thread_buffer();
}

/* The assembly's copies of the ABI numbers (asm_constants.h). */
#include <stddef.h>

#include "preload/asm_constants.h"
_Static_assert(BS_ASM_STUB_SIZE == BS_STUB_SIZE, "asm_constants.h: BS_STUB_SIZE");
_Static_assert(BS_ASM_STUB_TRACED_DELTA == BS_STUB_TRACED_DELTA, "asm_constants.h: BS_STUB_TRACED_DELTA");
_Static_assert(BS_ASM_STUB_AREA_SIZE == BS_STUB_AREA_SIZE, "asm_constants.h: BS_STUB_AREA_SIZE");
_Static_assert(BS_ASM_BUFFER_SIZE == BS_BUFFER_SIZE, "asm_constants.h: BS_BUFFER_SIZE");
_Static_assert(BS_ASM_HOOK_AGAIN == BS_HOOK_AGAIN, "asm_constants.h: BS_HOOK_AGAIN");
_Static_assert(BS_ASM_CALL_RDTSC == BS_CALL_RDTSC, "asm_constants.h: BS_CALL_RDTSC");
_Static_assert(BS_ASM_TSC_ENTRY_BEFORE_TRAMPOLINE == BS_TSC_ENTRY_BEFORE_TRAMPOLINE,
               "asm_constants.h: BS_TSC_ENTRY_BEFORE_TRAMPOLINE");
_Static_assert(BS_ASM_CALL_RDTSCP == BS_CALL_RDTSCP, "asm_constants.h: BS_CALL_RDTSCP");
_Static_assert(BS_ASM_TSCP_ENTRY_BEFORE_TRAMPOLINE == BS_TSCP_ENTRY_BEFORE_TRAMPOLINE,
               "asm_constants.h: BS_TSCP_ENTRY_BEFORE_TRAMPOLINE");
_Static_assert(offsetof(struct bs_thread_state, buffer) == 0, "the trampoline reads bs_thread.buffer at offset 0");
_Static_assert(BS_ASM_UNTRACED_SYSCALL_ADDR == BS_UNTRACED_SYSCALL_ADDR, "asm_constants.h: BS_UNTRACED_SYSCALL_ADDR");
_Static_assert(BS_ASM_SAVED_REGS_SIZE == sizeof(struct bs_saved_regs), "asm_constants.h: bs_saved_regs");
_Static_assert(offsetof(struct bs_saved_regs, rflags) == BS_ASM_SAVED_REGS_SIZE - 8, "trampoline push order");
