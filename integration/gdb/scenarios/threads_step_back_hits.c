// scenario: main steps back one instruction over a blocking read during
// scenario: which a worker hit a breakpoint three times: the step back stops
// scenario: at the worker's last hit (as a step forward stops at its first),
// scenario: switching to the worker
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static int pipefd[2];
static volatile int total;

__attribute__((noinline)) static int work(int x) {
  return x * 3;
}

static void* worker(void* arg) {
  (void)arg;
  // Long enough for main to be blocked in its read first.
  usleep(100000);
  for (int i = 1; i <= 3; i++) total += work(i);
  write(pipefd[1], "x", 1);
  return NULL;
}

// read(2) without libc, at a label a breakpoint can name: main blocks in it.
__attribute__((noinline)) static long wait_byte(void) {
  char c;
  long ret;
  __asm__ volatile(".globl read_insn\nread_insn: syscall"
                   : "=a"(ret)
                   : "a"((long)SYS_read), "D"((long)pipefd[0]), "S"(&c), "d"(1L)
                   : "rcx", "r11", "memory");
  return ret;
}

int main(void) {
  pthread_t t;
  pipe(pipefd);
  pthread_create(&t, NULL, worker, NULL);
  wait_byte();
  pthread_join(t, NULL);
  printf("total=%d\n", total);
  return 0;
}
