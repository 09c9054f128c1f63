// scenario: a recorded tracer that block-steps its child (PTRACE_SINGLEBLOCK)
// through a few branches: a jmp, a taken jnz, a je, a call and its ret.
// Where the CPU traps on taken branches the child stops after each of them;
// where a hypervisor hides that trap (as on the machine this was written
// on), after every instruction: the number of stops varies ("~"), the
// labelled places it stops at in order do not. The first time round, the
// tracer changes rcx at the stop after the jnz (PTRACE_SETREGS), so the je
// is taken and the call never made; the second time it does not. The
// recorder steps the real child with PTRACE_SINGLEBLOCK, and the stop where
// rcx changes becomes an exact position, as after a single step.
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ptrace_util.h"

extern char start[], after_jmp[], after_jnz[], in_f[], after_call[], done[];
void run_block(void);
__asm__(".text\n"
        "f:\n in_f: nop\n nop\n ret\n"
        "run_block:\n int3\n"
        "start: mov $1, %eax\n add $2, %eax\n jmp after_jmp\n nop\n"
        "after_jmp: mov %eax, %ecx\n test %ecx, %ecx\n jnz after_jnz\n nop\n"
        "after_jnz: cmp $5, %ecx\n je done\n call f\n"
        "after_call: nop\n nop\n jmp done\n nop\n"
        "done: ret\n");

static const char* place(unsigned long ip) {
  const struct {
    const char* name;
    const char* at;
  } places[] = {{"start", start}, {"after_jmp", after_jmp}, {"after_jnz", after_jnz},
                {"in_f", in_f},   {"after_call", after_call}, {"done", done}};
  for (unsigned i = 0; i < sizeof(places) / sizeof(places[0]); ++i) {
    if (ip == (unsigned long)places[i].at) return places[i].name;
  }
  return NULL;
}

// Block-steps from the int3 to `done`, printing the labelled stops.
static void walk(pid_t pid, int change_rcx) {
  int stops = 0;
  printf("walk%s:", change_rcx ? " (rcx changed after the jnz)" : "");
  for (;;) {
    struct user_regs_struct regs;
    ptrace(PTRACE_GETREGS, pid, 0, &regs);
    const char* name = place(regs.rip);
    if (name) printf(" %s", name);
    if (name && strcmp(name, "done") == 0) break;
    if (change_rcx && name && strcmp(name, "after_jnz") == 0) {
      regs.rcx = 5;
      ptrace(PTRACE_SETREGS, pid, 0, &regs);
    }
    if (ptrace(PTRACE_SINGLEBLOCK, pid, 0, 0) != 0 || wait_stop(pid) != SIGTRAP || ++stops > 100) {
      printf(" (lost)");
      break;
    }
  }
  printf("\n~%d stops\n", stops);
}

int main(void) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    ptrace(PTRACE_TRACEME, 0, 0, 0);
    run_block();
    run_block();
    _exit(0);
  }
  for (int round = 0; round < 2; ++round) {
    if (wait_stop(pid) != SIGTRAP) return 1;  // the int3 before start
    walk(pid, round == 0);
    ptrace(PTRACE_CONT, pid, 0, 0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  printf("child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return 0;
}
