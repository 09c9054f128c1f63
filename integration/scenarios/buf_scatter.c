// scenario: readv, preadv and preadv2 through syscall buffering: each
// scatters what it read over an iovec array (buffers of odd sizes, an empty
// one), which the library copies into the record and replay scatters back.
// From an input file (short reads at its end, preadv at offsets, preadv2
// at the file position with offset -1), from /dev/zero, and from a pipe
// whose writer is another thread (each readv may wait: the desched event),
// answered by writev of up to 4096 bytes (buffered on the pipe too) and one
// of 5000 bytes (traced: a larger write could be cut short), and a burst
// that readv finds waiting in a pipe. Then the
// traced cases: more than 64 iovecs, a bad iovec array (EFAULT), a bad
// buffer (EFAULT: nothing read) and a bad second buffer (a short read).
// requires: threads
// input-random: data.bin 70000
// expect-buffered: 900
#define _GNU_SOURCE
#include "thread_util.h"

#include <fcntl.h>
#include <sys/uio.h>

#define ROUNDS 300

static int ping[2], pong[2];

static uint64_t hash_iov(const struct iovec* iov, int n, size_t len, uint64_t h) {
  for (int i = 0; i < n && len > 0; i++) {
    size_t take = iov[i].iov_len < len ? iov[i].iov_len : len;
    h = fnv1a(iov[i].iov_base, take, h);
    len -= take;
  }
  return h;
}

// Reads messages of 3 + 40 + 1 + 20 bytes with readv and answers with the
// running hash, gathered by writev.
static void* echo(void* arg) {
  (void)arg;
  char head[3], body[40], none[1], tail[20];
  uint64_t h = FNV_INIT;
  for (int i = 0; i < ROUNDS; i++) {
    struct iovec iov[4] = {{head, sizeof head}, {body, sizeof body}, {none, 0}, {tail, sizeof tail}};
    ssize_t n = SYS(readv(ping[0], iov, 4));
    CHECK(n == 63);
    h = hash_iov(iov, 4, (size_t)n, h);
    struct iovec out[2] = {{&h, sizeof h}, {head, sizeof head}};
    CHECK(SYS(writev(pong[1], out, 2)) == 11);
  }
  // One big answer: 5000 bytes (traced, more than a pipe takes at once).
  static char big[5000];
  memset(big, 'B', sizeof big);
  struct iovec halves[2] = {{big, 2500}, {big + 2500, 2500}};
  CHECK(SYS(writev(pong[1], halves, 2)) == 5000);
  return NULL;
}

int main(void) {
  int fd = SYS(open("data.bin", O_RDONLY));
  char a[7], b[1000], c[1], d[3000];
  uint64_t h = FNV_INIT;
  long total = 0, shorts = 0;
  // 1. readv through the file to its end: the last one is short, then 0.
  for (;;) {
    struct iovec iov[4] = {{a, sizeof a}, {b, sizeof b}, {c, sizeof c}, {d, sizeof d}};
    ssize_t n = SYS(readv(fd, iov, 4));
    if (n == 0) break;
    if (n < 4008) shorts++;
    h = hash_iov(iov, 4, (size_t)n, h);
    total += n;
  }
  printf("readv: %ld bytes, %ld short, hash %016llx\n", total, shorts, (unsigned long long)h);

  // 2. preadv at offsets, and preadv2 at the file position (offset -1).
  h = FNV_INIT;
  for (int i = 0; i < 200; i++) {
    struct iovec iov[2] = {{a, sizeof a}, {b, 100 + (size_t)i}};
    ssize_t n = SYS(preadv(fd, iov, 2, (off_t)i * 331));
    h = hash_iov(iov, 2, (size_t)n, h);
  }
  SYS(lseek(fd, 1234, SEEK_SET));
  for (int i = 0; i < 200; i++) {
    struct iovec iov[2] = {{d, 17}, {a, sizeof a}};
    ssize_t n = SYS(preadv2(fd, iov, 2, i % 2 ? -1 : (off_t)i * 97, 0));
    h = hash_iov(iov, 2, (size_t)n, h);
  }
  printf("preadv, preadv2: hash %016llx, position %ld\n", (unsigned long long)h, (long)SYS(lseek(fd, 0, SEEK_CUR)));

  // 3. /dev/zero over buffers that held something else.
  int zero = SYS(open("/dev/zero", O_RDONLY));
  long nonzero = 0;
  for (int i = 0; i < 100; i++) {
    memset(b, 'x', sizeof b);
    struct iovec iov[2] = {{b, 10}, {b + 500, 300}};
    CHECK(SYS(readv(zero, iov, 2)) == 310);
    for (int j = 0; j < (int)sizeof b; j++) nonzero += b[j] != 0;
  }
  printf("/dev/zero: %ld bytes left untouched\n", nonzero);

  // 4. A ping-pong over pipes: readv and writev that may wait.
  SYS(pipe(ping));
  SYS(pipe(pong));
  pthread_t t;
  PCHECK(pthread_create(&t, NULL, echo, NULL));
  uint64_t expect = FNV_INIT, got = 0;
  char msg[63];
  for (int i = 0; i < ROUNDS; i++) {
    for (int j = 0; j < 63; j++) msg[j] = (char)(i * 7 + j);
    CHECK(SYS(write(ping[1], msg, sizeof msg)) == 63);
    expect = fnv1a(msg, sizeof msg, expect);
    char head[3];
    struct iovec back[2] = {{&got, sizeof got}, {head, sizeof head}};
    CHECK(SYS(readv(pong[0], back, 2)) == 11);
    CHECK(memcmp(head, msg, 3) == 0);
  }
  printf("pipes: %d rounds, hash %016llx, %s\n", ROUNDS, (unsigned long long)got,
         got == expect ? "as computed" : "WRONG");
  static char big[5000];
  long big_n = 0;
  while (big_n < 5000) {
    struct iovec iov[1] = {{big + big_n, sizeof big - (size_t)big_n}};
    big_n += SYS(readv(pong[0], iov, 1));
  }
  printf("the big answer: %ld bytes, hash %016llx\n", big_n, (unsigned long long)fnv1a(big, sizeof big, FNV_INIT));
  PCHECK(pthread_join(t, NULL));

  // 5. A burst of messages in a fresh pipe, each read by a readv that finds
  // it there (buffered on the pipe with the desched event armed).
  int burst[2];
  SYS(pipe(burst));
  for (int i = 0; i < 200; i++) {
    char m[20];
    snprintf(m, sizeof m, "burst %03d.........\n", i);
    CHECK(SYS(write(burst[1], m, 20)) == 20);
  }
  h = FNV_INIT;
  for (int i = 0; i < 200; i++) {
    char m1[7], m2[13];
    struct iovec iov[2] = {{m1, sizeof m1}, {m2, sizeof m2}};
    CHECK(SYS(readv(burst[0], iov, 2)) == 20);
    h = hash_iov(iov, 2, 20, h);
  }
  printf("burst: hash %016llx\n", (unsigned long long)h);

  // 6. Traced cases, each at a site the loops above patched.
  struct iovec many[100];
  for (int i = 0; i < 100; i++) many[i] = (struct iovec){d + i * 3, 3};
  ssize_t n = SYS(preadv(fd, many, 100, 0));
  printf("100 iovecs: %zd bytes, hash %016llx\n", n, (unsigned long long)fnv1a(d, 300, FNV_INIT));
  errno = 0;
  struct iovec* volatile unmapped = (struct iovec*)16;  // hidden from the compiler's checks
  n = readv(fd, unmapped, 2);
  printf("bad iovec array: %zd %s\n", n, errname(errno));
  struct iovec bad[2] = {{NULL, 10}, {a, sizeof a}};
  errno = 0;
  n = preadv(fd, bad, 2, 0);
  printf("bad first buffer: %zd %s\n", n, errname(errno));
  memset(a, 0, sizeof a);
  struct iovec half[2] = {{a, sizeof a}, {(void*)8, 10}};
  n = SYS(preadv(fd, half, 2, 5));
  printf("bad second buffer: %zd, hash %016llx\n", n, (unsigned long long)fnv1a(a, sizeof a, FNV_INIT));
  SYS(close(zero));
  SYS(close(fd));
  return 0;
}
