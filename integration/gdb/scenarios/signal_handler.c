// scenario: a signal with a handler: gdb sees the signal, the handler runs,
// scenario: and reverse execution goes back through the handler
#include <signal.h>
#include <stdio.h>

static volatile sig_atomic_t got;

static void on_usr1(int sig) {
  got = sig;
}

int main(void) {
  signal(SIGUSR1, on_usr1);
  raise(SIGUSR1);
  printf("got=%d\n", (int)got);
  return 0;
}
