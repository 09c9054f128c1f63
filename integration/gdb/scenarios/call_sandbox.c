// scenario: functions gdb calls during replay run in a sandbox the kernel
// scenario: enforces (engine/timeline/diversion_sandbox.h): calls that
// scenario: would change the file gdb's script made (chmod, unlink) or
// scenario: create one (open) fail with ENOSYS and change nothing, a write
// scenario: to a descriptor other than stdout and stderr is refused, each
// scenario: refusal is told to the user, and a call the sandbox allows (a
// scenario: write to stdout) still runs. The 32-bit (int 0x80) variants,
// scenario: which this machine's kernel may not run at all, are checked
// scenario: against the kernel in tests/diversion_sandbox_test.cc.
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int counter = 0;

// Raw calls: the result is -errno, with nothing of libc in between.
static long call3(long nr, long a, long b, long c) {
  long ret;
  __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
  return ret;
}

long chmod64(const char* path, int mode) { return call3(SYS_chmod, (long)path, mode, 0); }
long unlink64(const char* path) { return call3(SYS_unlink, (long)path, 0, 0); }
long create64(const char* path) { return call3(SYS_open, (long)path, O_CREAT | O_WRONLY, 0600); }
long write_fd(int fd, const char* text) { return call3(SYS_write, fd, (long)text, (long)strlen(text)); }

void visit(int i) { counter += i; }

int main(void) {
  for (int i = 0; i < 3; i++) visit(i);
  return 0;
}
