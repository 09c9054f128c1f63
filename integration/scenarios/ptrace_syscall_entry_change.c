// scenario: a recorded program that changes its traced child at system-call
// entry stops (PTRACE_SYSCALL), as a debugger's `catch syscall` (which
// removes and inserts breakpoints there) and strace's `-e inject` do:
//  - at the entry of a write, the bytes the call is about to write
//    (PTRACE_POKEDATA) and its length argument (PTRACE_POKEUSER of rdx);
//  - at the entry of a getppid, the call is skipped (orig_rax -1) and its
//    result set at the exit stop (rax);
//  - at the entry of a nanosleep, which blocks, the child's memory.
// The child prints what it got. Replay must make each change where the
// call began, before the call runs, and print the same.
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char message[16] = "abcdefgh\n";
static volatile long marker;

static void child(void) {
  if (ptrace(PTRACE_TRACEME, 0, 0, 0) != 0) _exit(90);
  raise(SIGSTOP);
  long w = syscall(SYS_write, 1, message, 9);
  long pp = syscall(SYS_getppid);
  struct timespec ts = {0, 1000000};
  syscall(SYS_nanosleep, &ts, NULL);
  char line[96];
  int n = snprintf(line, sizeof line, "child: write returned %ld, getppid %ld, marker %ld\n", w, pp, marker);
  syscall(SYS_write, 1, line, n);
  _exit(0);
}

static int stop(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  if (!WIFSTOPPED(status)) {
    printf("child ended: exited %d with %d\n", WIFEXITED(status), WEXITSTATUS(status));
    return -1;
  }
  return WSTOPSIG(status);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  pid_t pid = fork();
  if (pid == 0) child();
  if (stop(pid) != SIGSTOP) return 1;
  ptrace(PTRACE_SETOPTIONS, pid, 0, PTRACE_O_TRACESYSGOOD);
  int entry = 1, changes = 0;
  long skipped = -1;
  for (;;) {
    ptrace(PTRACE_SYSCALL, pid, 0, 0);
    int sig = stop(pid);
    if (sig < 0) break;
    if (sig != (SIGTRAP | 0x80)) continue;
    struct user_regs_struct regs;
    ptrace(PTRACE_GETREGS, pid, 0, &regs);
    long nr = (long)regs.orig_rax;
    if (entry && nr == SYS_write && regs.rdi == 1 && regs.rsi == (unsigned long)message) {
      long word;
      memcpy(&word, "ABCDEFGH", 8);
      ptrace(PTRACE_POKEDATA, pid, (void*)message, (void*)word);
      ptrace(PTRACE_POKEUSER, pid, (void*)offsetof(struct user_regs_struct, rdx), (void*)5);
      changes++;
    } else if (entry && nr == SYS_getppid) {
      ptrace(PTRACE_POKEUSER, pid, (void*)offsetof(struct user_regs_struct, orig_rax), (void*)-1L);
      skipped = nr;
      changes++;
    } else if (!entry && skipped == SYS_getppid) {
      printf("getppid skipped: rax %lld at its exit\n", (long long)regs.rax);
      ptrace(PTRACE_POKEUSER, pid, (void*)offsetof(struct user_regs_struct, rax), (void*)4242L);
      skipped = -1;
    } else if (entry && nr == SYS_nanosleep) {
      ptrace(PTRACE_POKEDATA, pid, (void*)&marker, (void*)77L);
      changes++;
    }
    entry = !entry;
  }
  printf("changes at entries: %d\n", changes);
  return 0;
}
