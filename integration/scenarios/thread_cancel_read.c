// scenario: pthread_cancel of a thread blocked in read() on an empty pipe:
// its cleanup handler runs, pthread_join returns PTHREAD_CANCELED, and the
// pipe still works afterwards.
// requires: threads
#include "thread_util.h"

static int fds[2];
static volatile pid_t reader_tid;
static int cleanups;

static void cleanup(void* arg) {
  cleanups++;
  *(int*)arg = 1;
}

static void* reader(void* arg) {
  int* cleaned = arg;
  char c;
  pthread_cleanup_push(cleanup, cleaned);
  publish_tid(&reader_tid);
  ssize_t n = read(fds[0], &c, 1);  // a cancellation point: never returns
  printf("read returned %zd\n", n);
  pthread_cleanup_pop(0);
  return NULL;
}

int main(void) {
  SYS(pipe(fds));
  int cleaned = 0;
  pthread_t t;
  PCHECK(pthread_create(&t, NULL, reader, &cleaned));
  long polls = wait_blocked_in(await_tid(&reader_tid), SYS_read);
  nd("looked %ld times before the reader was blocked\n", polls);
  printf("reader is blocked in read\n");
  PCHECK(pthread_cancel(t));
  void* ret = NULL;
  PCHECK(pthread_join(t, &ret));
  printf("joined: %s, cleanup ran %d time(s), flag %d\n",
         ret == PTHREAD_CANCELED ? "PTHREAD_CANCELED" : "returned", cleanups, cleaned);
  CHECK(ret == PTHREAD_CANCELED && cleaned == 1);
  SYS(write(fds[1], "x", 1));
  char c = 0;
  CHECK(SYS(read(fds[0], &c, 1)) == 1 && c == 'x');
  printf("pipe still carries data: %c\n", c);
  return 0;
}
