// scenario: syscall buffering in 4 threads at once: each writes and reads
// back its own file (write, lseek, read, fstat) and writes its blocks of a
// shared file with pwrite64 and reads them back with pread64 at distinct
// offsets, while a fifth thread sits blocked in read() on a pipe (a traced
// call) until main writes to it. Each thread registers its own buffer at its
// first bufferable call. Results are printed by main after joining.
// requires: threads
// expect-buffered: 800
#include "thread_util.h"

#include <sys/stat.h>
#include <sys/syscall.h>

#define WORKERS 4
#define BLOCKS 64
#define BLOCK 256

static int shared_fd;
static int pipe_fds[2];
static volatile pid_t reader_tid;

struct result {
  uint64_t own_hash, shared_hash;
  long own_size, mismatches;
};
static struct result results[WORKERS];

static void* worker(void* arg) {
  int id = (int)(long)arg;
  char name[32], buf[BLOCK], back[BLOCK];
  snprintf(name, sizeof name, "own%d.dat", id);
  int fd = SYS(open(name, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  struct result* r = &results[id];
  uint64_t seed = 1000 + (uint64_t)id;
  for (int i = 0; i < 200; i++) {
    int len = snprintf(buf, sizeof buf, "thread %d line %d %016llx\n", id, i,
                       (unsigned long long)xorshift(&seed));
    CHECK(SYS(write(fd, buf, (size_t)len)) == len);
  }
  CHECK(SYS(lseek(fd, 0, SEEK_SET)) == 0);
  r->own_hash = FNV_INIT;
  ssize_t n;
  while ((n = SYS(read(fd, back, 61))) > 0) r->own_hash = fnv1a(back, (size_t)n, r->own_hash);
  struct stat st;
  SYS(fstat(fd, &st));
  r->own_size = (long)st.st_size;
  SYS(close(fd));

  // Blocks id, id + WORKERS, ... of the shared file are this thread's.
  for (int round = 0; round < 3; round++) {
    for (int b = id; b < BLOCKS; b += WORKERS) {
      memset(buf, 'a' + (b + round) % 26, BLOCK);
      snprintf(buf, 24, "t%d r%d b%02d", id, round, b % 100);
      off_t off = (off_t)b * BLOCK;
      CHECK(SYS(pwrite(shared_fd, buf, BLOCK, off)) == BLOCK);
      CHECK(SYS(pread(shared_fd, back, BLOCK, off)) == BLOCK);
      if (memcmp(buf, back, BLOCK) != 0) r->mismatches++;
    }
  }
  r->shared_hash = FNV_INIT;
  for (int b = id; b < BLOCKS; b += WORKERS) {
    CHECK(SYS(pread(shared_fd, back, BLOCK, (off_t)b * BLOCK)) == BLOCK);
    r->shared_hash = fnv1a(back, BLOCK, r->shared_hash);
  }
  return NULL;
}

static char piped[64];
static ssize_t piped_len;

static void* reader(void* arg) {
  (void)arg;
  publish_tid(&reader_tid);
  piped_len = read(pipe_fds[0], piped, sizeof piped - 1);  // blocks: a pipe is traced
  return NULL;
}

int main(void) {
  shared_fd = SYS(open("shared.dat", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  SYS(pipe2(pipe_fds, O_CLOEXEC));
  pthread_t rt, wt[WORKERS];
  PCHECK(pthread_create(&rt, NULL, reader, NULL));
  pid_t rtid = await_tid(&reader_tid);
  for (long i = 0; i < WORKERS; i++) PCHECK(pthread_create(&wt[i], NULL, worker, (void*)i));
  nd("polls until the reader blocked: %ld\n", wait_blocked_in(rtid, SYS_read));
  // Main's own buffered calls while the workers run.
  long pids = 0;
  for (int i = 0; i < 300; i++) pids += getpid() > 0;
  CHECK(SYS(write(pipe_fds[1], "wake up", 7)) == 7);
  PCHECK(pthread_join(rt, NULL));
  for (int i = 0; i < WORKERS; i++) PCHECK(pthread_join(wt[i], NULL));

  printf("reader got %zd bytes: %.*s\n", piped_len, (int)piped_len, piped);
  printf("main: getpid %ld/300\n", pids);
  for (int i = 0; i < WORKERS; i++) {
    printf("thread %d: own file %ld bytes %016llx, shared blocks %016llx, mismatches %ld\n", i,
           results[i].own_size, (unsigned long long)results[i].own_hash,
           (unsigned long long)results[i].shared_hash, results[i].mismatches);
  }
  struct stat st;
  SYS(fstat(shared_fd, &st));
  char all[BLOCKS * BLOCK];
  CHECK(SYS(pread(shared_fd, all, sizeof all, 0)) == (ssize_t)sizeof all);
  printf("shared.dat: %ld bytes %016llx\n", (long)st.st_size,
         (unsigned long long)fnv1a(all, sizeof all, FNV_INIT));
  return 0;
}
