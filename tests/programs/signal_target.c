// Driven by tests/timeline_test.cc: a kill(2) of its own, at the label
// kill_insn, delivers SIGUSR1 to on_usr1 right after the syscall.
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

volatile sig_atomic_t got;

void on_usr1(int sig) { got += sig; }

__attribute__((noinline)) static void send_usr1(long pid) {
  long ret;
  __asm__ volatile(".globl kill_insn\nkill_insn: syscall"
                   : "=a"(ret)
                   : "a"((long)SYS_kill), "D"(pid), "S"((long)SIGUSR1)
                   : "rcx", "r11", "memory");
}

int main(void) {
  signal(SIGUSR1, on_usr1);
  send_usr1(getpid());
  return got;  // 10
}
