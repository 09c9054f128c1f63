// scenario: stepping over buffered calls: after a warm-up loop has patched
// the sites of pread() and write(), `next` steps over lines that call them
// (performed by the preload library, never stopping the recorder), the
// values read are printed, `reverse-next` goes back over the same lines and
// the values are the earlier ones again, `finish` leaves a breakpoint in a
// function called between buffered calls, and `catch syscall write` passes
// over the buffered writes to a file and stops at the write to stdout.
// input: in.txt = abcdefghijklmnopqrstuvwxyz0123456789
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static int total;

static int weigh(const char* s, int n) {
  int sum = 0;
  for (int i = 0; i < n; i++) sum += s[i];
  return sum;
}

int main(void) {
  int in = open("in.txt", O_RDONLY);
  int out = open("out.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  char buf[64];
  int got = 0, r = 0;
  for (int i = 0; i < 8; i++) {
    r = (int)pread(in, buf, 4, i);
    r = (int)write(out, buf, (size_t)r);
  }
  memset(buf, 0, sizeof buf);
  r = (int)pread(in, buf, 7, 3);
  got += r;
  r = (int)write(out, buf, (size_t)r);
  total = weigh(buf, got);
  r = (int)pread(in, buf, 12, 20);
  got += r;
  r = (int)write(out, buf, (size_t)r);
  total += weigh(buf, r);
  r = (int)write(out, "end\n", 4);
  write(1, "stdout line\n", 12);
  close(in);
  close(out);
  return total == 0;
}
