// scenario: buffered calls on pipes and sockets that need not wait, made
// at once without the desched event (and the ones that would wait, made
// with it): a producer thread streams 20,000 messages through a pipe
// (write/read), then through a socketpair (send/recv, writev/readv,
// sendmsg/recvmsg), each stream checksummed on both sides; a strict
// ping-pong over two pipes; a write into a pipe whose reader is closed and a
// send on a socketpair whose peer is closed fail with EPIPE, their SIGPIPE
// handled before the call returns; MSG_PEEK then the read of the same
// bytes; an O_NONBLOCK pipe that is empty fails with EAGAIN; EOF once the
// writer is closed; 4096-byte writes into a loopback TCP connection whose
// reader lags each return 4096 (a blocking write waits to take all of it).
// Results are printed by main.
// requires: threads
// expect-buffered: 30000
#include "thread_util.h"

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/uio.h>

#define MESSAGES 20000
#define MSG 64
#define ROUNDS 300

static int stream[2], socks[2], ping[2], pong[2];
static uint64_t sent_hash = FNV_INIT, got_hash = FNV_INIT;
static volatile sig_atomic_t pipes_handled;

static void fill(char* msg, int i) {
  for (int k = 0; k < MSG; k++) msg[k] = (char)(i * 31 + k * 7);
}

// Four ways of sending MSG bytes on the socket, by message number.
static ssize_t send_one(int fd, char* msg, int i) {
  switch (i % 3) {
    case 0: return send(fd, msg, MSG, 0);
    case 1: {
      struct iovec v[2] = {{msg, 10}, {msg + 10, MSG - 10}};
      return writev(fd, v, 2);
    }
    default: {
      struct iovec v = {msg, MSG};
      struct msghdr m = {.msg_iov = &v, .msg_iovlen = 1};
      return sendmsg(fd, &m, 0);
    }
  }
}

static ssize_t recv_one(int fd, char* msg, int i) {
  switch (i % 3) {
    case 0: return recv(fd, msg, MSG, 0);
    case 1: {
      struct iovec v[2] = {{msg, 20}, {msg + 20, MSG - 20}};
      return readv(fd, v, 2);
    }
    default: {
      struct iovec v = {msg, MSG};
      struct msghdr m = {.msg_iov = &v, .msg_iovlen = 1};
      return recvmsg(fd, &m, 0);
    }
  }
}

static void* producer(void* arg) {
  (void)arg;
  char msg[MSG];
  for (int i = 0; i < MESSAGES; i++) {
    fill(msg, i);
    sent_hash = fnv1a(msg, MSG, sent_hash);
    CHECK(SYS(write(stream[1], msg, MSG)) == MSG);
  }
  for (int i = 0; i < MESSAGES / 4; i++) {
    fill(msg, i + 1);
    sent_hash = fnv1a(msg, MSG, sent_hash);
    CHECK(SYS(send_one(socks[0], msg, i)) == MSG);
  }
  for (int i = 0; i < ROUNDS; i++) {
    CHECK(SYS(read(ping[0], msg, 8)) == 8);
    msg[0]++;
    CHECK(SYS(write(pong[1], msg, 8)) == 8);
  }
  return NULL;
}

#define TCP_CHUNK 4096
#define TCP_CHUNKS 512
static int tcp_whole;

static void* tcp_writer(void* arg) {
  int fd = (int)(long)arg;
  static char chunk[TCP_CHUNK];
  for (int i = 0; i < TCP_CHUNKS; i++) {
    memset(chunk, i, sizeof chunk);
    tcp_whole += SYS(write(fd, chunk, TCP_CHUNK)) == TCP_CHUNK;
  }
  SYS(shutdown(fd, SHUT_WR));
  return NULL;
}

// A loopback TCP connection read from the start: recorded, the threads take
// turns, so the writer fills both socket buffers before the reader runs.
static void tcp_stream(void) {
  int lis = SYS(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  SYS(bind(lis, (struct sockaddr*)&a, sizeof a));
  socklen_t alen = sizeof a;
  SYS(getsockname(lis, (struct sockaddr*)&a, &alen));
  SYS(listen(lis, 1));
  int out = SYS(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  SYS(connect(out, (struct sockaddr*)&a, sizeof a));
  int in = SYS(accept4(lis, NULL, NULL, SOCK_CLOEXEC));
  pthread_t t;
  PCHECK(pthread_create(&t, NULL, tcp_writer, (void*)(long)out));
  static char buf[8192];
  long total = 0;
  uint64_t sum = 0;
  ssize_t n;
  while ((n = SYS(read(in, buf, sizeof buf))) > 0) {
    for (ssize_t i = 0; i < n; i++) sum += (unsigned char)buf[i];
    total += n;
  }
  PCHECK(pthread_join(t, NULL));
  printf("tcp: %d of %d writes of %d bytes whole, read %ld bytes, sum %llu\n", tcp_whole, TCP_CHUNKS, TCP_CHUNK,
         total, (unsigned long long)sum);
  close(in);
  close(out);
  close(lis);
}

static void on_pipe(int sig) {
  (void)sig;
  pipes_handled++;
}

int main(void) {
  SYS(pipe(stream));
  SYS(pipe(ping));
  SYS(pipe(pong));
  SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, socks));
  pthread_t t;
  PCHECK(pthread_create(&t, NULL, producer, NULL));
  char msg[MSG];
  long bytes = 0;
  for (int i = 0; i < MESSAGES; i++) {
    ssize_t n = SYS(read(stream[0], msg, MSG));
    CHECK(n == MSG);  // a pipe takes and gives a write of MSG bytes whole
    got_hash = fnv1a(msg, (size_t)n, got_hash);
    bytes += n;
  }
  for (int i = 0; i < MESSAGES / 4; i++) {
    ssize_t n = SYS(recv_one(socks[1], msg, i));
    CHECK(n == MSG);
    got_hash = fnv1a(msg, (size_t)n, got_hash);
    bytes += n;
  }
  char token[8] = {0};
  for (int i = 0; i < ROUNDS; i++) {
    CHECK(SYS(write(ping[1], token, 8)) == 8);
    CHECK(SYS(read(pong[0], token, 8)) == 8);
    token[0]++;
  }
  PCHECK(pthread_join(t, NULL));
  printf("streamed %ld bytes, checksums agree: %d, ping-pong token %d\n", bytes, sent_hash == got_hash,
         (unsigned char)token[0]);

  tcp_stream();

  // MSG_PEEK leaves the bytes for the next read.
  CHECK(SYS(send(socks[0], "peekaboo", 8, 0)) == 8);
  char peek[9] = {0}, again[9] = {0};
  CHECK(SYS(recv(socks[1], peek, 8, MSG_PEEK)) == 8);
  CHECK(SYS(read(socks[1], again, 8)) == 8);
  printf("peeked '%s', then read '%s'\n", peek, again);

  // EPIPE: the SIGPIPE the call raises is handled before the call returns.
  signal(SIGPIPE, on_pipe);
  SYS(close(stream[0]));
  errno = 0;
  ssize_t r = write(stream[1], "x", 1);
  int seen = pipes_handled;
  printf("write to a closed pipe: %zd %s, handler ran first: %d\n", r, errname(errno), seen == 1);
  SYS(close(socks[1]));
  errno = 0;
  r = send(socks[0], "y", 1, 0);
  seen = pipes_handled;
  printf("send to a closed peer: %zd %s, handler ran first: %d\n", r, errname(errno), seen == 2);

  // The program's own O_NONBLOCK still says EAGAIN; EOF after the writer closes.
  int nb[2];
  SYS(pipe2(nb, O_NONBLOCK));
  errno = 0;
  r = read(nb[0], msg, MSG);
  printf("empty O_NONBLOCK pipe: %zd %s\n", r, errname(errno));
  CHECK(SYS(write(nb[1], "last", 4)) == 4);
  SYS(close(nb[1]));
  r = SYS(read(nb[0], msg, MSG));
  printf("read %zd bytes '%.4s', then %zd (EOF)\n", r, msg, SYS(read(nb[0], msg, MSG)));
  return 0;
}
