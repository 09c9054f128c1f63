// scenario: popen() for reading (a shell pipeline), popen() for writing
// (into `wc -c` whose output goes to our stdout), and system() with
// several exit statuses, including a command killed by a signal.
#include "proc_util.h"

int main(void) {
  fflush(stdout);
  FILE* in = popen("seq 1 100 | awk '{ s += $1 } END { print s }'", "r");
  CHECK(in != NULL);
  char line[128];
  CHECK(fgets(line, sizeof line, in) != NULL);
  printf("popen read: %s", line);
  printf("pclose: %s\n", status_text(pclose(in)));

  fflush(stdout);
  FILE* out = popen("wc -c", "w");
  CHECK(out != NULL);
  for (int i = 0; i < 1000; i++) fprintf(out, "%d\n", i);
  int st = pclose(out);
  printf("pclose of the writer: %s\n", status_text(st));

  const char* cmds[] = {"true", "exit 3", "echo from system", "kill -TERM $$", "no-such-command-xyz 2>/dev/null"};
  for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
    fflush(stdout);
    int s = system(cmds[i]);
    printf("system(%s): %s\n", cmds[i], status_text(s));
  }
  printf("system(NULL) finds a shell: %d\n", system(NULL) != 0);
  return 0;
}
