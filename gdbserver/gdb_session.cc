#include "gdbserver/gdb_session.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <variant>

#include "values/log.h"
#include "gdbserver/gdb_signals.h"

namespace backstep::gdb {

GdbSession::GdbSession(DebugTarget& target, Connection& connection)
    : target_(target), connection_(connection), registers_(register_set_for(target.cpu_features())) {
  last_stop_.kind = TargetStop::Kind::Step;
  last_stop_.tid = target.process_id();
}

void GdbSession::serve() {
  while (!done_) {
    std::optional<std::string> packet = connection_.read_packet();
    if (!packet) break;  // the client went away
    dispatch(*packet);
  }
  for (auto& [id, fd] : files_) close(fd);
  files_.clear();
}

void GdbSession::dispatch(const std::string& payload) {
  rsp::ParseResult parsed = rsp::parse_request(payload);
  if (auto* error = std::get_if<rsp::ParseError>(&parsed)) {
    BS_LOG(Cli, "malformed packet: " << error->what);
    reply(error_reply(rsp::ErrorCode::InvalidArgument, error->what));
    return;
  }
  try {
    std::visit(
        [this](const auto& request) {
          if (general_child_ != 0 && names_child_state(request)) return;
          handle(request);
        },
        std::get<rsp::Request>(parsed));
  } catch (const std::exception& e) {
    // The target could not do it (a divergence, a dead tracee): tell the
    // user on the console and keep serving.
    BS_LOG(Cli, "request failed: " << e.what());
    std::string text = std::string("backstep: ") + e.what() + "\n";
    connection_.send_packet(rsp::console_output(text));
    reply(error_reply(rsp::ErrorCode::Failed, e.what()));
  }
}

template <typename Request>
bool GdbSession::names_child_state(const Request&) {
  // After Hg on a forked child the client has not detached
  // (`detach-on-fork off`): only the debugged process has memory and
  // breakpoints here, so the child's memory is refused with why, and a
  // breakpoint put into it is taken without effect (gdb would otherwise
  // abort the command that resumes); one taken out of it changes nothing,
  // as it has none and the parent keeps its own (gdb's detach-on-fork
  // takes them out of the child before D;pid). Its registers are those it
  // started with (request_registers), where the client holds it.
  constexpr bool reads_or_writes =
      std::is_same_v<Request, rsp::ReadMemory> || std::is_same_v<Request, rsp::SearchMemory> ||
      std::is_same_v<Request, rsp::WriteRegisters> || std::is_same_v<Request, rsp::WriteRegister> ||
      std::is_same_v<Request, rsp::WriteMemory> || std::is_same_v<Request, rsp::WriteMemoryBinary>;
  if constexpr (reads_or_writes) {
    reply(error_reply(rsp::ErrorCode::NoSuchThread, child_refusal(general_child_)));
    return true;
  } else if constexpr (std::is_same_v<Request, rsp::InsertBreakpoint> || std::is_same_v<Request, rsp::RemoveBreakpoint>) {
    reply(rsp::ok());
    return true;
  }
  return false;
}

std::string GdbSession::child_refusal(std::int64_t wire_child) const {
  std::int64_t recorded = recorded_pid(wire_child);
  return "process " + std::to_string(recorded) +
         " is a child the debugged process made: it is replayed as recorded, not debugged here "
         "(`backstep replay --onfork " + std::to_string(recorded) + " TRACE` debugs it)";
}

bool GdbSession::progress_to_stderr_ = false;

void GdbSession::set_progress_to_stderr(bool on) { progress_to_stderr_ = on; }

std::chrono::milliseconds GdbSession::progress_interval() {
  // BACKSTEP_PROGRESS_MS overrides it; 0 makes a note at every look for
  // an interrupt, so that a test sees one for any resume.
  static const std::chrono::milliseconds interval = [] {
    const char* text = std::getenv("BACKSTEP_PROGRESS_MS");
    char* end = nullptr;
    long ms = text && *text ? std::strtol(text, &end, 10) : -1;
    return std::chrono::milliseconds(ms >= 0 && end && *end == '\0' ? ms : 5000);
  }();
  return interval;
}

ResumeRequest GdbSession::forward(ResumeRequest::How how) {
  ResumeRequest r;
  r.how = how;
  return r;
}

void GdbSession::resume(const ResumeRequest& request) {
  if (exited_ && request.direction == RunDirection::Forward) {
    // Still at the end: report the exit again.
    reply(stop_reply(last_stop_));
    return;
  }
  for (const auto& [child, regs] : forked_children_) {
    // Not detached (`detach-on-fork off`): say once that it stays out.
    if (noted_children_.insert(child).second) {
      connection_.send_packet(rsp::console_output("backstep: " + child_refusal(child) + "\n"));
    }
  }
  if (std::exchange(vfork_done_pending_, false)) {
    // The vfork's child runs outside the debugged process, so its parent's
    // wait is over as far as the client can see: it puts its breakpoints
    // back (gdb took them out of the shared memory) and resumes again.
    rsp::StopReply r;
    r.signal = kGdbSigTrap;
    r.thread = thread_id(stopped_thread());
    r.reason = rsp::VforkDone{};
    reply(rsp::stop_reply(r));
    return;
  }
  if (hold_next_resume_) {
    hold_next_resume_ = false;
    if (!held_stop_message_.empty()) connection_.send_packet(rsp::console_output(held_stop_message_));
    held_stop_message_.clear();
    rsp::StopReply r;
    r.signal = 0;
    r.thread = thread_id(stopped_thread());
    reply(rsp::stop_reply(r));
    return;
  }
  // A long search (reverse execution over a long recording) tells the
  // client and the server's stderr that it is still at work, every few
  // seconds, as console output ('O' packets come before the stop reply).
  const auto started = std::chrono::steady_clock::now();
  auto next_note = started + progress_interval();
  const char* what = request.direction == RunDirection::Backward ? "searching backwards" : "replaying forwards";
  // A called function runs live, outside the recording: no events to count.
  const bool in_call = request.direction == RunDirection::Forward && target_.in_called_function();
  DebugTarget::Activity before = target_.activity();
  auto last_note = started;
  auto poll = [&] {
    auto now = std::chrono::steady_clock::now();
    if (now >= next_note) {
      next_note = now + progress_interval();
      // Where the replay is (a backward search replays forwards from
      // checkpoints), of how many events, and how fast since the last note.
      DebugTarget::Activity a = target_.activity();
      double span = std::chrono::duration<double>(now - last_note).count();
      uint64_t rate = span > 0 ? static_cast<uint64_t>(static_cast<double>(a.events_taken - before.events_taken) / span) : 0;
      before = a;
      last_note = now;
      auto seconds = std::chrono::duration_cast<std::chrono::seconds>(now - started).count();
      std::string text = in_call ? "backstep: still running a function called by the debugger (" +
                                       std::to_string(seconds) + " s; ^C stops)\n"
                                 : "backstep: still " + std::string(what) + " (" + std::to_string(seconds) +
                                       " s, at event " + std::to_string(a.last_event) + " of " +
                                       std::to_string(a.event_count) + ", " + std::to_string(rate) +
                                       " events/s; ^C stops)\n";
      connection_.send_packet(rsp::console_output(text));
      if (progress_to_stderr_) std::fputs(text.c_str(), stderr);
    }
    return connection_.poll_interrupt();
  };
  TargetStop stop = target_.resume(request, poll);
  // A fork whose child the client still holds (`detach-on-fork off`),
  // reached again after going back: the client knows that child already
  // (a second report would make it a second inferior), so the run goes on.
  while (stop.kind == TargetStop::Kind::Fork && forked_children_.count(wire_pid(stop.child))) {
    stop = target_.resume(request, poll);
  }
  if (std::string note = target_.take_note(); !note.empty()) {
    connection_.send_packet(rsp::console_output(note));
    if (progress_to_stderr_) std::fputs(note.c_str(), stderr);
  }
  last_stop_ = stop;
  exited_ = stop.kind == TargetStop::Kind::Exited || stop.kind == TargetStop::Kind::Killed;
  // gdb makes the stopping thread its current one; Hg and Hc follow it.
  general_thread_ = 0;
  continue_thread_ = 0;
  general_child_ = 0;
  if (stop.kind == TargetStop::Kind::Fork) {
    forked_children_[wire_pid(stop.child)] = stop.child_regs;
    vfork_done_pending_ = stop.vfork;
  }
  reply(stop_reply(stop));
}

int GdbSession::wire_signal(int linux_signal) const { return lldb_ ? linux_signal : to_gdb_signal(linux_signal); }

int GdbSession::linux_signal(int wire_signal) const {
  if (!lldb_) return to_linux_signal(wire_signal);
  return wire_signal > 0 && wire_signal < 65 ? wire_signal : 0;
}

std::string GdbSession::stop_reply(const TargetStop& stop) {
  std::optional<std::int64_t> process;
  if (multiprocess_) process = wire_pid();
  switch (stop.kind) {
    case TargetStop::Kind::Exited: return rsp::exited(stop.exit_code, process);
    case TargetStop::Kind::Killed: return rsp::terminated(wire_signal(stop.signal), process);
    default: break;
  }
  rsp::StopReply r;
  r.signal = kGdbSigTrap;
  pid_t tid = thread_alive(stop.tid) ? stop.tid : stopped_thread();
  r.thread = thread_id(tid);
  switch (stop.kind) {
    case TargetStop::Kind::Breakpoint:
      if (stop.hardware && hwbreak_) {
        r.reason = rsp::HardwareBreak{};
      } else if (swbreak_) {
        r.reason = rsp::SoftwareBreak{};
      }
      break;
    case TargetStop::Kind::Watchpoint: {
      rsp::Watchpoint w;
      w.addr = stop.address;
      w.access = stop.watch_kind == WatchKind::Write  ? rsp::Watchpoint::Access::Write
                 : stop.watch_kind == WatchKind::Read ? rsp::Watchpoint::Access::Read
                                                      : rsp::Watchpoint::Access::ReadWrite;
      r.reason = w;
      break;
    }
    case TargetStop::Kind::Signal:
      r.signal = wire_signal(stop.signal);
      break;
    case TargetStop::Kind::Syscall:
      if (stop.syscall_return) {
        r.reason = rsp::SyscallReturn{static_cast<std::uint64_t>(stop.syscall)};
      } else {
        r.reason = rsp::SyscallEntry{static_cast<std::uint64_t>(stop.syscall)};
      }
      break;
    case TargetStop::Kind::HistoryStart:
      r.reason = rsp::HistoryBoundary{rsp::HistoryBoundary::Edge::Begin};
      break;
    case TargetStop::Kind::HistoryEnd:
      r.reason = rsp::HistoryBoundary{rsp::HistoryBoundary::Edge::End};
      break;
    case TargetStop::Kind::Interrupted:
      r.signal = kGdbSigInt;
      break;
    case TargetStop::Kind::Exec:
      r.reason = rsp::Exec{stop.exec_path, lldb_};
      break;
    case TargetStop::Kind::Fork:
      r.reason = rsp::Fork{rsp::ThreadId::in_process(wire_pid(stop.child), stop.child), stop.vfork};
      break;
    default:
      break;
  }
  Registers regs = target_.registers(tid);
  for (std::size_t n : {kRegRbp, kRegRsp, kRegRip}) {
    rsp::ExpeditedRegister e;
    e.regnum = static_cast<std::uint32_t>(n);
    e.value = rsp::register_bytes(*register_value(registers_, n, regs, {}));
    r.registers.push_back(e);
  }
  if (list_threads_in_stop_) {
    for (pid_t t : target_.thread_ids()) {
      r.threads.push_back(thread_id(t));
      r.thread_pcs.push_back(t == tid ? regs.ip() : target_.registers(t).ip());
    }
  }
  return rsp::stop_reply(r);
}

}  // namespace backstep::gdb
