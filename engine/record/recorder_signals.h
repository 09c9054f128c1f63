// Signals and the recorder process.
//
// The program must start with exactly the signal dispositions and mask that
// `backstep record` was given: `prog | head -1` must die of SIGPIPE, Ctrl-C
// must reach it. The recorder, for its part, catches the signals that ask a
// process to stop (SIGINT, SIGQUIT, SIGTERM, SIGHUP, unless they were ignored
// when it started, as a shell does for background jobs) and ignores SIGPIPE
// and SIGXFSZ, so that a closed pipe or a file size limit becomes an error
// message instead of a lost trace.
//
// Whether a caught signal was sent to the whole process group (Ctrl-C: the
// program gets it too, and it is recorded like any of its signals) or to the
// recorder alone (then the recording stops) is decided by RecordSession;
// this class only says which signal came and from whom.
//
// The program shares the recorder's process group (so that Ctrl-C, job
// control and a shell's killpg reach both, as they would reach the program
// alone without backstep). A signal the program sends to that group
// (kill(0, SIGABRT), kill(-pgrp, ...), kill(-1, ...), or to its parent, the
// recorder) must not hit the recorder: the recorder sees the kill(2) at its
// syscall-entry stop, blocks the signal for itself (shield), lets the call
// run, and at the exit stop takes the copy the call queued for it
// (unshield). Because the send happens inside the call, that copy is
// always pending by the exit stop: nothing is left to timing.
#pragma once

#include <signal.h>
#include <sys/types.h>
#include <time.h>

#include <optional>

namespace backstep {

// A signal that asked the recorder to stop, as its siginfo described it.
struct StopSignal {
  int signo = 0;
  int code = 0;     // si_code: SI_KERNEL from a terminal, SI_USER from kill(2)
  pid_t sender = 0; // si_pid
};

class RecorderSignals {
 public:
  // Saves the current dispositions and mask, then installs the recorder's
  // handlers. One instance at a time (the handlers are process-wide).
  RecorderSignals();
  // Puts back what was saved.
  ~RecorderSignals();
  RecorderSignals(const RecorderSignals&) = delete;
  RecorderSignals& operator=(const RecorderSignals&) = delete;

  // In the child between fork and exec: restores exactly the dispositions
  // and mask the recorder was started with. Async-signal-safe.
  void restore_in_child() const;

  // Blocks `sig` for the recorder while the program's kill(2) that also
  // targets the recorder runs. SIGKILL and SIGSTOP cannot be blocked (they
  // are not shielded: see docs/user-guide.md).
  void shield(int sig);
  // After that kill(2) returned: takes the pending copies of the shielded
  // signal, drops those `program` sent, queues the others (a signal someone
  // else sent meanwhile) to the recorder again, and unblocks the signal.
  // Nothing if no signal is shielded.
  void unshield(pid_t program);

  // The oldest stop signal not yet taken, if any. Call it until it returns
  // nothing: that stops the wake-up timer.
  std::optional<StopSignal> take();

  // Whether kWakeSignal came (a timer's, or a desched event's, which the
  // preload library points at this thread) since the last call.
  static bool take_wake();

  // The handlers are installed with SA_RESTART, so that no system call of
  // the recorder fails with EINTR because of them. To make sure that a wait
  // for the tracee still returns soon after a stop signal came (even one
  // that arrived just before the wait began), a handler starts a timer that
  // sends kWakeSignal, without SA_RESTART, to the recording thread every
  // kWakeMs until take() has returned every signal.
  static constexpr int kWakeSignal = SIGALRM;
  static constexpr long kWakeMs = 20;

  // Wakes the recording thread's waits the same way every `ms` until
  // stop_ticking(): the recorder's clock while it waits for a program that
  // runs user code with a signal held back (engine/record/forced_position.cc).
  // Periodic, so that a tick that comes just before a wait begins is
  // followed by another.
  void tick_every(long ms);
  void stop_ticking();

 private:
  static constexpr int kSaved[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGPIPE, SIGXFSZ, kWakeSignal};
  static constexpr int kSavedCount = sizeof(kSaved) / sizeof(kSaved[0]);
  struct sigaction saved_[kSavedCount];
  sigset_t saved_mask_;
  timer_t timer_{};
  bool have_timer_ = false;
  timer_t tick_timer_{};
  bool have_tick_timer_ = false;
  bool ticking_ = false;
  int shielded_ = 0;        // the blocked signal, while a kill(2) runs
  bool was_blocked_ = false;  // it was in the mask already: leave it blocked
};

}  // namespace backstep
