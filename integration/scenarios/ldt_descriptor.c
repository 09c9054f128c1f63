// scenario: a descriptor written into the process's LDT (modify_ldt
// function 1 and 0x11), read back (function 0), and its selector loaded
// into %es across system calls and a fork, as 16-bit and DOS emulators do:
// replay writes the descriptor again, or the selector would not load there.
// requires: ldt
#include "proc_util.h"

#include <asm/ldt.h>
#include <sys/syscall.h>

static unsigned short read_es(void) {
  unsigned short v;
  __asm__ volatile("mov %%es, %0" : "=r"(v));
  return v;
}

static void load_es(unsigned short v) { __asm__ volatile("mov %0, %%es" : : "r"(v)); }

// LDT entry 1: 32-bit data, expand-up, based at 64 KiB.
static struct user_desc entry_one(void) {
  struct user_desc d;
  memset(&d, 0, sizeof d);
  d.entry_number = 1;
  d.base_addr = 0x10000;
  d.limit = 0xffff;
  d.seg_32bit = 1;
  d.contents = 0;  // data, expand-up
  d.useable = 1;
  return d;
}

// Writes LDT entry 1 and loads its selector into %es, then clears %es.
static int load_ldt_selector(void) {
  struct user_desc d = entry_one();
  if (syscall(SYS_modify_ldt, 1, &d, sizeof d) != 0) return 1;  // the scenario says why
  load_es((1 << 3) | 4 | 3);
  load_es(0);
  return 1;
}

int main(void) {
  require_machine("usable LDT segments (loading a selector of modify_ldt's entry faults)", load_ldt_selector);
  struct user_desc d = entry_one();
  long r = syscall(SYS_modify_ldt, 1, &d, sizeof d);
  if (r != 0) {
    nd("modify_ldt write: %s\n", strerror(errno));
    return 0;
  }
  printf("write entry 1: %ld\n", r);
  d.entry_number = 3;
  d.base_addr = 0x20000;
  printf("write entry 3 (0x11): %ld\n", syscall(SYS_modify_ldt, 0x11, &d, sizeof d));
  unsigned char ldt[8 * 8];
  memset(ldt, 0xee, sizeof ldt);
  r = syscall(SYS_modify_ldt, 0, ldt, sizeof ldt);
  printf("read: %ld bytes; entry 1 base %02x%02x, entry 3 base %02x%02x\n", r, ldt[8 + 4], ldt[8 + 3], ldt[24 + 4],
         ldt[24 + 3]);
  // Selector: index 1, table LDT (4), privilege 3.
  const unsigned short sel = (1 << 3) | 4 | 3;
  load_es(sel);
  for (int i = 0; i < 3; i++) getppid();  // events with the selector in the registers
  printf("es after calls: %#x\n", read_es());
  pid_t child = proc_fork();
  if (child == 0) {
    child_say("child: es %#x\n", read_es());
    load_es((3 << 3) | 4 | 3);
    getppid();
    child_say("child: es %#x after loading entry 3\n", read_es());
    _exit(0);
  }
  printf("child: %s\n", status_text(wait_for(child)));
  load_es(0);
  printf("es cleared: %#x\n", read_es());
  return 0;
}
