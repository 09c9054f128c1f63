// scenario: a make-like driver: it writes three C files, forks and execs
// `cc -c` on each (all three running at once), waits for them, links the
// objects with `cc`, runs the result and checks its output; a file with a
// syntax error makes the compiler fail, and the driver reports its status.
// timeout: 300
#include "proc_util.h"

#include <fcntl.h>

static void write_file(const char* name, const char* text) {
  FILE* f = fopen(name, "w");
  CHECK(f != NULL);
  fputs(text, f);
  CHECK(fclose(f) == 0);
}

static pid_t spawn(char* const argv[], int quiet) {
  pid_t pid = proc_fork();
  if (pid == 0) {
    if (quiet) {
      int null = open("/dev/null", 1);
      dup2(null, 2);
    }
    execvp(argv[0], argv);
    _exit(127);
  }
  return pid;
}

int main(void) {
  write_file("square.c", "int square(int x) { return x * x; }\n");
  write_file("cube.c", "int square(int);\nint cube(int x) { return square(x) * x; }\n");
  write_file("main.c",
             "#include <stdio.h>\nint square(int);\nint cube(int);\n"
             "int main(void) { int s = 0; for (int i = 1; i <= 10; i++) s += cube(i) - square(i);\n"
             "  printf(\"built program: %d\\n\", s); return s % 256; }\n");
  write_file("broken.c", "int broken( { return; }\n");
  const char* units[] = {"square.c", "cube.c", "main.c"};
  pid_t pids[3];
  for (int i = 0; i < 3; i++) {
    char* argv[] = {"cc", "-c", "-O1", (char*)units[i], NULL};
    pids[i] = spawn(argv, 0);
  }
  for (int i = 0; i < 3; i++) printf("cc -c %s: %s\n", units[i], status_text(wait_for(pids[i])));
  char* link[] = {"cc", "-o", "prog", "square.o", "cube.o", "main.o", NULL};
  printf("link: %s\n", status_text(wait_for(spawn(link, 0))));
  char* broken[] = {"cc", "-c", "broken.c", NULL};
  printf("cc -c broken.c: %s\n", status_text(wait_for(spawn(broken, 1))));
  char* run[] = {"./prog", NULL};
  printf("./prog: %s\n", status_text(wait_for(spawn(run, 0))));
  return 0;
}
