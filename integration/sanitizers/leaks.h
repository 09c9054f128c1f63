// The program the *_leaks scenarios build with a leak-checking sanitizer:
// three blocks leaked, one kept reachable through a global, and a thread
// blocked in read(2) while LeakSanitizer stops the world (its helper
// attaches to every thread with ptrace, which the recorder emulates).
// __lsan_do_recoverable_leak_check runs one check in the middle (stdout
// says what it found); the check at exit reports the leaks on stderr and
// sets the exit status.
#include <pthread.h>
#include <sanitizer/lsan_interface.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fds[2];
void* reachable;

static void* reader(void* arg) {
  char c;
  if (read(fds[0], &c, 1) != 1) return NULL;
  return arg;
}

__attribute__((noinline)) static void leak_three(void) {
  for (int i = 0; i < 3; i++) {
    char* p = malloc(32);
    strcpy(p, "leaked");
    __asm__ volatile("" : : "r"(p) : "memory");
  }
}

int main(void) {
  if (pipe(fds) != 0) return 2;
  pthread_t thread;
  pthread_create(&thread, NULL, reader, NULL);
  reachable = malloc(100);
  leak_three();
  int leaks = __lsan_do_recoverable_leak_check();
  printf("leak check in the middle: %s\n", leaks ? "leaks found" : "none");
  fflush(stdout);
  if (write(fds[1], "x", 1) != 1) return 2;
  pthread_join(thread, NULL);
  printf("joined\n");
  return 0;
}
