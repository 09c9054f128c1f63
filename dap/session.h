// One debugging session of a recording, as a Debug Adapter Protocol server:
// DAP requests in, gdb/MI commands out to a gdb connected to backstep's
// replay server, gdb's records back as DAP responses and events (docs/dap.md).
// gdb does symbols, values, pretty printers and expressions; backstep's
// server does the execution, forwards and backwards.
//
// One thread, one poll loop over the client's input, gdb's output and the
// replay's echo of the program's output. A request that needs gdb's answer
// waits for its result record (reading only gdb and the echoes meanwhile,
// so that neither can fill up and stall gdb); gdb's asynchronous records
// seen meanwhile are handled after the response is written, so that a
// `stopped` event never comes before the response of the step that caused it.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "dap/mi/gdb_process.h"
#include "dap/stop_event.h"
#include "dap/wire/frame_reader.h"
#include "llvm/Support/JSON.h"

namespace backstep::dap {

// What the adapter needs from the rest of backstep: a replay of a trace,
// served to one gdb. cli/dap_command.cc implements it with the RSP server.
struct ReplayToServe {
  std::string trace;  // as the user gave it ("" for the default)
  uint32_t pid = 0;   // the process to debug (0: the first)
};
struct ServedReplay {
  std::string target;         // for gdb's `target extended-remote`
  std::string gdb_commands;   // a file of gdb commands to source first ("" for none)
  std::string trace_dir;      // the trace, resolved
};
class ReplayServer {
 public:
  virtual ~ReplayServer() = default;
  // Throws std::runtime_error with a message for the user.
  virtual ServedReplay start(const ReplayToServe& what) = 0;
  // A replay another backstep serves at `target` ("host:port", or a Unix
  // socket's path): the gdb commands to source for it, no server started.
  virtual ServedReplay attach(const std::string& target) = 0;
};

// A pipe whose bytes become `output` events of `category` ("stdout",
// "stderr"); `copy_fd` (-1: none) gets them too.
struct OutputSource {
  int fd;
  std::string category;
  int copy_fd = -1;
};

struct SessionIo {
  int in_fd;
  int out_fd;
  std::vector<OutputSource> outputs;
  std::string gdb = "gdb";  // the gdb to run (launch's "gdbPath" overrides)
  int log_fd = -1;          // the adapter's own diagnostics (-1: stderr)
  std::string default_trace;
};

struct Failure {
  std::string message;
};
using Reply = std::variant<llvm::json::Value, Failure>;

// A child's expression as the user reads it, from its parent's and gdb's
// name for the child: an element "a[2]", a member "s.m", or "p->m" through
// a pointer.
std::string member_expression(const std::string& parent, const std::string& parent_type, const std::string& exp);

class Session {
 public:
  Session(SessionIo io, ReplayServer& replays);
  ~Session();
  // Serves until the client disconnects (0) or the stream breaks (non-zero).
  int run();

 private:
  using Handler = Reply (Session::*)(const llvm::json::Object& args);
  static const std::map<std::string, Handler, std::less<>>& handlers();

  // --- the loop and the wire (session.cc)
  void handle_message(const std::string& body);
  void send(llvm::json::Object message);
  void diagnose(const std::string& message);
  void send_event(const std::string& event, llvm::json::Object body = {});
  // An event that must follow the response of the request being handled.
  void send_event_after_response(const std::string& event, llvm::json::Object body = {});
  void pump_outputs(int timeout_ms, bool include_client);
  void read_output(OutputSource& source);
  // Sends `command` to gdb and waits for its result record.
  mi::Record mi(const std::string& command);
  // The same, as a Failure on ^error.
  std::variant<mi::Record, Failure> mi_checked(const std::string& command);
  [[noreturn]] void gdb_gone();
  void read_gdb();
  void dispatch_async();
  void on_async(const mi::Record& record);
  void on_stopped(const mi::Record& record);
  void on_server_text(const std::string& text);
  void end_progress();
  void forget_stopped_state();
  void end_of_gdb();

  // --- lifecycle (requests_lifecycle.cc)
  Reply initialize(const llvm::json::Object& args);
  Reply launch(const llvm::json::Object& args);
  Reply attach(const llvm::json::Object& args);
  Reply connect(const ServedReplay& served, const llvm::json::Object& args);
  Reply configuration_done(const llvm::json::Object& args);
  Reply disconnect(const llvm::json::Object& args);
  Reply restart(const llvm::json::Object& args);
  void start_gdb(const ServedReplay& served, const std::string& gdb_path);

  // --- execution (requests_execution.cc)
  Reply resume(const std::string& command, RunDirection direction, RunCause cause = RunCause::Other);
  Reply continue_(const llvm::json::Object& args);
  Reply reverse_continue(const llvm::json::Object& args);
  Reply next(const llvm::json::Object& args);
  Reply step_in(const llvm::json::Object& args);
  Reply step_out(const llvm::json::Object& args);
  Reply step_back(const llvm::json::Object& args);
  Reply reverse_step_in(const llvm::json::Object& args);
  Reply reverse_step_out(const llvm::json::Object& args);
  Reply pause(const llvm::json::Object& args);
  Reply cancel(const llvm::json::Object& args);

  // --- goto: time travel to a line (requests_goto.cc)
  Reply goto_targets(const llvm::json::Object& args);
  Reply goto_(const llvm::json::Object& args);
  // A stop of a goto in progress: true when the goto goes on (the stop is
  // not the user's), false when it is over and the stop is to be shown.
  bool continue_goto(const mi::Record& stopped, StopView& view);
  void end_goto();

  // --- breakpoints (requests_breakpoints.cc)
  Reply set_breakpoints(const llvm::json::Object& args);
  Reply set_function_breakpoints(const llvm::json::Object& args);
  Reply set_exception_breakpoints(const llvm::json::Object& args);
  Reply data_breakpoint_info(const llvm::json::Object& args);
  Reply set_data_breakpoints(const llvm::json::Object& args);
  std::variant<llvm::json::Object, Failure> insert_breakpoint(const std::string& location,
                                                             const llvm::json::Object& spec);
  void delete_breakpoints(std::vector<long>& numbers);
  // setBreakpoints and its kin: the breakpoints `numbers` holds are
  // replaced by one for each of args' "breakpoints", at the gdb location
  // `location_of` gives for it (or refused with its Failure); `named`, when
  // given, is kept naming the same ones.
  using LocationOf = std::function<std::variant<std::string, Failure>(const llvm::json::Object& spec)>;
  llvm::json::Array replace_breakpoints(const llvm::json::Object& args, std::vector<long>& numbers,
                                        std::set<long>* named, const LocationOf& location_of);

  // --- what the program holds (requests_inspection.cc)
  Reply threads(const llvm::json::Object& args);
  Reply stack_trace(const llvm::json::Object& args);
  Reply scopes(const llvm::json::Object& args);
  Reply variables(const llvm::json::Object& args);
  Reply evaluate(const llvm::json::Object& args);
  Reply set_variable(const llvm::json::Object& args);

  // --- memory, code and what is loaded (requests_memory.cc)
  Reply read_memory(const llvm::json::Object& args);
  Reply disassemble(const llvm::json::Object& args);
  Reply set_instruction_breakpoints(const llvm::json::Object& args);
  Reply modules(const llvm::json::Object& args);
  Reply loaded_sources(const llvm::json::Object& args);
  Reply exception_info(const llvm::json::Object& args);
  Reply set_expression(const llvm::json::Object& args);
  Reply console_command(const std::string& command);

  // A stack frame or a variable container, named to the client by its
  // index + 1; valid until the program runs again.
  struct FrameRef {
    long thread;
    long level;
  };
  struct ScopeRef {
    FrameRef frame;
  };
  struct VarobjRef {
    std::string varobj;
    FrameRef frame;
    std::string shown;  // the expression as the user reads it: "inv.counts[2]"
    std::string type;
  };
  using Ref = std::variant<ScopeRef, VarobjRef>;
  std::string frame_options(const FrameRef& f) const;
  std::optional<FrameRef> frame_of(const llvm::json::Object& args) const;
  long add_ref(Ref ref);
  const Ref* find_ref(int64_t id) const;
  // A DAP `variable` for a varobj that gdb described in `v` (its -var-create
  // result or a child of -var-list-children).
  // `shown`: the expression the user reads for it ("inv.checks").
  llvm::json::Object variable_of(const mi::Value& v, const std::string& name, const FrameRef& frame,
                                 const std::string& shown);
  std::string summary_of(const std::string& varobj, const FrameRef& frame);
  // The child variable object of `varobj` shown as `exp` ("" if none).
  std::string child_named(const std::string& varobj, const std::string& exp);

  SessionIo io_;
  ReplayServer& replays_;
  FrameReader reader_;
  int64_t seq_ = 1;
  bool done_ = false;
  int exit_status_ = 0;
  std::vector<std::pair<std::string, llvm::json::Object>> after_response_;

  std::unique_ptr<mi::GdbProcess> gdb_;
  std::deque<mi::Record> async_;  // gdb's records that came while waiting for a result
  std::string capture_;           // console text of the command being waited for
  bool capturing_ = false;

  // Execution state.
  bool configured_ = false;
  bool stop_on_entry_ = false;
  bool running_ = false;
  bool initial_stop_seen_ = false;
  RunDirection direction_ = RunDirection::Forward;
  RunCause cause_ = RunCause::Launch;
  std::optional<long> last_thread_;
  bool client_progress_ = false;  // the client shows progress events
  std::string progress_id_;       // of the run in progress ("" when none)
  int progress_count_ = 0;

  std::vector<FrameRef> frames_;
  std::vector<Ref> refs_;
  std::vector<std::string> varobjs_;  // top-level, deleted when the program runs

  std::map<std::string, std::vector<long>> source_breakpoints_;
  std::vector<long> function_breakpoints_;
  std::vector<long> data_breakpoints_;
  std::vector<long> instruction_breakpoints_;
  // gotoTargets' targets by id, and the goto in progress.
  struct GotoTarget {
    std::string path;
    long line;
  };
  std::vector<GotoTarget> goto_targets_;
  struct GotoRun {
    long breakpoint;                // gdb's temporary breakpoint at the line
    std::vector<long> disabled;     // the user's breakpoints, enabled again after
    bool forwards = false;          // the line never ran before: now forwards
  };
  std::optional<GotoRun> goto_run_;
  std::string goto_run_forwards_note_;  // the last goto's stop, in words
  std::string last_signal_;  // of the last stop at a signal ("" otherwise)
  std::string last_signal_description_;
  BreakpointNames names_;
  std::map<std::string, std::string> data_names_;  // dataId -> what the user asked to watch
};

}  // namespace backstep::dap
