// A make-like build: writes FILES small C sources into a fresh directory,
// then, one at a time as `make -j1` would, forks and execs the C compiler
// (`cc -c`, itself a tree: the driver, cc1, as) on each, and links them.
// Every process of the tree is recorded: this measures process creation,
// exec and the compiler's own work under the recorder.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int run(char* const argv[]) {
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    execvp(argv[0], argv);
    _exit(127);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char** argv) {
  int files = argc > 1 ? atoi(argv[1]) : 12;
  char dir[] = "make_tree.XXXXXX";
  if (!mkdtemp(dir)) return 1;
  char* objects[256 + 4];
  int n = 0;
  objects[n++] = "cc";
  objects[n++] = "-o";
  char exe[64];
  snprintf(exe, sizeof exe, "%s/prog", dir);
  objects[n++] = exe;
  for (int i = 0; i < files && i < 256; i++) {
    char src[64], obj[64];
    snprintf(src, sizeof src, "%s/f%d.c", dir, i);
    snprintf(obj, sizeof obj, "%s/f%d.o", dir, i);
    FILE* f = fopen(src, "w");
    if (!f) return 1;
    if (i == 0) {
      fprintf(f, "int sum(void);\nint main(void) { return sum() == %d ? 0 : 1; }\n", files * (files - 1) / 2);
      fprintf(f, "int f0(void) { return 0; }\n");
    } else {
      fprintf(f, "static int table[64];\nint f%d(void) {\n  for (int k = 0; k < 64; k++) table[k] = k * %d;\n"
                 "  return table[%d %% 64] / %d;\n}\n", i, i, 1, i > 0 ? i : 1);
    }
    fclose(f);
    char* cc[] = {"cc", "-O1", "-c", src, "-o", obj, NULL};
    if (run(cc) != 0) return 2;
    objects[n++] = strdup(obj);
  }
  char sum_src[64], sum_obj[64];
  snprintf(sum_src, sizeof sum_src, "%s/sum.c", dir);
  snprintf(sum_obj, sizeof sum_obj, "%s/sum.o", dir);
  FILE* f = fopen(sum_src, "w");
  if (!f) return 1;
  for (int i = 0; i < files; i++) fprintf(f, "int f%d(void);\n", i);
  fprintf(f, "int sum(void) { return 0");
  for (int i = 0; i < files; i++) fprintf(f, " + f%d() * 0 + %d", i, i);
  fprintf(f, "; }\n");
  fclose(f);
  char* cc[] = {"cc", "-O1", "-c", sum_src, "-o", sum_obj, NULL};
  if (run(cc) != 0) return 2;
  objects[n++] = sum_obj;
  objects[n] = NULL;
  if (run(objects) != 0) return 3;
  char* prog[] = {exe, NULL};
  int built = run(prog);
  char* rm[] = {"rm", "-rf", dir, NULL};
  run(rm);
  printf("built %d files, program says %d\n", files + 1, built);
  return built;
}
