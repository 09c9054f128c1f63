// scenario: argv (with spaces, an empty argument and non-ASCII bytes) and the
// environment variables the driver sets; the whole environment is printed
// as varying lines (a recorder may add variables such as LD_PRELOAD).
// args: first "two words" "" 'quote"inside' üñï --flag=value
// env: SCENARIO_GREETING=hello world
// env: SCENARIO_EMPTY=
#include "scenario.h"

extern char** environ;

int main(int argc, char** argv) {
  printf("argc %d\n", argc);
  for (int i = 0; i < argc; i++) printf("argv[%d] = [%s]\n", i, argv[i]);
  printf("argv[argc] is NULL: %s\n", argv[argc] == NULL ? "yes" : "no");
  const char* g = getenv("SCENARIO_GREETING");
  const char* e = getenv("SCENARIO_EMPTY");
  printf("SCENARIO_GREETING=[%s]\n", g ? g : "(unset)");
  printf("SCENARIO_EMPTY=[%s]\n", e ? e : "(unset)");
  printf("SCENARIO_MISSING set: %s\n", getenv("SCENARIO_MISSING") ? "yes" : "no");
  int n = 0;
  for (char** p = environ; *p; p++, n++) nd("env %s\n", *p);
  nd("%d environment variables\n", n);
  setenv("SCENARIO_NEW", "set at run time", 1);
  printf("after setenv: %s\n", getenv("SCENARIO_NEW"));
  unsetenv("SCENARIO_GREETING");
  printf("after unsetenv: %s\n", getenv("SCENARIO_GREETING") ? "still set" : "gone");
  return 0;
}
