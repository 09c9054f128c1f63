// scenario: a loopback TCP echo server with three clients in one process,
// all nonblocking, driven by epoll (epoll_create1, epoll_ctl ADD/MOD/DEL,
// epoll_wait and epoll_pwait, edge- and level-triggered).
#include "scenario.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#define CLIENTS 3
#define MSG 20000

int main(void) {
  int ls = SYS(socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0));
  struct sockaddr_in addr = {.sin_family = AF_INET};
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  SYS(bind(ls, (struct sockaddr*)&addr, sizeof addr));
  SYS(listen(ls, 8));
  socklen_t alen = sizeof addr;
  SYS(getsockname(ls, (struct sockaddr*)&addr, &alen));
  nd("port %d\n", ntohs(addr.sin_port));

  int ep = SYS(epoll_create1(EPOLL_CLOEXEC));
  struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 1000};
  SYS(epoll_ctl(ep, EPOLL_CTL_ADD, ls, &ev));

  int cl[CLIENTS], sv[CLIENTS];
  size_t sent[CLIENTS] = {0}, echoed[CLIENTS] = {0};
  static char out[CLIENTS][MSG], back[CLIENTS][MSG];
  for (int i = 0; i < CLIENTS; i++) {
    for (int j = 0; j < MSG; j++) out[i][j] = (char)('a' + (i * 7 + j) % 26);
    cl[i] = SYS(socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0));
    int r = connect(cl[i], (struct sockaddr*)&addr, sizeof addr);
    CHECK(r == 0 || errno == EINPROGRESS);
    ev.events = EPOLLOUT | EPOLLIN;
    ev.data.u64 = (uint64_t)i;
    SYS(epoll_ctl(ep, EPOLL_CTL_ADD, cl[i], &ev));
    sv[i] = -1;
  }
  int accepted = 0, done = 0;
  unsigned long waits = 0;
  sigset_t mask;
  sigemptyset(&mask);
  while (done < CLIENTS) {
    struct epoll_event evs[8];
    int n = waits % 2 ? SYS(epoll_wait(ep, evs, 8, 5000)) : SYS(epoll_pwait(ep, evs, 8, 5000, &mask));
    CHECK(n > 0);
    waits++;
    for (int k = 0; k < n; k++) {
      uint64_t id = evs[k].data.u64;
      if (id == 1000) {
        int s = accept4(ls, NULL, NULL, SOCK_NONBLOCK);
        if (s < 0) continue;
        sv[accepted] = s;
        // Echo side: edge-triggered reads.
        struct epoll_event se = {.events = EPOLLIN | EPOLLET, .data.u64 = 100 + accepted};
        SYS(epoll_ctl(ep, EPOLL_CTL_ADD, s, &se));
        accepted++;
      } else if (id >= 100) {
        int s = sv[id - 100];
        char buf[4096];
        for (;;) {
          ssize_t r = recv(s, buf, sizeof buf, 0);
          if (r <= 0) break;
          ssize_t w = 0;
          while (w < r) {
            ssize_t x = send(s, buf + w, r - w, 0);
            if (x > 0) w += x;
          }
        }
      } else {
        int i = (int)id;
        if ((evs[k].events & EPOLLOUT) && sent[i] < MSG) {
          ssize_t x = send(cl[i], out[i] + sent[i], MSG - sent[i], 0);
          if (x > 0) sent[i] += x;
          if (sent[i] == MSG) {
            struct epoll_event me = {.events = EPOLLIN, .data.u64 = (uint64_t)i};
            SYS(epoll_ctl(ep, EPOLL_CTL_MOD, cl[i], &me));
          }
        }
        if (evs[k].events & EPOLLIN) {
          ssize_t r = recv(cl[i], back[i] + echoed[i], MSG - echoed[i], 0);
          if (r > 0) echoed[i] += r;
          if (echoed[i] == MSG) {
            SYS(epoll_ctl(ep, EPOLL_CTL_DEL, cl[i], NULL));
            done++;
          }
        }
      }
    }
  }
  printf("accepted %d clients\n", accepted);
  for (int i = 0; i < CLIENTS; i++)
    printf("client %d: echoed %zu bytes, intact: %s\n", i, echoed[i],
           memcmp(out[i], back[i], MSG) == 0 ? "yes" : "no");
  nd("epoll waits %lu\n", waits);
  errno = 0;
  CHECK(epoll_ctl(ep, EPOLL_CTL_DEL, cl[0], NULL) == -1);
  printf("DEL twice: %s\n", errname(errno));
  struct epoll_event none[1];
  printf("epoll_wait with nothing ready, timeout 0: %ld\n", SYS(epoll_wait(ep, none, 1, 0)));
  for (int i = 0; i < CLIENTS; i++) {
    SYS(close(cl[i]));
    SYS(close(sv[i]));
  }
  SYS(close(ep));
  SYS(close(ls));
  return 0;
}
