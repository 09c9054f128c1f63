// scenario: system call sites of every shape the recorder patches by
// decoding what follows the `syscall` (engine/core/syscall_stub.h), each
// called 200 times: the first call is traced and patches the site, the
// rest run through its stub and are buffered. The shapes, written in
// assembly so that the compiler cannot change them:
//   - `syscall; ret` and alignment padding (glibc's getpid, gettid...);
//   - `mov %eax,%edx; cmp $-4096,%edx`: two instructions move;
//   - `mov data(%rip),%rcx`: a rip-relative load, re-addressed in the stub;
//   - `test %eax,%eax; jne`: a rel8 jcc, moved as its rel32 form;
//   - `cmp $0xfffff000,%eax; ja`, around a write of 16 bytes to /dev/null.
// Each result is checked against what the unpatched call returns.
//
// Stubs live in the preload library, within a rel32 jump of the sites they
// serve: libraries qualify, an executable mapped far from them does not.
// So the program copies its shapes into a file and maps it, as the dynamic
// loader maps a library (the mapping lands next to the others).
// expect-buffered: 950
#include "scenario.h"

#include <fcntl.h>
#include <sys/mman.h>

extern const unsigned char shape_begin[], shape_end[];
extern const unsigned char shape_ret[], shape_two[], shape_rip[], shape_jcc[], shape_write[];
extern long shape_data;

__asm__(
    ".text\n"
    ".p2align 4\n"
    ".globl shape_begin\n"
    "shape_begin:\n"
    ".globl shape_ret\n"
    "shape_ret:\n"
    "  mov $39, %eax\n"  // getpid
    "  syscall\n"
    "  ret\n"
    ".p2align 4\n"
    ".globl shape_two\n"
    "shape_two:\n"
    "  mov $39, %eax\n"
    "  syscall\n"
    "  mov %eax, %edx\n"
    "  cmp $-4096, %edx\n"
    "  ja 1f\n"
    "  mov %edx, %eax\n"
    "  ret\n"
    "1:\n"
    "  mov $-1, %rax\n"
    "  ret\n"
    ".p2align 4\n"
    ".globl shape_rip\n"
    "shape_rip:\n"
    "  mov $39, %eax\n"
    "  syscall\n"
    "  mov shape_data(%rip), %rcx\n"
    "  add %rcx, %rax\n"
    "  ret\n"
    ".p2align 4\n"
    ".globl shape_jcc\n"
    "shape_jcc:\n"
    "  mov $39, %eax\n"
    "  syscall\n"
    "  test %eax, %eax\n"
    "  jne 2f\n"
    "  mov $-2, %rax\n"
    "  ret\n"
    "2:\n"
    "  add $7, %rax\n"
    "  ret\n"
    ".p2align 4\n"
    ".globl shape_write\n"
    "shape_write:\n"
    "  mov $1, %eax\n"  // write(fd, buf, n)
    "  syscall\n"
    "  cmp $0xfffff000, %eax\n"
    "  ja 3f\n"
    "  ret\n"
    "3:\n"
    "  mov $-1, %rax\n"
    "  ret\n"
    ".p2align 3\n"
    ".globl shape_data\n"
    "shape_data: .quad 1000\n"
    ".globl shape_end\n"
    "shape_end:\n");

typedef long (*nullary)(void);
typedef long (*writer)(int, const void*, unsigned long);

int main(void) {
  const long pid = getpid();
  // The shapes, mapped from a file of their own (privately, writable for
  // shape_data).
  size_t len = (size_t)(shape_end - shape_begin);
  int f = SYS(open("shapes.bin", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  CHECK(write(f, shape_begin, len) == (ssize_t)len);
  unsigned char* code = mmap(NULL, len, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE, f, 0);
  CHECK(code != MAP_FAILED);
  close(f);
  unlink("shapes.bin");
#define AT(sym) (code + ((const unsigned char*)(sym) - shape_begin))
  nullary ret_fn = (nullary)AT(shape_ret), two_fn = (nullary)AT(shape_two), rip_fn = (nullary)AT(shape_rip),
          jcc_fn = (nullary)AT(shape_jcc);
  writer write_fn = (writer)AT(shape_write);
  long* data = (long*)AT(&shape_data);

  int null = SYS(open("/dev/null", O_WRONLY | O_CLOEXEC));
  int ret_ok = 0, two_ok = 0, rip_ok = 0, jcc_ok = 0, write_ok = 0;
  for (int i = 0; i < 200; i++) {
    ret_ok += ret_fn() == pid;
    two_ok += two_fn() == pid;
    *data = 1000 + i;  // the stub's load must read the variable, not a copy
    rip_ok += rip_fn() == pid + 1000 + i;
    jcc_ok += jcc_fn() == pid + 7;
    char line[16];
    snprintf(line, sizeof line, "line %010d", i);
    write_ok += write_fn(null, line, 16) == 16;
  }
  printf("syscall; ret: %d of 200\n", ret_ok);
  printf("two moved: %d of 200\n", two_ok);
  printf("rip-relative: %d of 200\n", rip_ok);
  printf("jcc: %d of 200\n", jcc_ok);
  printf("write with cmp %%eax: %d of 200\n", write_ok);
  // A bad descriptor through the same site: the error comes back as the
  // kernel's, through the stub's displaced check.
  printf("write to a closed descriptor: %ld\n", write_fn(999, "x", 1));
  return 0;
}
