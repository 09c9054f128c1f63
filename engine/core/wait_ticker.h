// Wakes the calling thread's blocking waits at a fixed period, so that a
// thread blocked in waitpid() for a tracee that runs user code for seconds
// can look at something else meanwhile (a debugger's interrupt request).
//
// While a WaitTicker lives, a timer sends kTickSignal to this thread every
// `period`; its handler does nothing and is installed without SA_RESTART, so
// the wait fails with EINTR (Task::wait_interruptible() returns nothing).
// Periodic, so that a tick that comes just before the wait begins is
// followed by another. Keep one alive only around the wait itself: any other
// system call of this thread may fail with EINTR meanwhile.
#pragma once

#include <chrono>

namespace backstep {

class WaitTicker {
 public:
  explicit WaitTicker(std::chrono::milliseconds period);
  ~WaitTicker();
  WaitTicker(const WaitTicker&) = delete;
  WaitTicker& operator=(const WaitTicker&) = delete;

  // The signal the timer sends (a real-time signal no other part of
  // backstep uses; the recorder's wake signal is SIGALRM).
  static int tick_signal();

 private:
  bool armed_ = false;
};

}  // namespace backstep
