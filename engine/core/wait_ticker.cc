#include "engine/core/wait_ticker.h"

#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>

namespace backstep {
namespace {

void on_tick(int) {}  // interrupting the wait is all it is for

// One timer per thread, made on first use and deleted when the thread ends.
// A fork's child has none (timers are not inherited): it makes its own.
struct ThreadTimer {
  timer_t id{};
  bool made = false;
  pid_t owner = 0;  // the process it was made in
  ~ThreadTimer() {
    if (made && owner == getpid()) timer_delete(id);
  }
};

thread_local ThreadTimer t_timer;

void install_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_handler = on_tick;  // no SA_RESTART: the wait returns EINTR
    sigemptyset(&sa.sa_mask);
    if (sigaction(WaitTicker::tick_signal(), &sa, nullptr) != 0) {
      throw std::runtime_error(std::string("cannot install the wait ticker's handler: ") + strerror(errno));
    }
  });
}

}  // namespace

int WaitTicker::tick_signal() { return SIGRTMIN + 1; }

WaitTicker::WaitTicker(std::chrono::milliseconds period) {
  install_handler();
  if (!t_timer.made || t_timer.owner != getpid()) {
    sigevent ev{};
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = tick_signal();
    ev._sigev_un._tid = static_cast<pid_t>(syscall(SYS_gettid));
    if (timer_create(CLOCK_MONOTONIC, &ev, &t_timer.id) != 0) {
      throw std::runtime_error(std::string("timer_create failed: ") + strerror(errno));
    }
    t_timer.made = true;
    t_timer.owner = getpid();
    sigset_t unblock;
    sigemptyset(&unblock);
    sigaddset(&unblock, tick_signal());
    pthread_sigmask(SIG_UNBLOCK, &unblock, nullptr);
  }
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(period).count();
  itimerspec spec{};
  spec.it_value.tv_sec = ns / 1000000000;
  spec.it_value.tv_nsec = ns % 1000000000;
  spec.it_interval = spec.it_value;
  if (timer_settime(t_timer.id, 0, &spec, nullptr) != 0) {
    throw std::runtime_error(std::string("timer_settime failed: ") + strerror(errno));
  }
  armed_ = true;
}

WaitTicker::~WaitTicker() {
  if (!armed_) return;
  itimerspec off{};
  timer_settime(t_timer.id, 0, &off, nullptr);
  // A tick already sent is delivered to the handler as soon as it is
  // unblocked (it is): nothing stays pending.
}

}  // namespace backstep
