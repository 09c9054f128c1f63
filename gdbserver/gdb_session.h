// One debugging session with one client: what each request means for the
// DebugTarget, and the replies. One small handler per request type
// (handlers_*.cc); requests without a handler get the empty reply.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <chrono>
#include <string>

#include "engine/timeline/debug_target.h"
#include "gdbserver/connection.h"
#include "gdbserver/gdb_registers.h"
#include "gdbserver/rsp/framing.h"
#include "gdbserver/rsp/reply.h"
#include "gdbserver/rsp/request.h"

namespace backstep::gdb {

class GdbSession {
 public:
  // The server's own stderr gets the progress notes of long resumes too
  // (`serve`: the terminal the server runs in; not under `replay`, where
  // the client shares it).
  static void set_progress_to_stderr(bool on);
  // Per-client bounds: one client cannot fill the host with checkpoints
  // (each a set of forked processes) or open descriptors. Past them the
  // request gets an error and the session goes on.
  static constexpr std::size_t kMaxCheckpoints = 64;  // made with `monitor checkpoint`
  static constexpr std::size_t kMaxOpenFiles = 64;    // vFile:open handles
  static constexpr std::size_t kMaxSavedRegisterStates = 1024;  // QSaveRegisterState
  // Per-request bounds (docs/protocol.md, "Bounds on requests"): no reply
  // is longer than the PacketSize qSupported advertises (the longest packet
  // the server takes), so no length a client writes makes the server
  // allocate more. A longer read gets a shorter reply, as the protocol
  // allows: m's is hex (two characters a byte), the binary replies of qXfer
  // and vFile:pread may double when escaped.
  static constexpr std::size_t kPacketSize = rsp::kDefaultPacketLimit;
  static constexpr std::size_t kMaxMemoryRead = kPacketSize / 4;  // m
  // Linux's default vm.mmap_min_addr: nothing is ever mapped below.
  static constexpr uint64_t kLowestMappable = 0x10000;
  static constexpr std::size_t kMaxXferRead = kPacketSize / 4;    // qXfer:...:read
  static constexpr std::size_t kMaxFileRead = kPacketSize / 8;    // vFile:pread
  // lldb reads /proc/PID of its own host for the pid it is given (exe,
  // cmdline, environ): it sees the recorded pid plus this, more than any
  // Linux pid can be (PID_MAX_LIMIT is 2^22), so never a local process.
  static constexpr std::int64_t kLldbPidOffset = 10'000'000;

  GdbSession(DebugTarget& target, Connection& connection);

  // Serves requests until the client disconnects, detaches or kills.
  void serve();

  // Handlers. Each replies through reply()/send() exactly once (or, for
  // resumes, with the stop reply).
  void handle(const rsp::QuerySupported& r);
  void handle(const rsp::MustReplyEmpty&) { reply(""); }
  void handle(const rsp::StartNoAckMode&);
  void handle(const rsp::EnableExtendedMode&) { reply(rsp::ok()); }
  void handle(const rsp::ThreadSuffixSupported&) {
    mark_lldb();
    reply(rsp::ok());
  }
  void handle(const rsp::ListThreadsInStopReply&);
  void handle(const rsp::EnableErrorStrings&) {
    mark_lldb();
    error_strings_ = true;
    reply(rsp::ok());
  }
  void handle(const rsp::SetNonStop& r) { reply(r.enabled ? error_reply(rsp::ErrorCode::NotSupported) : rsp::ok()); }
  void handle(const rsp::QueryStopReason&);
  void handle(const rsp::QueryAttached&) { reply("1"); }
  // lldb's dialect (handlers_lldb.cc).
  void handle(const rsp::QueryHostInfo&);
  void handle(const rsp::QueryProcessInfo&);
  void handle(const rsp::QueryShlibInfoAddr&);
  void handle(const rsp::QueryMemoryRegion& r);
  void handle(const rsp::QueryWatchpointSupport&) { reply("num:4;"); }
  void handle(const rsp::QuerySymbol&) { reply(rsp::ok()); }
  void handle(const rsp::MonitorCommand& r);
  void handle(const rsp::QueryCurrentThread&);
  void handle(const rsp::ThreadInfoFirst&);
  void handle(const rsp::ThreadInfoNext&) { reply("l"); }
  void handle(const rsp::ThreadAlive& r);
  void handle(const rsp::ThreadExtraInfo& r);
  void handle(const rsp::QueryTlsAddress& r);
  void handle(const rsp::SetThread& r);
  void handle(const rsp::ReadRegisters& r);
  void handle(const rsp::WriteRegisters& r);
  void handle(const rsp::ReadRegister& r);
  void handle(const rsp::WriteRegister& r);
  void handle(const rsp::ReadMemory& r);
  void handle(const rsp::WriteMemory& r);
  void handle(const rsp::WriteMemoryBinary& r);
  void handle(const rsp::AllocateMemory& r);
  void handle(const rsp::DeallocateMemory& r);
  void handle(const rsp::SearchMemory& r);
  void handle(const rsp::SaveRegisterState& r);
  void handle(const rsp::RestoreRegisterState& r);
  void handle(const rsp::InsertBreakpoint& r);
  void handle(const rsp::RemoveBreakpoint& r);
  void handle(const rsp::VContQuery&) { reply("vCont;c;C;s;S;r"); }
  void handle(const rsp::VCont& r);
  void handle(const rsp::Continue&) { resume(forward(ResumeRequest::How::Continue)); }
  void handle(const rsp::ContinueWithSignal& r);
  void handle(const rsp::Step&) { resume(legacy_step()); }
  void handle(const rsp::StepWithSignal& r);
  void handle(const rsp::ReverseContinue&);
  void handle(const rsp::ReverseStep&);
  void handle(const rsp::Kill&);
  void handle(const rsp::VKill&) { reply(rsp::ok()); }  // a vRun follows
  void handle(const rsp::Detach&);
  void handle(const rsp::VRun& r);
  void handle(const rsp::PassSignals& r);
  void handle(const rsp::ProgramSignals&) { reply(rsp::ok()); }
  void handle(const rsp::CatchSyscalls& r);
  void handle(const rsp::DisableRandomization&) { reply(rsp::ok()); }
  void handle(const rsp::StartupWithShell&) { reply(rsp::ok()); }
  void handle(const rsp::EnvironmentReset&) { reply(rsp::ok()); }
  void handle(const rsp::EnvironmentHexEncoded&) { reply(rsp::ok()); }
  void handle(const rsp::SetWorkingDir&) { reply(rsp::ok()); }
  void handle(const rsp::XferRead& r);
  void handle(const rsp::FileSetFs&) { reply(rsp::file_result(0)); }
  void handle(const rsp::FileOpen& r);
  void handle(const rsp::FileClose& r);
  void handle(const rsp::FilePread& r);
  void handle(const rsp::FileFstat& r);
  void handle(const rsp::FileReadlink&);
  void handle(const rsp::FileUnlink&);
  // Parsed, and not supported: the empty reply says so, and the client
  // goes on with what it does without them. Named one by one, so that a
  // request type added without a handler fails to compile.
  void handle(const rsp::QueryOffsets&) { reply(""); }       // no relocation: the recorded addresses
  void handle(const rsp::QueryTraceStatus&) { reply(""); }   // no tracepoints
  void handle(const rsp::QueryRegisterInfo&) { reply(""); }  // lldb reads target.xml instead
  void handle(const rsp::ThreadsInfoJson&) { reply(""); }    // lldb asks thread by thread
  void handle(const rsp::ReadMemoryBinary&) { reply(""); }   // lldb falls back to `m`
  void handle(const rsp::XferWrite&) { reply(""); }          // nothing is written through qXfer
  void handle(const rsp::FilePwrite&) { reply(""); }         // the recording's files are read-only
  void handle(const rsp::Unknown&) { reply(""); }            // not in the protocol layer at all

 private:
  void reply(const std::string& payload) { connection_.send_packet(payload); }
  // "E<code>", or with a text once the client sent QEnableErrorStrings
  // (`message`, else a default one for the code).
  std::string error_reply(rsp::ErrorCode code, std::string_view message = {}) const;
  void dispatch(const std::string& payload);
  static ResumeRequest forward(ResumeRequest::How how);
  // `s`: steps the Hc thread (or the one due to run).
  ResumeRequest legacy_step() const;
  void resume(const ResumeRequest& request);
  // Answers a reverse request made inside a called function with an error.
  bool refuse_reverse_in_call();
  std::string stop_reply(const TargetStop& stop);
  // How often a long resume says it is still at work (5 s).
  static std::chrono::milliseconds progress_interval();
  static bool progress_to_stderr_;
  // Threads (handlers_threads.cc).
  rsp::ThreadId thread_id(pid_t tid) const;
  // The pid the client sees: the recorded one, or for lldb that plus
  // kLldbPidOffset.
  std::int64_t wire_pid() const;
  std::int64_t wire_pid(pid_t recorded) const;
  std::int64_t recorded_pid(std::int64_t wire) const;  // wire_pid's inverse
  bool thread_alive(pid_t tid) const;
  // A specific thread of the recorded process (or of any process): its
  // tid; nullopt for "any"/"all"; 0 for one that does not exist here.
  std::optional<pid_t> named_thread(const rsp::ThreadId& id) const;
  // The thread that register requests read: a suffix's, else Hg's, else the
  // thread of the last stop. 0: none that exists (an error reply).
  pid_t register_thread(const std::optional<rsp::ThreadId>& suffix) const;
  pid_t stopped_thread() const;
  std::string threads_xml() const;
  std::string register_hex(std::size_t regnum, const Registers& regs, const std::vector<uint8_t>& xsave);
  // A thread's registers and XSAVE state.
  struct ThreadRegisters {
    pid_t tid = 0;
    Registers regs;
    std::vector<uint8_t> xsave;
  };
  // Those of the thread a register request names (its suffix, else Hg's,
  // else the last stop's); nullopt after replying E03 when there is none.
  std::optional<ThreadRegisters> request_registers(const std::optional<rsp::ThreadId>& suffix);
  // Why a Z packet asks for what no target can serve (handlers_data.cc);
  // nullopt when it may be set.
  static std::optional<std::string> unservable(const rsp::BreakpointSpec& b);
  // The text of monitor `command`'s answer; sets limit_reached when it was
  // refused for a per-client limit.
  std::string monitor(const std::string& command, bool& limit_reached);
  // Register and memory writes (handlers_diversion.cc).
  void write_registers(pid_t tid, const Registers& regs, const std::vector<uint8_t>& xsave);
  void write_memory(uint64_t addr, const std::vector<uint8_t>& bytes);

  DebugTarget& target_;
  Connection& connection_;
  RegisterSet registers_;
  bool multiprocess_ = false;
  bool swbreak_ = false;
  bool hwbreak_ = false;
  bool list_threads_in_stop_ = false;
  bool error_strings_ = false;  // QEnableErrorStrings (lldb)
  // The client behaves like lldb: it sent one of the packets only lldb
  // sends (QThreadSuffixSupported, QListThreadsInStopReply, qHostInfo,
  // qProcessInfo, QEnableErrorStrings), before it asks for any thread id.
  bool lldb_ = false;
  // lldb hears of every exec (its own server's "reason:exec", whatever
  // qSupported said): it then reloads the program and its breakpoints.
  void mark_lldb() {
    lldb_ = true;
    target_.set_report_exec(true);
  }
  // Signal numbers on the wire: gdb's own numbering (gdb_signals.h) for
  // gdb; Linux's for lldb, which reads the signals of a server other than
  // lldb-server in the target's numbering (SIGUSR1 is 10 to it, and gdb's
  // 30 would be SIGPWR). 0 for a number with no Linux signal.
  int wire_signal(int linux_signal) const;
  int linux_signal(int wire_signal) const;
  bool done_ = false;
  TargetStop last_stop_;
  bool exited_ = false;
  // Hg and Hc: a recorded tid, or 0 for "the thread of the last stop"
  // (every stop resets both to that, as gdb assumes).
  pid_t general_thread_ = 0;
  pid_t continue_thread_ = 0;
  // Fork events (fork-events+ and vfork-events+, both offered): the
  // children reported, by wire pid, until the client detaches them (D;pid).
  // The client takes its breakpoints out of a child first (Hg on the child,
  // then z packets): with `general_child_` set to it those change nothing,
  // as the child is not debugged. After a vfork the next resume answers
  // vforkdone at once (the child runs outside the debugged process).
  bool fork_events_ = false;
  // Each with its registers as it started: a child held by the client
  // (`detach-on-fork off`) stands there in the client's view.
  std::map<std::int64_t, Registers> forked_children_;
  std::int64_t general_child_ = 0;
  bool vfork_done_pending_ = false;
  std::set<std::int64_t> noted_children_;  // told that they are not debugged
  // The debugged process was detached while forked children were still
  // held: the session ends when the last of them is detached too.
  bool parent_detached_ = false;
  // A request about the state of the Hg child (general_child_): answered
  // here when it is one the child cannot serve.
  template <typename Request>
  bool names_child_state(const Request& request);
  std::string child_refusal(std::int64_t wire_child) const;
  // After `run cN` / `run N`, gdb continues at once; that first resume must
  // stay at the restart point (answered "Program stopped.").
  bool hold_next_resume_ = false;
  // Console text to show with that held stop (gdb prints no console output
  // in reply to vRun itself).
  std::string held_stop_message_;
  std::map<int, int> files_;  // vFile fd -> our fd
  // QSaveRegisterState: id -> the thread and what it held.
  std::map<std::uint64_t, ThreadRegisters> saved_registers_;
  std::uint64_t next_save_id_ = 1;
  int next_file_ = 1;
};

}  // namespace backstep::gdb
