#include "dap/session.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "dap/json_text.h"

namespace backstep::dap {
namespace {

// gdb went away (it exited or closed its output) while a request waited.
struct GdbGone : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void write_all(int fd, const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error(std::string("cannot write to the DAP client: ") + strerror(errno));
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

const std::map<std::string, Session::Handler, std::less<>>& Session::handlers() {
  // Each DAP command is named once, here.
  static const std::map<std::string, Handler, std::less<>> table = {
      {"initialize", &Session::initialize},
      {"launch", &Session::launch},
      {"attach", &Session::attach},
      {"configurationDone", &Session::configuration_done},
      {"disconnect", &Session::disconnect},
      {"terminate", &Session::disconnect},
      {"restart", &Session::restart},
      {"continue", &Session::continue_},
      {"reverseContinue", &Session::reverse_continue},
      {"next", &Session::next},
      {"stepIn", &Session::step_in},
      {"stepOut", &Session::step_out},
      {"stepBack", &Session::step_back},
      {"reverseStepIn", &Session::reverse_step_in},
      {"reverseStepOut", &Session::reverse_step_out},
      {"pause", &Session::pause},
      {"gotoTargets", &Session::goto_targets},
      {"goto", &Session::goto_},
      {"cancel", &Session::cancel},
      {"setBreakpoints", &Session::set_breakpoints},
      {"setFunctionBreakpoints", &Session::set_function_breakpoints},
      {"setExceptionBreakpoints", &Session::set_exception_breakpoints},
      {"dataBreakpointInfo", &Session::data_breakpoint_info},
      {"setDataBreakpoints", &Session::set_data_breakpoints},
      {"threads", &Session::threads},
      {"stackTrace", &Session::stack_trace},
      {"scopes", &Session::scopes},
      {"variables", &Session::variables},
      {"evaluate", &Session::evaluate},
      {"setVariable", &Session::set_variable},
      {"readMemory", &Session::read_memory},
      {"disassemble", &Session::disassemble},
      {"setInstructionBreakpoints", &Session::set_instruction_breakpoints},
      {"modules", &Session::modules},
      {"loadedSources", &Session::loaded_sources},
      {"exceptionInfo", &Session::exception_info},
      {"setExpression", &Session::set_expression},
  };
  return table;
}

Session::Session(SessionIo io, ReplayServer& replays) : io_(std::move(io)), replays_(replays) {
  for (const OutputSource& o : io_.outputs) fcntl(o.fd, F_SETFL, fcntl(o.fd, F_GETFL) | O_NONBLOCK);
}

// The session owns its output pipes and their copies.
Session::~Session() {
  for (const OutputSource& o : io_.outputs) {
    if (o.fd >= 0) close(o.fd);
    if (o.copy_fd >= 0) close(o.copy_fd);
  }
}

// The adapter's own words, where its user sees them (the client's stream
// may be what is broken).
void Session::diagnose(const std::string& message) {
  std::string line = "backstep: dap: " + message + "\n";
  int fd = io_.log_fd >= 0 ? io_.log_fd : STDERR_FILENO;
  try {
    write_all(fd, line);
  } catch (const std::exception&) {
  }
}

int Session::run() {
  while (!done_) {
    try {
      pump_outputs(-1, true);
      dispatch_async();
    } catch (const GdbGone&) {
      end_of_gdb();
    }
  }
  if (gdb_) gdb_->wait_exit(5000);
  return exit_status_;
}

// One wait on everything the session reads; the client's input only when
// `include_client` (not while a request waits for gdb).
void Session::pump_outputs(int timeout_ms, bool include_client) {
  std::vector<pollfd> fds;
  if (include_client) fds.push_back({io_.in_fd, POLLIN, 0});
  std::size_t gdb_index = fds.size();
  if (gdb_ && gdb_->output_fd() >= 0) fds.push_back({gdb_->output_fd(), POLLIN, 0});
  std::size_t outputs_index = fds.size();
  for (const OutputSource& o : io_.outputs) fds.push_back({o.fd, POLLIN, 0});
  if (fds.empty()) throw GdbGone("nothing left to read");
  int n = poll(fds.data(), fds.size(), timeout_ms);
  if (n < 0 && errno == EINTR) return;
  if (n < 0) throw std::runtime_error(std::string("poll: ") + strerror(errno));
  for (std::size_t i = 0; i < io_.outputs.size(); ++i) {
    if (fds[outputs_index + i].revents) read_output(io_.outputs[i]);
  }
  // (An output closed for good has fd -1, which poll passes over.)
  if (gdb_index < outputs_index && fds[gdb_index].revents) read_gdb();
  if (include_client && fds[0].revents) {
    char buf[65536];
    ssize_t got = read(io_.in_fd, buf, sizeof buf);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (got <= 0) {
      // The client went without a disconnect: end as disconnect would.
      if (gdb_) {
        gdb_.reset();
      }
      done_ = true;
      exit_status_ = 0;
      return;
    }
    for (FrameReader::Item& item : reader_.feed(std::string_view(buf, static_cast<std::size_t>(got)))) {
      if (auto* error = std::get_if<FrameError>(&item)) {
        diagnose("the client's stream is broken: " + std::string(frame_error_text(*error)));
        done_ = true;
        exit_status_ = 1;
        return;
      }
      handle_message(std::get<std::string>(item));
      dispatch_async();
      if (done_) return;
    }
  }
}

void Session::read_output(OutputSource& source) {
  char buf[65536];
  ssize_t n = read(source.fd, buf, sizeof buf);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n <= 0) {
    close(source.fd);
    source.fd = -1;
    return;
  }
  std::string_view text(buf, static_cast<std::size_t>(n));
  if (source.copy_fd >= 0) {
    // The adapter's own diagnostics stay where the user launched it from.
    try {
      write_all(source.copy_fd, std::string(text));
    } catch (const std::exception&) {
      source.copy_fd = -1;
    }
  }
  send_event("output", llvm::json::Object{{"category", source.category}, {"output", json_text(text)}});
}

void Session::handle_message(const std::string& body) {
  auto parsed = llvm::json::parse(body);
  if (!parsed) {
    std::string why = llvm::toString(parsed.takeError());
    send_event("output", llvm::json::Object{{"category", "stderr"}, {"output", json_text("backstep dap: a message that is not JSON (" + why + ") was ignored\n")}});
    return;
  }
  const llvm::json::Object* message = parsed->getAsObject();
  auto type = message ? message->getString("type") : llvm::None;
  auto command = message ? message->getString("command") : llvm::None;
  auto request_seq = message ? message->getInteger("seq") : llvm::None;
  if (!message || type != llvm::StringRef("request") || !command || !request_seq) {
    send_event("output", llvm::json::Object{{"category", "stderr"}, {"output", "backstep dap: a message that is not a request was ignored\n"}});
    return;
  }
  llvm::json::Object response{{"type", "response"}, {"request_seq", *request_seq}, {"command", *command}};
  static const llvm::json::Object no_arguments;
  const llvm::json::Object* args = message->getObject("arguments");
  if (!args) args = &no_arguments;
  auto found = handlers().find(command->str());
  Reply reply = Failure{"backstep dap does not handle the request '" + command->str() + "'"};
  bool gdb_gone = false;
  if (found != handlers().end()) {
    try {
      reply = (this->*(found->second))(*args);
    } catch (const GdbGone&) {
      reply = Failure{"gdb has exited"};
      gdb_gone = true;
    }
  }
  if (auto* failure = std::get_if<Failure>(&reply)) {
    response["success"] = false;
    response["message"] = json_text(failure->message);
    response["body"] = llvm::json::Object{{"error", llvm::json::Object{{"id", 1}, {"format", json_text(failure->message)}}}};
  } else {
    response["success"] = true;
    llvm::json::Value& body = std::get<llvm::json::Value>(reply);
    if (body.kind() != llvm::json::Value::Null) response["body"] = std::move(body);
  }
  send(std::move(response));
  std::vector<std::pair<std::string, llvm::json::Object>> events;
  events.swap(after_response_);
  for (auto& [event, event_body] : events) send_event(event, std::move(event_body));
  if (gdb_gone) end_of_gdb();
}

void Session::send(llvm::json::Object message) {
  message["seq"] = seq_++;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(message));
  os.flush();
  write_all(io_.out_fd, frame(text));
}

void Session::send_event(const std::string& event, llvm::json::Object body) {
  send(llvm::json::Object{{"type", "event"}, {"event", event}, {"body", std::move(body)}});
}

void Session::send_event_after_response(const std::string& event, llvm::json::Object body) {
  after_response_.emplace_back(event, std::move(body));
}

mi::Record Session::mi(const std::string& command) {
  if (!gdb_) throw GdbGone("gdb is not running");
  capture_.clear();
  capturing_ = true;
  std::uint64_t token = 0;
  try {
    token = gdb_->write_command(command);
  } catch (const std::runtime_error&) {
    // Its input is closed: gdb has gone, or is going (a start that failed).
    gdb_gone();
  }
  for (;;) {
    for (auto it = async_.begin(); it != async_.end(); ++it) {
      if (it->kind == mi::RecordKind::Result && it->token == token) {
        mi::Record result = std::move(*it);
        async_.erase(it);
        capturing_ = false;
        return result;
      }
    }
    try {
      pump_outputs(-1, false);
    } catch (const GdbGone&) {
      gdb_gone();
    }
  }
}

// gdb has gone: what it said last (a start-up error, a crash) says why.
// Its output is read to its end first, for at most kLastWordsMs.
void Session::gdb_gone() {
  constexpr int kLastWordsMs = 5000;
  capturing_ = true;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kLastWordsMs);
  try {
    while (gdb_ && gdb_->output_fd() >= 0 && std::chrono::steady_clock::now() < deadline) {
      pump_outputs(100, false);
    }
  } catch (const GdbGone&) {
    // its output ended: all of it is in
  }
  capturing_ = false;
  std::string said = capture_;
  while (!said.empty() && said.back() == '\n') said.pop_back();
  throw GdbGone(said.empty() ? "gdb has exited" : "gdb has exited: " + said);
}

std::variant<mi::Record, Failure> Session::mi_checked(const std::string& command) {
  mi::Record r = mi(command);
  if (r.klass == "error") return Failure{r.results.text("msg", "gdb refused " + command)};
  return r;
}

void Session::read_gdb() {
  std::vector<mi::Record> records;
  bool open = gdb_->read_records(records);
  for (mi::Record& r : records) {
    switch (r.kind) {
      case mi::RecordKind::Console:
      case mi::RecordKind::Log:
        if (capturing_) capture_ += r.text;
        break;
      case mi::RecordKind::Target:
        on_server_text(r.text);
        break;
      case mi::RecordKind::Prompt:
        break;
      default:
        async_.push_back(std::move(r));
    }
  }
  if (!open) throw GdbGone("gdb's output ended");
}

// gdb's asynchronous records, in order, once no request is waiting.
void Session::dispatch_async() {
  while (!async_.empty()) {
    mi::Record r = std::move(async_.front());
    async_.pop_front();
    if (r.kind == mi::RecordKind::Result) continue;  // a result nobody waits for any more
    on_async(r);
  }
}

void Session::on_async(const mi::Record& r) {
  if (r.kind == mi::RecordKind::ExecAsync && r.klass == "running") {
    if (!running_) {
      running_ = true;
      forget_stopped_state();
      send_event("continued", llvm::json::Object{{"threadId", last_thread_.value_or(1)}, {"allThreadsContinued", true}});
    }
  } else if (r.kind == mi::RecordKind::ExecAsync && r.klass == "stopped") {
    on_stopped(r);
  } else if (r.kind == mi::RecordKind::NotifyAsync && (r.klass == "thread-created" || r.klass == "thread-exited")) {
    long id = std::strtol(r.results.text("id", "0").c_str(), nullptr, 10);
    send_event("thread", llvm::json::Object{{"reason", r.klass == "thread-created" ? "started" : "exited"}, {"threadId", id}});
  } else if (r.kind == mi::RecordKind::NotifyAsync && r.klass == "breakpoint-modified") {
    const mi::Value* b = r.results.get("bkpt");
    if (!b) return;
    long id = std::strtol(b->text("number", "0").c_str(), nullptr, 10);
    llvm::json::Object bp{{"id", id}, {"verified", b->text("addr") != "<PENDING>"}};
    if (!b->text("line").empty()) bp["line"] = std::strtol(b->text("line").c_str(), nullptr, 10);
    send_event("breakpoint", llvm::json::Object{{"reason", "changed"}, {"breakpoint", std::move(bp)}});
  }
}

// What the replay server says to its client (gdb's target stream): notes
// of a long run ("backstep: still searching backwards (12 s, at event ...")
// become DAP progress where the client shows it; the rest is the console's.
void Session::on_server_text(const std::string& text) {
  if (text.rfind("backstep: still ", 0) != 0) {
    send_event("output", llvm::json::Object{{"category", "console"}, {"output", json_text(text)}});
    return;
  }
  std::string message = text.substr(std::string("backstep: ").size());
  while (!message.empty() && message.back() == '\n') message.pop_back();
  if (!client_progress_) {
    send_event("output", llvm::json::Object{{"category", "console"}, {"output", json_text(text)}});
    return;
  }
  if (progress_id_.empty()) {
    progress_id_ = "backstep-run-" + std::to_string(++progress_count_);
    send_event("progressStart", llvm::json::Object{{"progressId", progress_id_},
                                                   {"title", direction_ == RunDirection::Backward ? "Going back"
                                                                                                  : "Replaying"},
                                                   {"message", json_text(message)},
                                                   {"cancellable", true}});
  } else {
    send_event("progressUpdate", llvm::json::Object{{"progressId", progress_id_}, {"message", json_text(message)}});
  }
}

void Session::end_progress() {
  if (progress_id_.empty()) return;
  send_event("progressEnd", llvm::json::Object{{"progressId", progress_id_}});
  progress_id_.clear();
}

void Session::on_stopped(const mi::Record& r) {
  running_ = false;
  end_progress();
  forget_stopped_state();
  RunCause cause = cause_;
  cause_ = RunCause::Other;
  StopView view = view_stop(r, direction_, cause, names_);
  if (view.thread_id) last_thread_ = view.thread_id;
  if (goto_run_ && continue_goto(r, view)) return;
  last_signal_ = view.reason == "exception" ? view.text : "";
  last_signal_description_ = view.reason == "exception" ? view.description : "";
  if (view.exited) {
    send_event("exited", llvm::json::Object{{"exitCode", view.exit_code}});
    send_event("terminated");
    return;
  }
  if (cause == RunCause::Launch) {
    initial_stop_seen_ = true;
    // Before configurationDone the client is still setting breakpoints:
    // the launch stop is shown then, or the program goes on.
    if (!configured_) return;
  }
  send_event("stopped", stopped_event_body(view));
}

void Session::forget_stopped_state() {
  frames_.clear();
  refs_.clear();
  if (!gdb_) {
    varobjs_.clear();
    return;
  }
  std::vector<std::string> names;
  names.swap(varobjs_);
  for (const std::string& name : names) mi("-var-delete " + name);
}

void Session::end_of_gdb() {
  if (done_ || !gdb_) return;
  send_event("output", llvm::json::Object{{"category", "stderr"}, {"output", "backstep dap: gdb has exited\n"}});
  send_event("terminated");
  gdb_.reset();
  running_ = false;
  // The client ends the session with `disconnect`; until then requests
  // that need gdb fail with a message.
}

}  // namespace backstep::dap
