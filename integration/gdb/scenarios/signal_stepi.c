// scenario: stepi over a kill(2) that signals the program itself reports the
// scenario: signal at the next stepi, then enters the handler; reverse-stepi
// scenario: from the handler's first instruction reports the signal again,
// scenario: then goes to the syscall instruction; passed silently, neither
// scenario: direction stops for it
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile sig_atomic_t got;

static void on_usr1(int sig) {
  got += sig;
}

// kill(2) without libc, at a label a breakpoint can name.
__attribute__((noinline)) static void send_usr1(long pid) {
  long ret;
  __asm__ volatile(".globl kill_insn\nkill_insn: syscall"
                   : "=a"(ret)
                   : "a"((long)SYS_kill), "D"(pid), "S"((long)SIGUSR1)
                   : "rcx", "r11", "memory");
}

int main(void) {
  long pid = getpid();
  signal(SIGUSR1, on_usr1);
  send_usr1(pid);
  printf("got=%d\n", (int)got);
  return 0;
}
