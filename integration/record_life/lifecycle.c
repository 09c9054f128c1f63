// Helper for run_record_life.py: the program side of the recorder's life
// cycle tests (signals, a killed recorder, a full disk). One mode per run:
//
//   lifecycle sigstate      prints the disposition of every signal and the
//                           blocked mask it started with, then exits 0
//   lifecycle lines N       prints N numbered lines (0: forever), one write(2)
//                           each; a failed write exits 4
//   lifecycle pause N       prints N lines, then "ready", then waits in
//                           pause() for a signal, forever
//   lifecycle groupkill SIG HOW
//                           signal SIG (a number) left at its default, ignored
//                           or caught (HOW: default, ignore, handler), prints
//                           "before", sends SIG to its own process group with
//                           kill(0, SIG), prints "after" and exits 0
//   lifecycle parentkill SIG
//                           prints "before", sends SIG to its parent (under
//                           record: the recorder), prints "after", exits 0
//   lifecycle noise         forever: 64 KiB from getrandom, then a line, so
//                           that the trace grows fast and does not compress
//
// Every mode stops by itself after 300 seconds (alarm), so that it never
// outlives a failed test for long.
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

static void put(const char* text) {
  size_t n = strlen(text);
  if (write(1, text, n) != (ssize_t)n) exit(4);
}

static void lines(long count) {
  char line[64];
  for (long i = 0; count == 0 || i < count; i++) {
    snprintf(line, sizeof line, "line %ld\n", i);
    put(line);
  }
}

static int sigstate(void) {
  sigset_t mask;
  sigprocmask(SIG_SETMASK, NULL, &mask);
  char line[96];
  for (int sig = 1; sig < 32; sig++) {
    struct sigaction sa;
    if (sigaction(sig, NULL, &sa) != 0) continue;
    const char* how = sa.sa_handler == SIG_DFL ? "default" : sa.sa_handler == SIG_IGN ? "ignored" : "handled";
    snprintf(line, sizeof line, "%-10s %-8s %s\n", sigabbrev_np(sig), how,
             sigismember(&mask, sig) ? "blocked" : "-");
    put(line);
  }
  return 0;
}

static void on_group_signal(int sig) {
  char line[64];
  snprintf(line, sizeof line, "handled %s\n", sigabbrev_np(sig));
  put(line);
}

static int groupkill(int sig, const char* how) {
  if (strcmp(how, "ignore") == 0) {
    signal(sig, SIG_IGN);
  } else if (strcmp(how, "handler") == 0) {
    signal(sig, on_group_signal);
  } else if (strcmp(how, "default") != 0) {
    return 2;
  }
  put("before\n");
  if (kill(0, sig) != 0) return 3;
  put("after\n");
  return 0;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  long count = argc > 2 ? atol(argv[2]) : 0;
  if (strcmp(mode, "sigstate") == 0) return sigstate();  // before alarm() changes anything
  alarm(300);
  if (strcmp(mode, "lines") == 0) {
    lines(count);
    return 0;
  }
  if (strcmp(mode, "pause") == 0) {
    lines(count);
    put("ready\n");
    for (;;) pause();
  }
  if (strcmp(mode, "groupkill") == 0 && argc > 3) return groupkill((int)count, argv[3]);
  if (strcmp(mode, "parentkill") == 0) {
    put("before\n");
    if (kill(getppid(), (int)count) != 0) return 3;
    put("after\n");
    return 0;
  }
  if (strcmp(mode, "noise") == 0) {
    static char buf[65536];
    char line[64];
    for (long i = 0;; i++) {
      for (size_t got = 0; got < sizeof buf;) {
        ssize_t n = getrandom(buf + got, sizeof buf - got, 0);
        if (n <= 0) return 3;
        got += (size_t)n;
      }
      snprintf(line, sizeof line, "noise %ld %02x\n", i, (unsigned char)buf[0]);
      put(line);
    }
  }
  fprintf(stderr, "usage: lifecycle sigstate | lines N | pause N | groupkill SIG HOW | parentkill SIG | noise\n");
  return 2;
}
