// scenario: a producer thread writes 2,000 records of varying size into a
// pipe, a consumer thread reads them (partial reads included) and checksums
// them; main joins both and compares with its own checksum.
// requires: threads
#include "thread_util.h"

#define RECORDS 2000

static int fds[2];
static uint64_t consumed_hash, consumed_bytes;

static size_t record_len(int i) { return 1 + (size_t)(i * 37 % 200); }
static void fill(unsigned char* buf, int i, size_t len) {
  for (size_t k = 0; k < len; k++) buf[k] = (unsigned char)(i + k * 7);
}

static void* producer(void* arg) {
  (void)arg;
  unsigned char buf[256];
  for (int i = 0; i < RECORDS; i++) {
    size_t len = record_len(i);
    fill(buf, i, len);
    CHECK(SYS(write(fds[1], buf, len)) == (ssize_t)len);
  }
  SYS(close(fds[1]));
  return NULL;
}

static void* consumer(void* arg) {
  (void)arg;
  unsigned char buf[333];  // not a multiple of any record: reads split records
  uint64_t h = FNV_INIT;
  for (;;) {
    ssize_t n = SYS(read(fds[0], buf, sizeof buf));
    if (n == 0) break;
    h = fnv1a(buf, (size_t)n, h);
    consumed_bytes += (uint64_t)n;
  }
  consumed_hash = h;
  return NULL;
}

int main(void) {
  SYS(pipe(fds));
  pthread_t p, c;
  PCHECK(pthread_create(&c, NULL, consumer, NULL));
  PCHECK(pthread_create(&p, NULL, producer, NULL));
  PCHECK(pthread_join(p, NULL));
  PCHECK(pthread_join(c, NULL));
  uint64_t h = FNV_INIT, bytes = 0;
  unsigned char buf[256];
  for (int i = 0; i < RECORDS; i++) {
    size_t len = record_len(i);
    fill(buf, i, len);
    h = fnv1a(buf, len, h);
    bytes += len;
  }
  CHECK(consumed_bytes == bytes);
  CHECK(consumed_hash == h);
  printf("%d records, %llu bytes through the pipe, checksum %016llx\n", RECORDS,
         (unsigned long long)bytes, (unsigned long long)h);
  return 0;
}
