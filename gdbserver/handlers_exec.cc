// Running forwards and backwards, restarting, leaving.
#include <signal.h>

#include <limits>

#include "gdbserver/gdb_session.h"
#include "gdbserver/gdb_signals.h"

namespace backstep::gdb {

void GdbSession::handle(const rsp::VCont& r) {
  // Replay cannot run a thread out of its recorded turn, so the actions
  // only say what to do: a step (of the thread it names, or of whichever
  // runs next) or a continue. A stepped thread's turn is awaited by
  // running the others as recorded; their breakpoints and watchpoints stop
  // that run. Every thread runs as recorded however the actions are set
  // (scheduler-locking included): docs/user-guide.md, "Threads".
  const rsp::VContAction* step = nullptr;
  const rsp::VContAction* other = nullptr;
  for (const rsp::VContAction& a : r.actions) {
    std::optional<pid_t> named = a.thread ? named_thread(*a.thread) : std::nullopt;
    if (named && *named == 0) {
      reply(error_reply(rsp::ErrorCode::NoSuchThread));
      return;
    }
    bool stepping = a.kind == rsp::VContAction::Kind::Step || a.kind == rsp::VContAction::Kind::StepSignal ||
                    a.kind == rsp::VContAction::Kind::RangeStep;
    if (stepping && !step) step = &a;
    if (!stepping && !other) other = &a;
  }
  const rsp::VContAction* chosen = step ? step : other;
  if (!chosen) {
    reply(error_reply(rsp::ErrorCode::NoSuchThread));
    return;
  }
  ResumeRequest req;
  if (chosen->thread) {
    std::optional<pid_t> named = named_thread(*chosen->thread);
    req.thread = named ? *named : 0;
  }
  // A signal to deliver counts only in a diversion (a replay delivers what
  // was recorded).
  if (chosen->kind == rsp::VContAction::Kind::ContinueSignal || chosen->kind == rsp::VContAction::Kind::StepSignal) {
    req.signal = linux_signal(chosen->signal);
  }
  switch (chosen->kind) {
    case rsp::VContAction::Kind::Continue:
    case rsp::VContAction::Kind::ContinueSignal:
      req.how = ResumeRequest::How::Continue;
      break;
    case rsp::VContAction::Kind::Step:
    case rsp::VContAction::Kind::StepSignal:
      req.how = ResumeRequest::How::Step;
      break;
    case rsp::VContAction::Kind::RangeStep:
      req.how = ResumeRequest::How::RangeStep;
      req.range_start = chosen->range_start;
      req.range_end = chosen->range_end;
      break;
    case rsp::VContAction::Kind::Stop:
      reply(stop_reply(last_stop_));
      return;
  }
  resume(req);
}

bool GdbSession::refuse_reverse_in_call() {
  if (!target_.in_called_function()) return false;
  // gdb shows "Remote failure reply: E.<text>" and stays where it is.
  reply("E.reverse execution is not possible inside a function called by the debugger: "
        "let it return (or `return`, `finish`), then go backwards");
  return true;
}

void GdbSession::handle(const rsp::ReverseContinue&) {
  if (refuse_reverse_in_call()) return;
  ResumeRequest req;
  req.direction = RunDirection::Backward;
  exited_ = false;
  resume(req);
}

void GdbSession::handle(const rsp::ReverseStep&) {
  if (refuse_reverse_in_call()) return;
  ResumeRequest req;
  req.direction = RunDirection::Backward;
  req.how = ResumeRequest::How::Step;
  // bs names no thread: Hc's, else the one gdb last read registers of
  // (its selected thread), else the one that stopped.
  if (continue_thread_ != 0 && thread_alive(continue_thread_)) {
    req.thread = continue_thread_;
  } else if (general_thread_ != 0 && thread_alive(general_thread_)) {
    req.thread = general_thread_;
  } else {
    req.thread = stopped_thread();
  }
  exited_ = false;
  resume(req);
}

void GdbSession::handle(const rsp::Kill&) {
  // gdb expects no reply and closes; lldb waits for one. The session ends
  // either way, so the reply cannot be mistaken for a later stop.
  std::optional<std::int64_t> process;
  if (multiprocess_) process = wire_pid();
  reply(rsp::terminated(wire_signal(SIGKILL), process));
  done_ = true;
}

void GdbSession::handle(const rsp::Detach& r) {
  // A forked child the client lets go (detach-on-fork): it is not
  // debugged, and the session goes on with the parent.
  if (r.pid && forked_children_.erase(*r.pid)) {
    if (general_child_ == *r.pid) general_child_ = 0;
    reply(rsp::ok());
    done_ = parent_detached_ && forked_children_.empty();
    return;
  }
  if (r.pid && *r.pid != wire_pid()) {
    reply(error_reply(rsp::ErrorCode::NoSuchThread));
    return;
  }
  if (r.pid && last_stop_.kind == TargetStop::Kind::Fork && forked_children_.count(wire_pid(last_stop_.child))) {
    // At a fork, the parent let go before its child: gdb's
    // `follow-fork-mode child`. The session cannot move to the child (a
    // session debugs one process from its start): refused, with the way.
    std::string why = "backstep: the session stays with the parent (follow-fork-mode child is not "
                      "followed): `set follow-fork-mode parent`, and `backstep replay --onfork " +
                      std::to_string(last_stop_.child) + " TRACE` debugs the child\n";
    connection_.send_packet(rsp::console_output(why));
    reply(error_reply(rsp::ErrorCode::NotSupported, why));
    return;
  }
  reply(rsp::ok());
  // gdb detaches each inferior in turn: held children may come after.
  parent_detached_ = true;
  done_ = !r.pid || forked_children_.empty();
}

void GdbSession::handle(const rsp::VRun& r) {
  // vRun;[program];[arg]: the program must be the recorded one (empty).
  // No argument restarts at the start; "N" at the boundary before event N;
  // "cN" at checkpoint N.
  std::string arg = r.args.empty() ? "" : r.args[0];
  bool checkpoint = !arg.empty() && arg[0] == 'c';
  std::optional<uint64_t> number;
  if (!arg.empty()) {
    std::string digits = checkpoint ? arg.substr(1) : arg;
    try {
      std::size_t used = 0;
      number = std::stoull(digits, &used, 10);
      if (used != digits.size()) throw std::invalid_argument("trailing text");
    } catch (const std::exception&) {
      reply(error_reply(rsp::ErrorCode::InvalidArgument));
      return;
    }
  }
  if (checkpoint) {
    bool exists = *number <= static_cast<uint64_t>(std::numeric_limits<int>::max()) &&
                  target_.restart_checkpoint(static_cast<int>(*number));
    if (!exists) {
      // gdb has already dropped its inferior: an error here would leave it
      // without a target description, unable to read registers. Restart
      // "here" instead, and say why at the stop gdb asks for next.
      held_stop_message_ = "backstep: no checkpoint " + std::to_string(*number) +
                           " (`monitor info checkpoints` lists them); staying at event " +
                           std::to_string(target_.current_event()) + ".\n";
    }
  } else {
    target_.restart(number);
  }
  exited_ = false;
  hold_next_resume_ = !arg.empty();
  vfork_done_pending_ = false;  // that vfork is in the past now
  last_stop_ = TargetStop{};
  last_stop_.kind = TargetStop::Kind::Step;
  last_stop_.tid = stopped_thread();
  general_thread_ = 0;
  continue_thread_ = 0;
  reply(stop_reply(last_stop_));
}

}  // namespace backstep::gdb
