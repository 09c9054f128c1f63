// scenario: a recorded program that arms the debug registers of its traced
// child, as a debugger's `watch` and `hbreak` do (PTRACE_POKEUSER of
// u_debugreg). A write watchpoint on one of the child's variables stops
// it after each store (SIGTRAP, TRAP_HWBKPT, DR6 naming the slot), the
// parent reads the new value and clears DR6; an instruction breakpoint on
// a function stops it before the function runs (RF set so that it
// resumes), and the parent changes the function's argument there, a
// change replay must make at that very place. The kernel's own answers
// (DR6 before any hit, DR4 and DR5, an address it refuses) are printed
// too. Where debug registers never fire (some hypervisors), the child
// runs to its end natively as recorded. Replay must print the same.
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int watched;
static volatile int doubled;

__attribute__((noinline)) static void store(int v) { watched = v; }
__attribute__((noinline)) static void marker(int v) { doubled = v * 2; }

static long dr_offset(int n) { return (long)offsetof(struct user, u_debugreg) + n * 8; }

static long peek_dr(pid_t pid, int n) {
  errno = 0;
  long v = ptrace(PTRACE_PEEKUSER, pid, dr_offset(n), 0);
  return errno ? -errno : v;
}

static long poke_dr(pid_t pid, int n, unsigned long v) {
  return ptrace(PTRACE_POKEUSER, pid, dr_offset(n), v) < 0 ? -errno : 0;
}

// The next stop's signal, or 0 once the child has exited (printed).
static int next_stop(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return 0;
  if (WIFSTOPPED(status)) return WSTOPSIG(status);
  printf("child ended: exited %d with %d\n", WIFEXITED(status), WEXITSTATUS(status));
  return 0;
}

int main(void) {
  pid_t pid = fork();
  if (pid == 0) {
    ptrace(PTRACE_TRACEME, 0, 0, 0);
    raise(SIGSTOP);
    for (int i = 1; i <= 3; i++) store(i * 7);
    marker(5);
    printf("child: watched %d doubled %d\n", watched, doubled);
    fflush(stdout);
    _exit(0);
  }
  printf("first stop: %s\n", strsignal(next_stop(pid)));
  printf("DR6 before any hit: %#lx\n", peek_dr(pid, 6));
  printf("DR4: %ld, poke DR5: %ld\n", peek_dr(pid, 4), poke_dr(pid, 5, 0));
  printf("DR2 at a kernel address: %ld\n", poke_dr(pid, 2, 0xffffffff81000000ul));
  printf("DR2 reads %#lx\n", peek_dr(pid, 2));

  // Slot 0: a 4-byte write watchpoint (L0, R/W0 = 01, LEN0 = 11).
  unsigned long dr7 = 1ul | (1ul << 16) | (3ul << 18);
  printf("arm DR0: %ld, DR7: %ld\n", poke_dr(pid, 0, (unsigned long)&watched), poke_dr(pid, 7, dr7));
  printf("DR0 is &watched: %d, DR7 %#lx\n", peek_dr(pid, 0) == (long)&watched, peek_dr(pid, 7));
  int hits = 0;
  for (;;) {
    ptrace(PTRACE_CONT, pid, 0, 0);
    int sig = next_stop(pid);
    if (sig == 0) return 0;
    siginfo_t si;
    ptrace(PTRACE_GETSIGINFO, pid, 0, &si);
    long value = ptrace(PTRACE_PEEKDATA, pid, (void*)&watched, 0);
    printf("stop %s, code %d, DR6 slots %#lx, watched %d\n", strsignal(sig), si.si_code, peek_dr(pid, 6) & 0xf,
           (int)value);
    poke_dr(pid, 6, 0);
    if (++hits == 3) break;
  }

  // Slot 1: an instruction breakpoint on marker (L1, R/W1 = 00, LEN1 = 00).
  printf("disarm: %ld\n", poke_dr(pid, 7, 0));
  poke_dr(pid, 1, (unsigned long)&marker);
  poke_dr(pid, 7, 1ul << 2);
  ptrace(PTRACE_CONT, pid, 0, 0);
  int sig = next_stop(pid);
  if (sig == 0) return 0;
  struct user_regs_struct regs;
  ptrace(PTRACE_GETREGS, pid, 0, &regs);
  printf("stop %s at marker %d, RF %llu, DR6 slots %#lx, argument %llu\n", strsignal(sig),
         regs.rip == (unsigned long)&marker, (regs.eflags >> 16) & 1, peek_dr(pid, 6) & 0xf, regs.rdi);
  regs.rdi = 21;
  ptrace(PTRACE_SETREGS, pid, 0, &regs);
  poke_dr(pid, 7, 0);
  ptrace(PTRACE_CONT, pid, 0, 0);
  next_stop(pid);
  return 0;
}
