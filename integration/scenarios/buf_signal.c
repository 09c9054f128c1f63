// scenario: syscall buffering under signals: an ITIMER_PROF timer fires
// while the program loops on buffered calls (write to /dev/null, pread64 of
// an input, lseek, getppid), and the handler itself makes buffered calls
// (getppid, write to /dev/null, pread64) while the interrupted code may be
// inside the preload library. The loop runs a fixed amount of work, then on
// until the handler ran at least 20 times; the deterministic lines are the
// checked results of the fixed part, the handler's count is on a "~" line.
// input-random: blocks.bin 32768
// expect-buffered: 10000
#include "scenario.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/time.h>

#define WORK 4000

static int null_fd = -1, file_fd = -1;
static pid_t parent;
static volatile sig_atomic_t handled, handler_bad;
static unsigned char expected[32768];

static void on_prof(int sig) {
  (void)sig;
  int saved = errno;
  unsigned char b[16];
  if (getppid() != parent) handler_bad++;
  if (write(null_fd, "tick", 4) != 4) handler_bad++;
  off_t off = (off_t)((handled * 131) % (32768 - 16));
  if (pread(file_fd, b, 16, off) != 16 || memcmp(b, expected + off, 16) != 0) handler_bad++;
  handled++;
  errno = saved;
}

int main(void) {
  parent = getppid();
  null_fd = SYS(open("/dev/null", O_WRONLY | O_CLOEXEC));
  file_fd = SYS(open("blocks.bin", O_RDONLY | O_CLOEXEC));
  CHECK(SYS(read(file_fd, expected, sizeof expected)) == (ssize_t)sizeof expected);

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_prof;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  SYS(sigaction(SIGPROF, &sa, NULL));
  struct itimerval it = {{0, 200}, {0, 200}};  // 200 us of CPU time
  SYS(setitimer(ITIMER_PROF, &it, NULL));

  long iterations = 0, bad = 0, written = 0;
  uint64_t h = FNV_INIT;
  unsigned char b[64];
  while (iterations < WORK || handled < 20) {
    ssize_t w = write(null_fd, expected + (iterations % 1000), 100);
    off_t off = (off_t)((iterations * 977) % (32768 - 64));
    ssize_t r = pread(file_fd, b, 64, off);
    off_t pos = lseek(file_fd, off, SEEK_SET);
    pid_t pp = getppid();
    if (w != 100 || r != 64 || memcmp(b, expected + off, 64) != 0 || pos != off || pp != parent) bad++;
    if (iterations < WORK) {
      written += w;
      h = fnv1a(b, (size_t)r, h);
    }
    iterations++;
  }
  struct itimerval off_timer = {{0, 0}, {0, 0}};
  SYS(setitimer(ITIMER_PROF, &off_timer, NULL));
  signal(SIGPROF, SIG_IGN);

  printf("first %d rounds: %ld bytes to /dev/null, pread hash %016llx\n", WORK, written,
         (unsigned long long)h);
  printf("wrong results in the loop: %ld, in the handler: %d\n", bad, (int)handler_bad);
  printf("handler ran at least 20 times: %s\n", handled >= 20 ? "yes" : "no");
  nd("handler ran %d times over %ld rounds\n", (int)handled, iterations);
  return 0;
}
