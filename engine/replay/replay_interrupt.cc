// Stopping a replay that runs user code, at a debugger's request (gdb's ^C
// during a `continue`). The replayed process is traced with PTRACE_TRACEME,
// so PTRACE_INTERRUPT is not available: while the program runs towards its
// next event, the wait for it wakes every Resume::poll_period (20 ms
// unless the caller wants its poll sooner: WaitTicker), asks
// Resume::interrupted, and, once that says so, sends the running task
// SIGSTOP (Task::request_stop()).
//
// The SIGSTOP is replay's own, never the program's: the program's signals
// are replayed from the trace and never sent for real, and Task tells its
// requested SIGSTOP from any other. Its stop is reported as Interrupted;
// when the program is resumed, the signal is suppressed. If the program
// reaches a stop of its own first (an event, a breakpoint: the request may
// cross it), that stop is what resume() returns, and the SIGSTOP left
// pending is dropped by Task when it comes, before the next instruction.
// The caller sees that the interrupt was wanted (its poll said so) and
// stops at the next occasion.
//
// Where the program stopped is named by the timeline (a state anchor:
// engine/timeline/mark.h), not here. Only the run to an ordinary event
// polls: the search for a recorded Position (replay_position.cc) ends by
// itself after a bounded number of passes.
#include <chrono>

#include "engine/core/wait_ticker.h"
#include "engine/replay/replay_session.h"

namespace backstep {
WaitStatus ReplaySession::wait_for_stop() {
  if (!interrupt_poll_) return task_->wait();
  WaitTicker ticker(poll_period_);
  for (;;) {
    if (std::optional<WaitStatus> ws = task_->wait_interruptible()) return *ws;
    if (interrupt_poll_()) task_->request_stop();
  }
}

}  // namespace backstep
