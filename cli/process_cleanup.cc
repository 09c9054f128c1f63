// Ending every child (cli/process_cleanup.h). The handler may interrupt any
// code, so what it runs is async-signal-safe: raw open/read/getdents64 on
// /proc, kill, waitpid, nanosleep, tcsetattr, unlinkat (cli/remove_tree.h);
// no allocation.
#include "cli/process_cleanup.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>

#include "cli/remove_tree.h"

namespace backstep::cli {
namespace {

volatile sig_atomic_t g_kind = static_cast<int>(ChildKind::Tracees);
volatile pid_t g_debugger = 0;
// The process that installed the handlers: a child forked from it runs them
// too until it execs, and must not end its parent's debugger or remove its
// files.
volatile pid_t g_owner = 0;
termios g_terminal;
volatile sig_atomic_t g_terminal_saved = 0;

constexpr std::size_t kMaxChildren = 8192;
// How long the debugger has to quit by itself after SIGTERM.
constexpr int kDebuggerGraceMs = 3000;
constexpr int kPollMs = 10;

// The paths to remove (remove_on_signals); an empty one is a free slot.
constexpr std::size_t kMaxPaths = 4;
char g_paths[kMaxPaths][PATH_MAX];

void pause_ms(int ms) {
  timespec pause{0, ms * 1'000'000L};
  nanosleep(&pause, nullptr);
}

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
      if (children[i] == g_debugger) continue;
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
    if (r <= 0) pause_ms(1);
  }
  errno = saved_errno;
}

// SIGTERM, a grace period, SIGKILL; reaped either way (unless another
// thread reaps it first: then waitpid says ECHILD).
void end_debugger(pid_t debugger) {
  kill(debugger, SIGTERM);
  int status = 0;
  for (int waited = 0; waited < kDebuggerGraceMs; waited += kPollMs) {
    pid_t r = waitpid(debugger, &status, WNOHANG);
    if (r == debugger || (r < 0 && errno != EINTR)) return;
    pause_ms(kPollMs);
  }
  kill(debugger, SIGKILL);
  while (waitpid(debugger, &status, 0) < 0 && errno == EINTR) {
  }
}

void on_stop_signal(int sig) {
  bool owner = getpid() == g_owner;
  pid_t debugger = g_debugger;
  if (owner && debugger > 0) {
    end_debugger(debugger);
    g_debugger = 0;
    if (g_terminal_saved) tcsetattr(STDIN_FILENO, TCSANOW, &g_terminal);
  }
  end_all();
  if (owner) {
    for (auto& path : g_paths) {
      if (path[0]) remove_tree(path);
    }
  }
  signal(sig, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
  raise(sig);
}

}  // namespace

void clean_up_children_on_signals(ChildKind kind) {
  g_kind = static_cast<int>(kind);
  g_owner = getpid();
  if (isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &g_terminal) == 0) g_terminal_saved = 1;
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

void end_debugger_on_signals(pid_t debugger) { g_debugger = debugger; }

void set_children_kind(ChildKind kind) { g_kind = static_cast<int>(kind); }

namespace {

// Runs `fn` with every signal blocked on this thread: not interleaved with
// a handler's use of the same static lists.
template <typename Fn>
void without_signals(Fn fn) {
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  fn();
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

}  // namespace

void end_children() { without_signals(end_all); }

bool remove_on_signals(const std::string& path) {
  if (path.empty() || path.size() >= PATH_MAX) return false;
  bool placed = false;
  without_signals([&] {
    for (auto& slot : g_paths) {
      if (slot[0]) continue;
      // The first byte last: a handler on another thread sees a free slot
      // or the whole path.
      std::memcpy(slot + 1, path.c_str() + 1, path.size());
      slot[0] = path[0];
      placed = true;
      return;
    }
  });
  return placed;
}

void forget_on_signals(const std::string& path) {
  without_signals([&] {
    for (auto& slot : g_paths) {
      if (path == slot) slot[0] = 0;
    }
  });
}

}  // namespace backstep::cli
