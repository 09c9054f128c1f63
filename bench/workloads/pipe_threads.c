/* Multi-threaded I/O: a producer thread writes 64-byte messages into a pipe
 * and a consumer thread reads and checksums them, so every call is a read or
 * a write on a pipe that may block (the reader waits for the writer when the
 * pipe is empty, the writer for the reader when it is full).
 * Usage: pipe_threads [MESSAGES]   (default 200,000) */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MSG 64

static int fds[2];
static long messages = 200000;
static uint64_t checksum;

static void* consumer(void* arg) {
  (void)arg;
  char buf[MSG];
  uint64_t h = 1469598103934665603ULL;
  for (long i = 0; i < messages; ++i) {
    size_t got = 0;
    while (got < MSG) {
      ssize_t n = read(fds[0], buf + got, MSG - got);
      if (n <= 0) {
        perror("read");
        exit(1);
      }
      got += (size_t)n;
    }
    for (int j = 0; j < MSG; ++j) h = (h ^ (uint8_t)buf[j]) * 1099511628211ULL;
  }
  checksum = h;
  return NULL;
}

int main(int argc, char** argv) {
  if (argc > 1) messages = strtol(argv[1], NULL, 10);
  if (pipe(fds) != 0) {
    perror("pipe");
    return 1;
  }
  pthread_t t;
  pthread_create(&t, NULL, consumer, NULL);
  char msg[MSG];
  for (long i = 0; i < messages; ++i) {
    memset(msg, 'a' + (int)(i % 26), sizeof msg);
    memcpy(msg, &i, sizeof i);
    if (write(fds[1], msg, MSG) != MSG) {
      perror("write");
      return 1;
    }
  }
  pthread_join(t, NULL);
  printf("pipe_threads messages=%ld checksum=%016llx\n", messages, (unsigned long long)checksum);
  return 0;
}
