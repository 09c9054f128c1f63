// scenario: a breakpoint on the first instruction of a signal handler is hit
// scenario: when the signal is delivered, forwards and backwards
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile sig_atomic_t got;

static void on_usr1(int sig) {
  got += sig;
}

// kill(2) without libc, so that the handler interrupts main itself.
static void send_usr1(long pid) {
  long ret;
  __asm__ volatile("syscall" : "=a"(ret) : "a"((long)SYS_kill), "D"(pid), "S"((long)SIGUSR1) : "rcx", "r11", "memory");
}

int main(void) {
  long pid = getpid();
  signal(SIGUSR1, on_usr1);
  send_usr1(pid);
  send_usr1(pid);
  printf("got=%d\n", (int)got);
  return 0;
}
