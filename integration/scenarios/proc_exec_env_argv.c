// scenario: argv and the environment passed through exec: the program
// re-execs itself (/proc/self/exe) with new arguments (spaces, an empty
// one, non-ASCII bytes) and a new environment; stage 2 forks a child that
// execs `env` with execle, and a child that execvpe's `printenv` with PATH
// set in the given environment only; stage 2 then prints what it got.
// args: stage1 "first arg"
// env: SCENARIO_KEEP=kept
#include "proc_util.h"

extern char** environ;

static int stage2(int argc, char** argv) {
  printf("stage 2: argc %d\n", argc);
  for (int i = 1; i < argc; i++) printf("  argv[%d] = [%s]\n", i, argv[i]);
  for (char** e = environ; *e; e++) printf("  env [%s]\n", *e);
  pid_t pid = proc_fork();
  if (pid == 0) {
    char* envp[] = {"ONLY=this one", "AND=that", NULL};
    execle("/usr/bin/env", "env", (char*)NULL, envp);
    _exit(127);
  }
  printf("env: %s\n", status_text(wait_for(pid)));
  pid = proc_fork();
  if (pid == 0) {
    char* argv2[] = {"printenv", "WHERE", NULL};
    char* envp[] = {"PATH=/usr/bin:/bin", "WHERE=found through execvpe", NULL};
    execvpe("printenv", argv2, envp);
    _exit(127);
  }
  printf("printenv: %s\n", status_text(wait_for(pid)));
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "stage2") == 0) return stage2(argc, argv);
  printf("stage 1: argc %d, [%s] [%s], SCENARIO_KEEP=%s\n", argc, argv[1], argc > 2 ? argv[2] : "",
         getenv("SCENARIO_KEEP"));
  char* nargv[] = {"renamed-self", "stage2", "two words", "", "\xc3\xbc\xc3\xb1", "--x=y", NULL};
  char* nenvp[] = {"A=1", "EMPTY=", "SPACES=a b  c", "SCENARIO_KEEP=replaced", NULL};
  fflush(stdout);
  execve("/proc/self/exe", nargv, nenvp);
  CHECK(0);
}
