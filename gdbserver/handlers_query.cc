// Connection set-up and object transfers.
#include "gdbserver/gdb_session.h"
#include "gdbserver/gdb_signals.h"
#include "gdbserver/rsp/hex.h"

namespace backstep::gdb {

void GdbSession::handle(const rsp::QuerySupported& r) {
  multiprocess_ = r.supports("multiprocess");
  swbreak_ = r.supports("swbreak");
  hwbreak_ = r.supports("hwbreak");
  // Exec events: gdb then reloads the program's symbols and re-sets its
  // breakpoints in the new program (`catch exec` stops there).
  // lldb asks again after it knows the process, and always hears of them.
  const bool exec_events = r.supports("exec-events");
  target_.set_report_exec(exec_events || lldb_);
  // Fork events: the client hears of each process the debugged one makes,
  // takes its breakpoints out of it and detaches it (`catch fork` stops
  // there). Both kinds or neither: a vfork reported to a client that knows
  // only forks would leave it waiting for its end. They need multiprocess
  // thread ids, which name the child.
  fork_events_ = multiprocess_ && r.supports("fork-events") && r.supports("vfork-events");
  target_.set_report_forks(fork_events_);
  reply(
      "PacketSize=" + rsp::hex_number(kPacketSize) + ";QStartNoAckMode+;qXfer:features:read+;qXfer:auxv:read+;"
      "qXfer:exec-file:read+;qXfer:siginfo:read+;qXfer:threads:read+;qXfer:libraries-svr4:read+;"
      "multiprocess+;swbreak+;"
      "hwbreak+;vContSupported+;QPassSignals+;QCatchSyscalls+;ReverseContinue+;ReverseStep+" +
      std::string(exec_events ? ";exec-events+" : "") + std::string(fork_events_ ? ";fork-events+;vfork-events+" : ""));
}

void GdbSession::handle(const rsp::StartNoAckMode&) {
  reply(rsp::ok());  // acknowledged like any packet before the switch
  connection_.set_no_ack(true);
}

void GdbSession::handle(const rsp::ListThreadsInStopReply&) {
  mark_lldb();
  list_threads_in_stop_ = true;
  reply(rsp::ok());
}

void GdbSession::handle(const rsp::QueryStopReason&) { reply(stop_reply(last_stop_)); }

void GdbSession::handle(const rsp::XferRead& r) {
  std::string object;
  switch (r.object) {
    case rsp::XferObject::Features: {
      std::optional<std::string> xml = target_description(registers_, r.annex);
      if (!xml) {
        reply(error_reply(rsp::ErrorCode::InvalidArgument));
        return;
      }
      object = *xml;
      break;
    }
    case rsp::XferObject::Auxv: {
      std::vector<uint8_t> auxv = target_.auxv();
      object.assign(auxv.begin(), auxv.end());
      break;
    }
    case rsp::XferObject::ExecFile:
      object = target_.exe_path();
      break;
    case rsp::XferObject::Siginfo: {
      std::vector<uint8_t> info = target_.siginfo();
      if (info.empty()) {
        reply(error_reply(rsp::ErrorCode::NotReadable));
        return;
      }
      object.assign(info.begin(), info.end());
      break;
    }
    case rsp::XferObject::Threads:
      object = threads_xml();
      break;
    case rsp::XferObject::LibrariesSvr4:
      object = target_.libraries_svr4_xml();
      break;
  }
  reply(rsp::xfer_chunk(object, r.offset, std::min<uint64_t>(r.length, kMaxXferRead)));
}

void GdbSession::handle(const rsp::PassSignals& r) {
  std::vector<int> linux_signals;
  for (int gdb_signal : r.signals) {
    if (int sig = linux_signal(gdb_signal)) linux_signals.push_back(sig);
  }
  target_.set_pass_signals(linux_signals);
  reply(rsp::ok());
}

void GdbSession::handle(const rsp::CatchSyscalls& r) {
  if (!r.enabled) {
    target_.set_catch_syscalls(std::nullopt);
  } else {
    std::vector<int> numbers;
    for (auto n : r.numbers) numbers.push_back(static_cast<int>(n));
    target_.set_catch_syscalls(numbers);
  }
  reply(rsp::ok());
}

}  // namespace backstep::gdb
