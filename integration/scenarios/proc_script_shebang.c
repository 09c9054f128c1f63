// scenario: a `#!/bin/sh` script written into the working directory at run
// time, made executable and run by execve (the kernel starts /bin/sh with
// the script's path); a second script with an interpreter argument
// (`#!/bin/sh -e`) that stops at a failing command; and the program finally
// execs a script itself, whose exit status ends the recording.
// expect-exit: 4
#include "proc_util.h"

#include <sys/stat.h>

static void write_script(const char* name, const char* text) {
  FILE* f = fopen(name, "w");
  CHECK(f != NULL);
  fputs(text, f);
  CHECK(fclose(f) == 0);
  SYS(chmod(name, 0755));
}

int main(void) {
  write_script("hello.sh",
               "#!/bin/sh\n"
               "echo \"script $(basename \"$0\") got $# arguments: $*\"\n"
               "for i in 1 2 3; do printf 'line %s\\n' \"$i\"; done\n"
               "exit 3\n");
  write_script("stops.sh",
               "#!/bin/sh -e\n"
               "echo before the failure\n"
               "false\n"
               "echo never printed\n");
  pid_t pid = proc_fork();
  if (pid == 0) {
    char* argv[] = {"./hello.sh", "alpha", "beta gamma", NULL};
    char* envp[] = {"PATH=/usr/bin:/bin", NULL};
    execve("./hello.sh", argv, envp);
    _exit(127);
  }
  printf("hello.sh: %s\n", status_text(wait_for(pid)));
  pid = proc_fork();
  if (pid == 0) {
    execl("./stops.sh", "stops.sh", (char*)NULL);
    _exit(127);
  }
  printf("stops.sh: %s\n", status_text(wait_for(pid)));
  write_script("last.sh", "#!/bin/sh\necho the program became a script\nexit 4\n");
  printf("exec last.sh\n");
  fflush(stdout);
  execl("./last.sh", "last.sh", (char*)NULL);
  CHECK(0);
}
