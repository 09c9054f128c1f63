#include "engine/record/recorder_signals.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace backstep {
namespace {

constexpr int kStopSignals[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP};
constexpr int kStopCount = sizeof(kStopSignals) / sizeof(kStopSignals[0]);

// What the handlers saw, one slot per stop signal. Lock-free atomics are
// async-signal-safe; `order` keeps take() oldest first.
struct Slot {
  std::atomic<bool> pending{false};
  std::atomic<int> code{0};
  std::atomic<int> sender{0};
  std::atomic<unsigned> order{0};
};
Slot g_slots[kStopCount];
std::atomic<unsigned> g_sequence{0};
std::atomic<bool> g_timer_set{false};
// Whether the timer may be running: take() is called before every wait for
// the tracee, and must not cost a system call when no signal came.
std::atomic<bool> g_timer_armed{false};
timer_t g_timer;

int slot_of(int sig) {
  for (int i = 0; i < kStopCount; ++i)
    if (kStopSignals[i] == sig) return i;
  return -1;
}

void set_wake_timer(bool on) {
  if (!g_timer_set.load(std::memory_order_acquire)) return;
  if (on) {
    g_timer_armed.store(true, std::memory_order_relaxed);
  } else if (!g_timer_armed.exchange(false, std::memory_order_relaxed)) {
    return;
  }
  itimerspec spec{};
  if (on) {
    spec.it_value.tv_nsec = 1;  // at once, then every kWakeMs
    spec.it_interval.tv_nsec = RecorderSignals::kWakeMs * 1000000;
  }
  timer_settime(g_timer, 0, &spec, nullptr);
}

void on_stop_signal(int sig, siginfo_t* info, void*) {
  int saved_errno = errno;
  int i = slot_of(sig);
  if (i >= 0) {
    Slot& s = g_slots[i];
    s.code.store(info->si_code, std::memory_order_relaxed);
    s.sender.store(info->si_pid, std::memory_order_relaxed);
    s.order.store(++g_sequence, std::memory_order_relaxed);
    s.pending.store(true, std::memory_order_release);
    set_wake_timer(true);
  }
  errno = saved_errno;
}

// Interrupting the wait is its main work; it also notes that it came, for a
// wake that arrives while the recorder is busy rather than waiting (a
// desched event's: RecorderSignals::take_wake).
std::atomic<bool> g_woken{false};
void on_wake(int) { g_woken.store(true, std::memory_order_relaxed); }

}  // namespace

bool RecorderSignals::take_wake() { return g_woken.exchange(false, std::memory_order_relaxed); }

RecorderSignals::RecorderSignals() {
  pthread_sigmask(SIG_SETMASK, nullptr, &saved_mask_);
  for (int i = 0; i < kSavedCount; ++i) {
    if (sigaction(kSaved[i], nullptr, &saved_[i]) != 0)
      throw std::runtime_error(std::string("cannot read the disposition of a signal: ") + strerror(errno));
  }
  for (Slot& s : g_slots) s.pending.store(false);

  sigevent ev{};
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = kWakeSignal;
  ev._sigev_un._tid = static_cast<pid_t>(syscall(SYS_gettid));  // the recording thread
  if (timer_create(CLOCK_MONOTONIC, &ev, &timer_) == 0) {
    have_timer_ = true;
    g_timer = timer_;
    g_timer_set.store(true, std::memory_order_release);
  }

  if (timer_create(CLOCK_MONOTONIC, &ev, &tick_timer_) == 0) have_tick_timer_ = true;

  struct sigaction wake {};
  wake.sa_handler = on_wake;  // no SA_RESTART: a waitpid returns EINTR
  sigemptyset(&wake.sa_mask);
  sigaction(kWakeSignal, &wake, nullptr);
  sigset_t unblock;
  sigemptyset(&unblock);
  sigaddset(&unblock, kWakeSignal);
  pthread_sigmask(SIG_UNBLOCK, &unblock, nullptr);

  struct sigaction stop {};
  stop.sa_sigaction = on_stop_signal;
  stop.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&stop.sa_mask);
  for (int i = 0; i < kSavedCount; ++i) {
    int sig = kSaved[i];
    if (slot_of(sig) < 0) continue;
    // Ignored on entry (nohup, a shell's background job): stays ignored.
    if (saved_[i].sa_handler == SIG_IGN && !(saved_[i].sa_flags & SA_SIGINFO)) continue;
    sigaction(sig, &stop, nullptr);
  }
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGPIPE, &ignore, nullptr);
  sigaction(SIGXFSZ, &ignore, nullptr);
}

RecorderSignals::~RecorderSignals() {
  // A kill(2) of the program's that never returned (the program was killed
  // in it) leaves its copy pending here: drop it before the mask goes back.
  unshield(0);
  for (int i = 0; i < kSavedCount; ++i) {
    if (kSaved[i] != kWakeSignal) sigaction(kSaved[i], &saved_[i], nullptr);
  }
  if (have_timer_) {
    g_timer_set.store(false, std::memory_order_release);
    timer_delete(timer_);
  }
  if (have_tick_timer_) timer_delete(tick_timer_);
  // The timer may have sent one last wake signal: let it arrive while our
  // handler is still installed, then put the old one back.
  pthread_sigmask(SIG_SETMASK, &saved_mask_, nullptr);
  for (int i = 0; i < kSavedCount; ++i) {
    if (kSaved[i] == kWakeSignal) sigaction(kSaved[i], &saved_[i], nullptr);
  }
}

void RecorderSignals::tick_every(long ms) {
  if (!have_tick_timer_ || ticking_) return;
  itimerspec spec{};
  spec.it_value.tv_sec = ms / 1000;
  spec.it_value.tv_nsec = (ms % 1000) * 1000000;
  spec.it_interval = spec.it_value;
  if (timer_settime(tick_timer_, 0, &spec, nullptr) == 0) ticking_ = true;
}

void RecorderSignals::stop_ticking() {
  if (!ticking_) return;
  itimerspec off{};
  timer_settime(tick_timer_, 0, &off, nullptr);
  ticking_ = false;
}

void RecorderSignals::restore_in_child() const {
  for (int i = 0; i < kSavedCount; ++i) sigaction(kSaved[i], &saved_[i], nullptr);
  sigprocmask(SIG_SETMASK, &saved_mask_, nullptr);
}

void RecorderSignals::shield(int sig) {
  if (sig <= 0 || sig >= NSIG || sig == SIGKILL || sig == SIGSTOP) return;
  unshield(0);  // at most one at a time (a previous call that never returned)
  sigset_t one, old;
  sigemptyset(&one);
  sigaddset(&one, sig);
  pthread_sigmask(SIG_BLOCK, &one, &old);
  was_blocked_ = sigismember(&old, sig) == 1;
  shielded_ = sig;
}

void RecorderSignals::unshield(pid_t program) {
  if (shielded_ == 0) return;
  int sig = shielded_;
  shielded_ = 0;
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, sig);
  // Other threads (the trace writer) block every signal, so a copy sent to
  // the process waits here for this thread. Real-time signals queue: take
  // them all. A standard signal keeps only the first sender's siginfo.
  std::vector<siginfo_t> foreign;
  timespec zero{};
  siginfo_t info;
  while (sigtimedwait(&one, &info, &zero) == sig) {
    bool from_program = program != 0 && info.si_code == SI_USER && info.si_pid == program;
    if (!from_program && program != 0) foreign.push_back(info);
  }
  pid_t tid = static_cast<pid_t>(syscall(SYS_gettid));
  for (siginfo_t& f : foreign) {
    // To itself, a thread may queue any si_code: the handler sees the
    // sender as it was.
    syscall(SYS_rt_tgsigqueueinfo, getpid(), tid, sig, &f);
  }
  if (!was_blocked_) pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
}

std::optional<StopSignal> RecorderSignals::take() {
  int oldest = -1;
  unsigned oldest_order = 0;
  for (int i = 0; i < kStopCount; ++i) {
    if (!g_slots[i].pending.load(std::memory_order_acquire)) continue;
    unsigned order = g_slots[i].order.load(std::memory_order_relaxed);
    if (oldest < 0 || order - oldest_order > (~0u >> 1)) {
      oldest = i;
      oldest_order = order;
    }
  }
  if (oldest >= 0) {
    Slot& s = g_slots[oldest];
    s.pending.store(false, std::memory_order_relaxed);
    // Read after clearing: a second signal of the kind that came meanwhile
    // is pending again and is taken next time, never lost.
    StopSignal out;
    out.signo = kStopSignals[oldest];
    out.code = s.code.load(std::memory_order_relaxed);
    out.sender = s.sender.load(std::memory_order_relaxed);
    return out;
  }
  // None left: stop the timer, then look once more, since a handler that
  // ran in between set its slot before it started the timer.
  set_wake_timer(false);
  for (const Slot& s : g_slots) {
    if (s.pending.load(std::memory_order_acquire)) {
      set_wake_timer(true);
      break;
    }
  }
  return std::nullopt;
}

}  // namespace backstep
