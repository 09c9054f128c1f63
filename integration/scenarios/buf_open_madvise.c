// scenario: openat and madvise through syscall buffering. Input files are
// opened, read and closed hundreds of times (the descriptor numbers come
// back each time; the first gated call on a new descriptor is traced and
// tells the recorder what it is); one of those numbers is then reopened on
// /dev/stdout, whose writes must stay traced (echoed by replay); files are
// created with O_CREAT and O_EXCL (buffered) and truncated with O_TRUNC
// (traced: a mapping of the file would change); a FIFO is opened by a
// thread that waits for main to open its other end (the open blocks: the
// desched event); a thread is named through /proc/self/task/TID/comm (the
// open stays traced: replay follows it). Then madvise with advice that
// changes no memory (buffered) and MADV_DONTNEED and MADV_FREE (traced,
// the pages read as zeros).
// requires: threads
// input-lines: a.txt 40
// input-lines: b.txt 70
// input-random: c.bin 9000
// expect-buffered: 2050
#define _GNU_SOURCE
#include "thread_util.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

static uint64_t hash_file(const char* name, uint64_t h, long* total) {
  int fd = SYS(open(name, O_RDONLY | O_CLOEXEC));
  char buf[512];
  ssize_t n;
  while ((n = SYS(read(fd, buf, sizeof buf))) > 0) {
    h = fnv1a(buf, (size_t)n, h);
    *total += n;
  }
  SYS(close(fd));
  return h;
}

static void* fifo_reader(void* arg) {
  (void)arg;
  int fd = SYS(open("pipe.fifo", O_RDONLY));  // waits for a writer
  char buf[32] = {0};
  ssize_t n = SYS(read(fd, buf, sizeof buf - 1));
  printf("fifo: %zd bytes '%s'\n", n, buf);
  SYS(close(fd));
  return NULL;
}

static void* sleeper(void* arg) {
  int* go = arg;
  while (!__atomic_load_n(go, __ATOMIC_ACQUIRE)) sched_yield();
  return NULL;
}

int main(void) {
  // 1. Open, read, close, many times: the numbers come back.
  const char* names[] = {"a.txt", "b.txt", "c.bin"};
  uint64_t h = FNV_INIT;
  long total = 0;
  for (int i = 0; i < 150; i++) h = hash_file(names[i % 3], h, &total);
  printf("read %ld bytes, hash %016llx\n", total, (unsigned long long)h);
  errno = 0;
  int missing = open("no-such-file", O_RDONLY);
  printf("missing: %d %s\n", missing, errname(errno));

  // 2. A number that held a regular file now refers to stdout.
  int fd = SYS(open("a.txt", O_RDONLY));
  char c;
  SYS(read(fd, &c, 1));
  SYS(close(fd));
  int out = SYS(open("/dev/stdout", O_WRONLY | O_APPEND));
  nd("stdout reopened as %d (a.txt was %d)\n", out, fd);
  for (int i = 0; i < 3; i++) {
    char line[32];
    int len = snprintf(line, sizeof line, "through the reopened stdout %d\n", i);
    fflush(stdout);
    CHECK(SYS(write(out, line, (size_t)len)) == len);
  }
  SYS(close(out));

  // 3. Created files (O_CREAT, O_EXCL), then truncated (O_TRUNC: traced).
  for (int i = 0; i < 100; i++) {
    char name[32];
    snprintf(name, sizeof name, "new-%d.txt", i % 10);
    int w = SYS(open(name, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600));
    SYS(write(w, name, strlen(name)));
    SYS(close(w));
  }
  errno = 0;
  int excl = open("new-0.txt", O_WRONLY | O_CREAT | O_EXCL, 0600);
  printf("O_EXCL on an existing file: %d %s\n", excl, errname(errno));
  int t = SYS(open("new-1.txt", O_WRONLY | O_TRUNC));
  SYS(write(t, "short\n", 6));
  SYS(close(t));
  h = FNV_INIT;
  total = 0;
  for (int i = 0; i < 10; i++) {
    char name[32];
    snprintf(name, sizeof name, "new-%d.txt", i);
    h = hash_file(name, h, &total);
    unlink(name);
  }
  printf("created files: %ld bytes, hash %016llx\n", total, (unsigned long long)h);

  // 4. A FIFO: the reader's open waits for main's.
  SYS(mkfifo("pipe.fifo", 0600));
  pthread_t r;
  PCHECK(pthread_create(&r, NULL, fifo_reader, NULL));
  int w = SYS(open("pipe.fifo", O_WRONLY));
  SYS(write(w, "through the fifo", 16));
  SYS(close(w));
  PCHECK(pthread_join(r, NULL));
  unlink("pipe.fifo");

  // 5. Naming another thread opens /proc/self/task/TID/comm (traced).
  int go = 0;
  pthread_t s;
  PCHECK(pthread_create(&s, NULL, sleeper, &go));
  PCHECK(pthread_setname_np(s, "named-by-main"));
  char name[32] = {0};
  PCHECK(pthread_getname_np(s, name, sizeof name));
  printf("thread name: %s\n", name);
  __atomic_store_n(&go, 1, __ATOMIC_RELEASE);
  PCHECK(pthread_join(s, NULL));

  // 6. madvise: advice that changes no memory, then DONTNEED and FREE.
  size_t len = 16 * 4096;
  unsigned char* m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(m != MAP_FAILED);
  memset(m, 0xab, len);
  const int hints[] = {MADV_NORMAL, MADV_RANDOM, MADV_SEQUENTIAL, MADV_WILLNEED, MADV_DONTDUMP, MADV_DODUMP};
  int failed = 0;
  for (int i = 0; i < 300; i++) failed += madvise(m + (i % 16) * 4096, 4096, hints[i % 6]) != 0;
  errno = 0;
  int bad = madvise(m + 1, 4096, MADV_WILLNEED);  // unaligned: EINVAL
  printf("hints: %d failed; unaligned: %d %s; memory hash %016llx\n", failed, bad, errname(errno),
         (unsigned long long)fnv1a(m, len, FNV_INIT));
  SYS(madvise(m, 4 * 4096, MADV_DONTNEED));
  SYS(madvise(m + 4 * 4096, 4 * 4096, MADV_FREE));
  long zeros = 0, freed_zeros = 0;
  for (size_t i = 0; i < 4 * 4096; i++) zeros += m[i] == 0;
  for (size_t i = 4 * 4096; i < 8 * 4096; i++) freed_zeros += m[i] == 0;
  printf("after DONTNEED: %ld zero bytes of %d\n", zeros, 4 * 4096);
  // Natively MADV_FREE pages keep their bytes until reclaimed; recorded,
  // they read as zeros (the recorder makes it MADV_DONTNEED).
  nd("after FREE: %ld zero bytes\n", freed_zeros);
  SYS(munmap(m, len));
  return 0;
}
