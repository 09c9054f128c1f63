// Ending every child (cli/process_cleanup.h). The handler may interrupt any
// code, so what it runs is async-signal-safe: raw open/read/getdents64 on
// /proc, kill, waitpid, nanosleep; no allocation.
#include "cli/process_cleanup.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <initializer_list>

namespace backstep::cli {
namespace {

volatile sig_atomic_t g_kind = static_cast<int>(ChildKind::Tracees);
volatile pid_t g_keep = 0;

constexpr std::size_t kMaxChildren = 8192;

struct Dirent64 {
  uint64_t ino;
  int64_t off;
  unsigned short reclen;
  unsigned char type;
  char name[1];
};

std::size_t append(char* out, std::size_t at, const char* text) {
  while (*text) out[at++] = *text++;
  out[at] = 0;
  return at;
}

// The children of every thread of this process (/proc/self/task/T/children).
std::size_t list_children(pid_t* out, std::size_t max) {
  int dir = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return 0;
  std::size_t n = 0;
  alignas(8) char entries[2048];
  for (;;) {
    long got = syscall(SYS_getdents64, dir, entries, sizeof(entries));
    if (got <= 0) break;
    for (long off = 0; off < got;) {
      const auto* d = reinterpret_cast<const Dirent64*>(entries + off);
      off += d->reclen;
      if (d->name[0] < '0' || d->name[0] > '9') continue;
      char path[96];
      std::size_t at = append(path, 0, "/proc/self/task/");
      at = append(path, at, d->name);
      append(path, at, "/children");
      int fd = open(path, O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      char text[4096];
      long value = -1;
      for (;;) {
        ssize_t r = read(fd, text, sizeof(text));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        for (ssize_t i = 0; i < r; ++i) {
          if (text[i] >= '0' && text[i] <= '9') {
            value = (value < 0 ? 0 : value * 10) + (text[i] - '0');
          } else if (value >= 0) {
            if (n < max) out[n++] = static_cast<pid_t>(value);
            value = -1;
          }
        }
      }
      if (value >= 0 && n < max) out[n++] = static_cast<pid_t>(value);
      close(fd);
    }
  }
  close(dir);
  return n;
}

void end_all() {
  int saved_errno = errno;
  static pid_t children[kMaxChildren];  // static: no stack of that size in a handler
  int sig = g_kind == static_cast<int>(ChildKind::Clients) ? SIGTERM : SIGKILL;
  for (;;) {
    std::size_t n = list_children(children, kMaxChildren);
    std::size_t ending = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (children[i] == g_keep) continue;
      kill(children[i], sig);  // again for one already dying: harmless
      ++ending;
    }
    if (ending == 0) break;
    // Reap whatever reports: the children, and the traced threads of
    // killed processes (a killed process is reported only once its traced
    // threads are reaped). Polled, since another thread may reap one first.
    int status = 0;
    pid_t r = waitpid(-1, &status, __WALL | WNOHANG);
    if (r < 0 && errno == ECHILD) break;
    if (r <= 0) {
      timespec pause{0, 1'000'000};
      nanosleep(&pause, nullptr);
    }
  }
  errno = saved_errno;
}

void on_stop_signal(int sig) {
  end_all();
  signal(sig, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
  raise(sig);
}

}  // namespace

void clean_up_children_on_signals(ChildKind kind, pid_t keep) {
  g_kind = static_cast<int>(kind);
  g_keep = keep;
  struct sigaction act {};
  act.sa_handler = on_stop_signal;
  sigfillset(&act.sa_mask);  // one cleanup at a time
  for (int sig : {SIGTERM, SIGHUP, SIGINT}) {
    struct sigaction old {};
    sigaction(sig, nullptr, &old);
    if (old.sa_handler == SIG_IGN) continue;  // `replay`: ^C is gdb's
    sigaction(sig, &act, nullptr);
  }
}

void set_children_kind(ChildKind kind) { g_kind = static_cast<int>(kind); }

void end_children() {
  // Not interleaved with a handler's run of the same (static) list.
  sigset_t all, old;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &old);
  end_all();
  sigprocmask(SIG_SETMASK, &old, nullptr);
}

}  // namespace backstep::cli
