// scenario: exec of a statically linked program (no ld.so, glibc's static
// start-up with IRELATIVE relocations and its own TLS set-up), built at run
// time with `cc -static` from libc.a; the program runs it in a child, with
// arguments, and reads its output through a pipe. Then it execs it itself.
// expect-exit: 12
// timeout: 300
#include "proc_util.h"

static const char kSource[] =
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "#include <string.h>\n"
    "#include <unistd.h>\n"
    "static __thread int tls_value = 5;\n"
    "int main(int argc, char** argv) {\n"
    "  char* heap = malloc(100000);\n"
    "  memset(heap, 'x', 100000);\n"
    "  printf(\"static: %d args, first '%s', tls %d, heap ok %d, getenv %s\\n\", argc,\n"
    "         argc > 1 ? argv[1] : \"\", tls_value, heap[99999] == 'x', getenv(\"STATIC_NOTE\"));\n"
    "  return argc + 10;\n"
    "}\n";

int main(void) {
  FILE* f = fopen("static_helper.c", "w");
  CHECK(f != NULL);
  fputs(kSource, f);
  CHECK(fclose(f) == 0);
  pid_t pid = proc_fork();
  if (pid == 0) {
    execlp("cc", "cc", "-static", "-O1", "-o", "static_helper", "static_helper.c", (char*)NULL);
    _exit(127);
  }
  int status = wait_for(pid);
  printf("cc -static: %s\n", status_text(status));
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  int fds[2];
  SYS(pipe(fds));
  pid = proc_fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    char* argv[] = {"static_helper", "child", NULL};
    char* envp[] = {"STATIC_NOTE=from-the-child", NULL};
    execve("./static_helper", argv, envp);
    _exit(127);
  }
  close(fds[1]);
  char buf[256];
  size_t n = read_full(fds[0], buf, sizeof buf - 1);
  buf[n] = 0;
  printf("through the pipe: %s", buf);
  printf("static_helper: %s\n", status_text(wait_for(pid)));
  fflush(stdout);
  setenv("STATIC_NOTE", "from-the-program", 1);
  execl("./static_helper", "static_helper", "self", (char*)NULL);
  CHECK(0);
}
