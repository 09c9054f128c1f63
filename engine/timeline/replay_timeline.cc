#include "engine/timeline/replay_timeline.h"

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <limits>
#include <set>
#include <sstream>
#include <utility>

#include "engine/core/compat_syscalls.h"
#include "engine/core/hit_counter.h"
#include "values/log.h"
#include "engine/core/syscall_stub.h"
#include "engine/timeline/checkpoint_policy.h"
#include "engine/trace/trace_error.h"

namespace backstep {
namespace {

// A continue's wait for the program wakes this often: a copy in a long
// stretch may be due (stretch_copy.h); each wake-up costs a few
// microseconds of backstep's time.
constexpr std::chrono::milliseconds kStretchPoll{1};
// How soon a client's ^C is noticed while the program runs: each poll is a
// non-blocking read of its socket.
constexpr std::chrono::milliseconds kClientPoll{20};

}  // namespace

uint64_t ReplayTimeline::start_event(const std::string& trace_dir, const DebuggeeChoice& choice) {
  if (choice.pid == 0) return 0;
  trace::TraceReader reader(trace_dir);
  std::optional<uint64_t> forked, exec;
  for (uint64_t n = 0; std::optional<trace::Event> e = reader.next(); ++n) {
    if (e->tid != choice.pid) continue;
    if (n == 0 || e->kind == trace::EventKind::ProcessStart) forked = n;
    if (n != 0 && e->kind == trace::EventKind::Exec && forked && !exec) exec = n;
  }
  std::string pid = std::to_string(choice.pid);
  if (!forked) throw std::runtime_error("no process " + pid + " in this recording (`backstep ps` lists them)");
  switch (choice.from) {
    case DebuggeeChoice::From::Fork: return *forked;
    case DebuggeeChoice::From::Exec:
      if (!exec) throw std::runtime_error("process " + pid + " never executes a program in this recording");
      return *exec;
    case DebuggeeChoice::From::Start: return exec ? *exec : *forked;
  }
  return *forked;
}

ReplayTimeline::ReplayTimeline(const std::string& trace_dir, DebuggeeChoice choice)
    : trace_dir_(trace_dir),
      checkpoints_(default_checkpoint_memory_limit_kib(), [this] { return std::size_t{stretch_.holds_copy() ? 1u : 0u}; }) {
  ReplayOptions options;
  options.echo_stdio = false;
  uint64_t start = start_event(trace_dir, choice);
  current_ = std::make_unique<ReplaySession>(trace_dir, options);
  if (start > 0) {
    // Replay the tree up to the chosen process's start; history begins there.
    while (current_->next_event() <= start) {
      ReplayStop r = current_->resume({.single_step = false, .stop_after_event = true, .stop_before = {}});
      if (r.kind != ReplayStop::Kind::EventReplayed) {
        throw std::runtime_error("the recording ends before process " + std::to_string(choice.pid) + " starts");
      }
    }
    current_->set_debuggee(choice.pid);
  }
  pid_ = static_cast<pid_t>(current_->debuggee());
  mark_ = Mark{current_->next_event(), {}, 0};
  checkpoints_.add_start(mark_, fork_of(*current_));

  // Which files the recording mapped, by their host path, for gdb's vFile.
  lookup_ = std::make_unique<trace::TraceReader>(trace_dir);
  for (const trace::Mapping& m : current_->first_exec_event().mappings) {
    if (m.kind == trace::MappingKind::File) recorded_files_.emplace(m.name, m.file);
  }
  while (auto e = lookup_->next()) {
    for (const trace::Mapping& m : e->mappings) {
      if (m.kind == trace::MappingKind::File) recorded_files_.emplace(m.name, m.file);
    }
  }
}

ReplayTimeline::~ReplayTimeline() = default;

std::vector<pid_t> ReplayTimeline::thread_ids() const {
  std::vector<pid_t> tids;
  for (uint32_t tid : current_->thread_ids()) tids.push_back(static_cast<pid_t>(tid));
  return tids;
}

std::string ReplayTimeline::thread_name(pid_t tid) const {
  // A name the program set (PR_SET_NAME) or its thread inherited; else the
  // program's file name, as the kernel's comm after exec.
  std::string name = current_->thread_name(static_cast<uint32_t>(tid));
  if (name.empty()) name = std::filesystem::path(exe_path()).filename().string();
  return name.substr(0, 15);
}

std::string ReplayTimeline::exe_path() const {
  // The program is the lowest file mapping at exec (ld.so comes after it).
  for (const trace::Mapping& m : current_->exec_event().mappings) {
    if (m.kind == trace::MappingKind::File) return m.name;
  }
  return current_->header().exe;
}

DebugTarget::Activity ReplayTimeline::activity() {
  if (!event_count_) {
    try {
      trace::TraceReader reader(trace_dir_);
      reader.seek(std::numeric_limits<uint64_t>::max());  // chunk headers only
      event_count_ = reader.next_event_number();
    } catch (const std::exception&) {
      event_count_ = 0;
    }
  }
  ReplayActivity a = replay_activity();
  return {a.events_taken, a.last_event, *event_count_};
}

std::vector<std::string> ReplayTimeline::command_line() const {
  const std::vector<std::string>& argv = current_->exec_event().argv;
  return argv.empty() ? current_->header().argv : argv;
}

std::string ReplayTimeline::start_directory() const { return current_->header().cwd; }

const std::vector<CpuidLeaf>& ReplayTimeline::cpu_features() const { return current_->header().cpuid; }

Registers ReplayTimeline::registers(pid_t tid) {
  if (diversion_live()) {
    uint32_t t = tid == 0 ? current_->stopped_thread() : static_cast<uint32_t>(tid);
    if (diversion_->touched(t)) return diversion_->registers(t);
  }
  if (lazy_) {
    if (const TrajectoryEntry* e = trajectory_.find(*lazy_); e && (tid == 0 ? e->stopped : tid) == e->runs) {
      return e->regs;
    }
    materialize();
  }
  return live_registers(tid);
}

Registers ReplayTimeline::live_registers(pid_t tid) {
  Registers regs = current_->thread_registers(tid == 0 ? current_->stopped_thread() : static_cast<uint32_t>(tid));
  // A thread in a patched site's stub (a call the preload library did not
  // buffer, made from there) shows where the unpatched code would stand,
  // so that gdb finds its frame and its caller.
  auto read = [&](uint64_t addr, void* buf, std::size_t len) {
    std::vector<uint8_t> bytes = current_->read_memory(addr, len);
    std::memcpy(buf, bytes.data(), bytes.size());
    return bytes.size();
  };
  if (std::optional<uint64_t> pc = syscall_stub::original_pc(regs.ip(), read)) regs.set_ip(*pc);
  return regs;
}

std::vector<uint8_t> ReplayTimeline::xstate(pid_t tid) {
  if (diversion_live()) {
    uint32_t t = tid == 0 ? current_->stopped_thread() : static_cast<uint32_t>(tid);
    if (diversion_->touched(t)) return diversion_->xstate(t);
  }
  if (lazy_) {
    if (const TrajectoryEntry* e = trajectory_.find(*lazy_); e && (tid == 0 ? e->stopped : tid) == e->runs) {
      return *e->xstate;
    }
    materialize();
  }
  return current_->thread_xstate(tid == 0 ? current_->stopped_thread() : static_cast<uint32_t>(tid));
}

std::vector<uint8_t> ReplayTimeline::read_memory(uint64_t addr, std::size_t len) {
  uint64_t start = 0;
  if (const ClientMemory::Region* r = client_memory_.find(addr, &start)) {
    // The debugger's own memory (client_memory.h): a diversion's copy
    // while there is one, else the bytes kept here.
    std::size_t n = static_cast<std::size_t>(std::min<uint64_t>(len, start + r->size - addr));
    return diversion_ ? diversion_->read_memory(addr, n) : client_memory_.read(addr, n);
  }
  // A diversion is only ever made at a materialized position.
  if (diversion_live()) return diversion_->read_memory(addr, len);
  if (diversion_) return dormant_read(addr, len);
  if (lazy_) {
    // Saved at that position, or where no instruction can have written
    // since (trajectory.h); anything else from the replay brought there.
    if (const TrajectoryEntry* e = trajectory_.find(*lazy_)) {
      if (std::optional<std::vector<uint8_t>> bytes = Trajectory::window_bytes(*e, addr, len)) {
        ++trajectory_.reads_served;
        return *bytes;
      }
      if (trajectory_.read_only(addr, len)) {
        ++trajectory_.reads_served;
        return current_->read_memory(addr, len);
      }
    }
    materialize();
  }
  return current_->read_memory(addr, len);
}

std::vector<uint8_t> ReplayTimeline::auxv() {
  // The auxiliary vector sits above argv and envp on the initial stack.
  const trace::Event& exec = current_->exec_event();
  uint64_t sp = Registers::from_block(*exec.regs).sp();
  for (const trace::MemoryWrite& w : exec.writes) {
    if (sp < w.addr || sp >= w.addr + w.data.size()) continue;
    auto word = [&](uint64_t at) -> std::optional<uint64_t> {
      if (at < w.addr || at + 8 > w.addr + w.data.size()) return std::nullopt;
      uint64_t v;
      std::memcpy(&v, &w.data[at - w.addr], 8);
      return v;
    };
    auto argc = word(sp);
    if (!argc) break;
    uint64_t p = sp + 8 * (*argc + 2);  // argc, argv[], NULL
    while (auto v = word(p)) {
      p += 8;
      if (*v == 0) break;
    }
    uint64_t start = p;
    while (auto type = word(p)) {
      p += 16;
      if (*type == 0) break;
    }
    if (p > w.addr + w.data.size()) break;
    return std::vector<uint8_t>(w.data.begin() + static_cast<long>(start - w.addr),
                                w.data.begin() + static_cast<long>(p - w.addr));
  }
  return {};
}

bool ReplayTimeline::set_breakpoint(uint64_t addr, TrapKind kind) {
  // A software breakpoint outside the replay's code (gdb's return trap for
  // a function call sits on the stack; lldb's in memory it allocated) can
  // only be hit in a diversion. In the replay its int3 would sit in data the
  // program writes while it runs, and taking it out again would write back
  // a stale byte.
  if (!in_user_space(addr, 1)) return false;
  bool known = breakpoints_.count(addr) > 0 || diversion_breakpoints_.count(addr) > 0;
  if (!known && breakpoints_.size() + diversion_breakpoints_.size() >= kMaxBreakpoints) return false;
  std::optional<MemoryMapping> at = kind == TrapKind::Software ? mapping_at(addr) : std::nullopt;
  if (kind == TrapKind::Software && !(at && at->executable)) {
    // Where nothing is mapped now, outside a diversion: a breakpoint in a
    // library gdb still believes loaded (it never hears of libraries
    // going away when the replay goes back before they were mapped). It
    // is kept, and its int3 goes in once code is mapped there (pending).
    if (diversion_live() || at) {
      diversion_breakpoints_.insert(addr);
      return true;
    }
    pending_breakpoints_.insert(addr);
  }
  breakpoints_.insert(addr);
  breakpoint_images_[addr] = current_->image();
  if (kind == TrapKind::Hardware) hw_breakpoints_.insert(addr);
  return true;
}

bool ReplayTimeline::remove_breakpoint(uint64_t addr, TrapKind kind) {
  if (kind == TrapKind::Hardware) hw_breakpoints_.erase(addr);
  pending_breakpoints_.erase(addr);
  bool removed = diversion_breakpoints_.erase(addr) > 0;
  breakpoint_images_.erase(addr);
  return breakpoints_.erase(addr) > 0 || removed;
}

std::optional<MemoryMapping> ReplayTimeline::mapping_at(uint64_t addr) {
  for (const MemoryMapping& m : memory_map()) {
    if (addr >= m.start && addr < m.end) return m;
  }
  return std::nullopt;
}

static_assert(DebugTarget::kMaxWatchLength == kLongestWatch, "what the debug registers cover");

bool ReplayTimeline::set_watchpoint(uint64_t addr, uint64_t len, WatchKind type) {
  // Any address and length: the session splits a range into aligned debug
  // register slots. Refused when the slots run out, and where the kernel
  // would refuse the debug registers at the next resume (outside user space).
  if (len == 0 || len > kMaxWatchLength || !in_user_space(addr, len)) return false;
  std::vector<Watchpoint> wanted = watchpoints_;
  wanted.push_back({addr, len, type});
  if (watch_slot_count(wanted) > kDebugRegisters) return false;
  watchpoints_ = std::move(wanted);
  return true;
}

bool ReplayTimeline::remove_watchpoint(uint64_t addr, uint64_t len, WatchKind type) {
  Watchpoint w{addr, len, type};
  auto it = std::find(watchpoints_.begin(), watchpoints_.end(), w);
  if (it == watchpoints_.end()) return false;
  watchpoints_.erase(it);
  return true;
}

void ReplayTimeline::set_pass_signals(const std::vector<int>& linux_signals) {
  pass_signals_ = std::set<int>(linux_signals.begin(), linux_signals.end());
}

void ReplayTimeline::set_catch_syscalls(std::optional<std::vector<int>> syscalls) {
  if (!syscalls) {
    catch_syscalls_.reset();
  } else {
    catch_syscalls_ = std::set<int>(syscalls->begin(), syscalls->end());
  }
}

TargetStop ReplayTimeline::make_stop(TargetStop::Kind kind, uint64_t address) {
  TargetStop stop;
  stop.kind = kind;
  stop.tid = static_cast<pid_t>(current_->stopped_thread());
  stop.address = address;
  return stop;
}

TargetStop ReplayTimeline::resume(const ResumeRequest& request, const std::function<bool()>& interrupted) {
  if (diversion_) {
    // Inside a called function the copy runs; with the registers back (or
    // going backwards) the diversion is over and the replay goes on.
    if (request.direction == RunDirection::Forward && diversion_live() && !registers_restored()) {
      return resume_diversion(request, interrupted);
    }
    end_diversion();
  }
  TargetStop stop = run(request, interrupted);
  if (stop.kind == TargetStop::Kind::Watchpoint) out_of_buffered_call(stop, request.direction);
  // A signal stop set the signal's own siginfo.
  if (stop.kind != TargetStop::Kind::Signal) last_siginfo_ = trap_siginfo(stop);
  return stop;
}

TargetStop ReplayTimeline::run(const ResumeRequest& request, const std::function<bool()>& interrupted) {
  if (request.direction == RunDirection::Backward && request.how != ResumeRequest::How::Continue) {
    if (std::optional<TargetStop> stop = step_backward_cached(request.thread)) return *stop;
  }
  if (request.direction == RunDirection::Backward && request.how == ResumeRequest::How::Continue) {
    // A hit an earlier search listed: straight there, from wherever the
    // replay stands (timeline_search.cc).
    if (std::optional<TargetStop> stop = continue_backward_listed()) {
      end_reported_ = false;
      return *stop;
    }
  }
  materialize();
  if (request.direction == RunDirection::Backward) {
    end_reported_ = false;
    return request.how == ResumeRequest::How::Continue ? continue_backward(interrupted)
                                                       : step_backward(request.thread, Landing::Lazy);
  }
  switch (request.how) {
    case ResumeRequest::How::Continue: return continue_forward(interrupted);
    case ResumeRequest::How::Step: return step_forward(request.thread, interrupted);
    case ResumeRequest::How::RangeStep:
      return range_step_forward(request.thread, request.range_start, request.range_end, interrupted);
  }
  return step_forward(request.thread, interrupted);
}

void ReplayTimeline::out_of_buffered_call(TargetStop& stop, RunDirection direction) {
  // A buffered call's outputs are copied into the program by the preload
  // library in replay, where the kernel wrote them when recording: a watch
  // hit there stops inside the library. Show it as at a system call
  // instead: going forwards, after the call (the stub's way back, which
  // registers() shows as the instruction after the syscall); going
  // backwards, before it (at the patched site). The user's breakpoints do
  // not stop these steps; the watchpoints stay armed (a position counts
  // steps as they fall with them), and their further hits in the copy are
  // passed over.
  auto pc = [&] { return current_->thread_registers(current_->stopped_thread()).ip(); };
  pid_t thread = static_cast<pid_t>(current_->stopped_thread());
  // Read once: the library stays where it is while the thread steps in it.
  std::vector<std::pair<uint64_t, uint64_t>> library = current_->preload_library_code();
  auto in_library = [&](uint64_t at) {
    return std::any_of(library.begin(), library.end(), [&](const auto& r) { return at >= r.first && at < r.second; });
  };
  // A stub's way back (a traced call's return, or a buffered one's) is
  // already shown as the call's site.
  if (!in_library(pc()) || registers(thread).ip() != pc()) return;
  if (direction == RunDirection::Forward) {
    // To the stub's way back, with breakpoints there: a position after a
    // breakpoint hit is cheap to find again, unlike one after steps.
    std::set<uint64_t> returns = current_->buffered_call_returns();
    if (returns.empty()) return;
    std::set<uint64_t> breakpoints = std::exchange(breakpoints_, returns);
    std::vector<Watchpoint> watchpoints = std::exchange(watchpoints_, {});
    TargetStop s = continue_forward(nullptr);
    breakpoints_ = std::move(breakpoints);
    watchpoints_ = std::move(watchpoints);
    if (s.kind != TargetStop::Kind::Breakpoint) stop = s;  // the end of history came first
    else stop.tid = thread;
    return;
  }
  std::set<uint64_t> breakpoints = std::exchange(breakpoints_, {});
  constexpr int kMaxSteps = 10000;
  for (int n = 0; n < kMaxSteps && in_library(pc()); ++n) {
    TargetStop s = step_backward(thread);
    if (s.kind != TargetStop::Kind::Step && s.kind != TargetStop::Kind::Watchpoint) break;  // the start of history
  }
  breakpoints_ = std::move(breakpoints);
  stop.tid = thread;
}

std::vector<uint8_t> ReplayTimeline::trap_siginfo(const TargetStop& stop) {
  // What PTRACE_GETSIGINFO shows a debugger at such a stop: the kernel's
  // SIGTRAP for the trap (x86 si_codes: int3 is SI_KERNEL; a debug
  // register or single-step trap carries the pc). The ends of history and
  // an interruption have none.
  siginfo_t info;
  std::memset(&info, 0, sizeof(info));
  info.si_signo = SIGTRAP;
  switch (stop.kind) {
    case TargetStop::Kind::Breakpoint:
      info.si_code = stop.hardware ? int{TRAP_HWBKPT} : int{SI_KERNEL};
      break;
    case TargetStop::Kind::Watchpoint:
      info.si_code = TRAP_HWBKPT;
      break;
    case TargetStop::Kind::Step:
      info.si_code = TRAP_TRACE;
      break;
    case TargetStop::Kind::Syscall:
      info.si_code = SIGTRAP | 0x80;  // PTRACE_O_TRACESYSGOOD's syscall stop
      break;
    default:
      return {};
  }
  if (info.si_code == TRAP_HWBKPT || info.si_code == TRAP_TRACE) {
    info.si_addr = reinterpret_cast<void*>(registers(stop.tid).ip());
  }
  const auto* bytes = reinterpret_cast<const uint8_t*>(&info);
  return std::vector<uint8_t>(bytes, bytes + sizeof(info));
}

// The stop to report for a trap the session hit, if it is one of the user's.
std::optional<TargetStop> ReplayTimeline::user_trap(const ReplayStop& s, ReplaySession& session) const {
  TargetStop stop;
  stop.tid = static_cast<pid_t>(session.stopped_thread());  // the thread that ran into it
  if (s.kind == ReplayStop::Kind::Breakpoint && breakpoints_.count(s.address)) {
    stop.kind = TargetStop::Kind::Breakpoint;
    stop.address = s.address;
    stop.hardware = hw_breakpoints_.count(s.address) > 0;
    return stop;
  }
  if (s.kind == ReplayStop::Kind::Watchpoint) {
    Anchor a = trap_of(s, watchpoints_);
    if (std::find(watchpoints_.begin(), watchpoints_.end(), a.watch) != watchpoints_.end()) {
      stop.kind = TargetStop::Kind::Watchpoint;
      stop.address = s.address;
      stop.watch_kind = a.watch.kind;
      return stop;
    }
  }
  if (s.kind == ReplayStop::Kind::EventReplayed && session.last_event_kind() == trace::EventKind::Syscall &&
      catches(static_cast<int>(session.last_syscall()))) {
    stop.kind = TargetStop::Kind::Syscall;
    stop.syscall = static_cast<int>(session.last_syscall());
    stop.syscall_return = true;
    return stop;
  }
  return std::nullopt;
}

// Where the program ends: the boundary before its exit, or the refused call
// where the recording stopped (reached, never replayed).
Mark ReplayTimeline::end_mark() const {
  return Mark{current_->next_event(), {}, 0, current_->at_pending_event()};
}

TargetStop ReplayTimeline::stop_at_program_end() {
  const trace::Event* next = current_->peek_next();
  if (!end_reported_) {
    end_reported_ = true;
    if (current_->last_event_kind() == trace::EventKind::FatalSignal) {
      TargetStop stop = make_stop(TargetStop::Kind::Signal);
      stop.signal = current_->last_signal();
      last_siginfo_ = current_->last_siginfo();
      return stop;
    }
    return make_stop(TargetStop::Kind::HistoryEnd);
  }
  // Asked to go on from the end: the program exits now (nothing is left to
  // replay; the user can still go back).
  ReplayResult r = current_->end_result();
  if (next && next->kind == trace::EventKind::Exit) {
    int status = static_cast<int>(next->status);
    if (WIFSIGNALED(status)) {
      TargetStop stop = make_stop(TargetStop::Kind::Killed);
      stop.signal = WTERMSIG(status);
      return stop;
    }
    TargetStop stop = make_stop(TargetStop::Kind::Exited);
    stop.exit_code = r.exit_status;
    return stop;
  }
  return make_stop(TargetStop::Kind::HistoryEnd);
}

bool ReplayTimeline::catches(int syscall) const {
  return catch_syscalls_ && (catch_syscalls_->empty() || catch_syscalls_->count(syscall));
}

bool ReplayTimeline::stops_at_delivery(const trace::Event& e) const {
  return e.kind == trace::EventKind::Signal && stops_before(e);
}

bool ReplayTimeline::stops_before(const trace::Event& e) const {
  if (e.kind == trace::EventKind::Signal) return !pass_signals_.count(static_cast<int>(e.status));
  if (e.kind == trace::EventKind::Syscall) {
    std::optional<Registers> call = native_call_of(e.regs, e.status);  // a 32-bit call as its 64-bit twin
    return call && catches(static_cast<int>(call->syscallno()));
  }
  return false;
}

// The stop for an event the program reached and is about to replay.
TargetStop ReplayTimeline::pending_stop(const trace::Event& e) {
  TargetStop stop = make_stop(TargetStop::Kind::Signal);
  stop.tid = static_cast<pid_t>(e.tid);
  if (e.kind == trace::EventKind::Syscall) {
    stop.kind = TargetStop::Kind::Syscall;
    std::optional<Registers> call = native_call_of(e.regs, e.status);
    stop.syscall = call ? static_cast<int>(call->syscallno()) : -1;
  } else {
    stop.signal = static_cast<int>(e.status);
    last_siginfo_ = e.siginfo;
  }
  return stop;
}

TargetStop ReplayTimeline::continue_forward(const std::function<bool()>& interrupted, pid_t until_turn_of) {
  current_->set_echo(true);
  auto stop_before = [this](const trace::Event& e) { return stops_before(e); };
  // Once the client asked to stop, it stays asked until a stop is reported:
  // the replay may have reached a stop of its own (an event) first.
  bool wanted = false;
  std::function<bool()> poll;
  if (interrupted) poll = [&] { return wanted = wanted || interrupted(); };
  // The run wakes every kStretchPoll to see whether a copy in the stretch
  // is due (stretch_copy.h), and asks the client every kClientPoll.
  Clock::time_point client_asked = Clock::now();
  auto poll_run = [&] {
    if (wanted) return true;
    if (poll && Clock::now() - client_asked >= kClientPoll) {
      client_asked = Clock::now();
      if (poll()) return true;
    }
    // Not where the approach runs on counting stubs alone (debug registers
    // that never fire): there a copy's stop inside the run to a counted
    // position in a `loop`-instruction loop hung the forward continue
    // (gdb.threads_loop_rcx, at event 62). The approach then starts from
    // the stretch's start.
    return stretch_.copy_due([this] { return approach_available() && kernel_counting_; });
  };
  stretch_.begin(mark_);
  uint64_t image = current_->image();
  uint64_t birth = current_->last_birth().event;
  // After a copy the program stands inside the stretch, not at mark_: a
  // client's ^C is then served by stop_at_interrupt(), which names it.
  bool mid_stretch = false;
  for (;;) {
    if (!std::exchange(mid_stretch, false) && poll && poll()) {
      stretch_.end(0);
      current_->set_echo(false);
      return make_stop(TargetStop::Kind::Interrupted);
    }
    ReplayStop s = current_->resume({.single_step = false,
                                     .stop_after_event = true,
                                     .stop_before = stop_before,
                                     .interrupted = poll_run,
                                     .poll_period = kStretchPoll,
                                     .traps = user_traps()});
    if (s.kind != ReplayStop::Kind::Interrupted) stretch_.drop_request();  // a request crossed by a stop is dropped
    switch (s.kind) {
      case ReplayStop::Kind::Interrupted:
        if (!wanted && stretch_.asked()) {
          stretch_.take(*current_, breakpoints_, checkpoints_);
          if (!(poll && poll())) {
            mid_stretch = true;
            continue;
          }
        }
        stretch_.end(0);
        return stop_at_interrupt();
      case ReplayStop::Kind::EventPending:
        stretch_.end(0);
        current_->set_echo(false);
        mark_ = Mark{current_->next_event(), {}, 0, true};
        return pending_stop(*current_->peek_next());
      case ReplayStop::Kind::EventReplayed:
        mark_ = Mark{current_->next_event(), {}, 0};
        end_reported_ = false;
        stretch_.begin(mark_);
        if (auto stop = user_trap(s, *current_)) {
          stretch_.end(0);
          current_->set_echo(false);
          return *stop;
        }
        if (current_->image() != std::exchange(image, current_->image()) && report_exec_) {
          // The debugged process exec'd (forwards only: going backwards
          // over an exec, the client would load the wrong program).
          stretch_.end(0);
          current_->set_echo(false);
          TargetStop stop = make_stop(TargetStop::Kind::Exec);
          stop.exec_path = exe_path();
          return stop;
        }
        if (current_->last_birth().event != std::exchange(birth, current_->last_birth().event) && report_forks_) {
          // The debugged process made a process (forwards only, as for an
          // exec): its thread stands after the call, the child is created.
          stretch_.end(0);
          current_->set_echo(false);
          const ReplaySession::Birth& b = current_->last_birth();
          TargetStop stop = make_stop(TargetStop::Kind::Fork);
          stop.tid = static_cast<pid_t>(b.creator);
          stop.child = static_cast<pid_t>(b.child);
          stop.vfork = b.vfork;
          stop.child_regs = b.regs;
          return stop;
        }
        checkpoints_.add_if_due(mark_, fork_of(*current_),
                                watchpoints_.empty() || HitCounter::debug_registers_work()
                                    ? CheckpointStore::Pace::Timed
                                    : CheckpointStore::Pace::EveryBoundary);
        if (until_turn_of != 0 && current_->next_thread() == static_cast<uint32_t>(until_turn_of)) {
          stretch_.end(0);
          current_->set_echo(false);
          return make_stop(TargetStop::Kind::Step);
        }
        continue;
      case ReplayStop::Kind::Breakpoint: {
        stretch_.end(s.address);
        Anchor a;
        a.watch.addr = s.address;
        mark_ = after_forward_hit(a);
        current_->set_echo(false);
        TargetStop stop = *user_trap(s, *current_);
        return stop;
      }
      case ReplayStop::Kind::Watchpoint: {
        stretch_.end(0);
        if (s.by_kernel) {
          mark_ = Mark{current_->next_event(), {}, 0};
        } else {
          mark_ = mark_.after_trap(trap_of(s, watchpoints_));
        }
        current_->set_echo(false);
        if (auto stop = user_trap(s, *current_)) return *stop;
        return make_stop(TargetStop::Kind::Watchpoint, s.address);
      }
      case ReplayStop::Kind::Step:
        continue;
      case ReplayStop::Kind::ProgramEnd:
      case ReplayStop::Kind::TraceEnd:
        stretch_.end(0);
        current_->set_echo(false);
        mark_ = end_mark();
        return stop_at_program_end();
    }
  }
}

TargetStop ReplayTimeline::step_forward(pid_t thread, const std::function<bool()>& interrupted) {
  // Replay cannot run a thread out of its recorded turn: the threads before
  // it run on (stopping at the user's traps) until its turn comes.
  auto due = [&] { return thread == 0 || current_->next_thread() == static_cast<uint32_t>(thread); };
  for (;;) {
    if (!due()) {
      TargetStop stop = continue_forward(interrupted, thread);
      if (stop.kind != TargetStop::Kind::Step) return stop;
      if (!due()) return stop;  // cannot happen: continue_forward stopped at its turn
    }
    TargetStop stop = step_once();
    // A blocking call's entry: the thread's instruction completes when the
    // call returns, after other threads' events.
    bool in_call = stop.kind == TargetStop::Kind::Step && thread != 0 &&
                   current_->last_event_kind() == trace::EventKind::SyscallEntered && mark_.at_boundary();
    // A thread's start or end is reached without running an instruction.
    bool no_insn = stop.kind == TargetStop::Kind::Step && mark_.at_boundary() &&
                   trace::kind_traits(current_->last_event_kind()).starts_or_ends_thread;
    if (!in_call && !no_insn) {
      if (thread != 0 && stop.kind == TargetStop::Kind::Step && current_->has_thread(static_cast<uint32_t>(thread)))
        stop.tid = thread;
      return stop;
    }
    if (thread != 0 && !current_->has_thread(static_cast<uint32_t>(thread))) return stop;
    if (interrupted && interrupted()) return make_stop(TargetStop::Kind::Interrupted);
  }
}

TargetStop ReplayTimeline::step_once() {
  current_->set_echo(true);
  // With threads, a step that reaches an event which runs nothing (a
  // blocking call's entry, a thread's start or end) stops right after it,
  // not one instruction into the thread that runs next.
  bool threads = current_->thread_count() > 1;
  // A signal the user stops at is reported before its delivery, as the
  // kernel reports it to a debugger that steps: the step that reaches it
  // (a syscall that raised it, a faulting instruction) ends there, the
  // next one enters the handler.
  ReplayStop s = current_->resume({.single_step = true,
                                   .stop_after_event = threads,
                                   .stop_before = [this](const trace::Event& e) { return stops_at_delivery(e); },
                                   .traps = watch_traps()});
  if (s.kind == ReplayStop::Kind::EventPending) {
    current_->set_echo(false);
    end_reported_ = false;
    mark_ = Mark{current_->next_event(), {}, 0, true};
    return pending_stop(*current_->peek_next());
  }
  if (s.kind == ReplayStop::Kind::EventReplayed) {
    // A fatal signal was delivered: on to the end, as without threads.
    s = current_->resume({.single_step = true, .traps = watch_traps()});
  }
  current_->set_echo(false);
  if (s.kind == ReplayStop::Kind::ProgramEnd || s.kind == ReplayStop::Kind::TraceEnd) {
    mark_ = end_mark();
    return stop_at_program_end();
  }
  end_reported_ = false;
  if (s.event) {
    mark_ = Mark{current_->next_event(), {}, 0};
  } else {
    mark_ = mark_.after_step();
    note_forward_step();
    if (mark_.steps % checkpoint_policy::kStepsPerWalkCheckpoint == 0) {
      // So that stepping back over what was stepped forward stays cheap.
      add_automatic_checkpoint(mark_, *current_);
      checkpoints_.thin();
    }
  }
  if (s.kind == ReplayStop::Kind::Watchpoint) {
    if (auto stop = user_trap(s, *current_)) return *stop;
  }
  return make_stop(TargetStop::Kind::Step);
}

TargetStop ReplayTimeline::range_step_forward(pid_t thread, uint64_t start, uint64_t end,
                                              const std::function<bool()>& interrupted) {
  for (;;) {
    TargetStop stop = step_forward(thread, interrupted);
    if (stop.kind != TargetStop::Kind::Step) return stop;
    uint64_t pc = registers(stop.tid).ip();
    if (pc < start || pc >= end || breakpoints_.count(pc)) return stop;
    if (interrupted && interrupted()) return make_stop(TargetStop::Kind::Interrupted);
  }
}

std::optional<std::string> ReplayTimeline::recorded_file(const std::string& path) const {
  // /proc/PID/... of the recorded process: the replayed process's, whose
  // address space is the recorded one (gdb reads the maps for the vDSO).
  std::string proc = "/proc/" + std::to_string(pid_) + "/";
  if (path.rfind(proc, 0) == 0) {
    std::string live = std::to_string(current_->task().tid());
    std::string rest = path.substr(proc.size());
    std::string task = "task/" + std::to_string(pid_) + "/";
    if (rest.rfind(task, 0) == 0) rest = "task/" + live + "/" + rest.substr(task.size());
    if (rest == "maps" || rest == "task/" + live + "/maps") return "/proc/" + live + "/" + rest;
    return std::nullopt;
  }
  auto it = recorded_files_.find(path);
  if (it == recorded_files_.end()) {
    // The client may name a file by another path than /proc showed (the
    // dynamic linker's /lib/... for /usr/lib/...): try this host's idea of
    // the same path, then a file name that only one recorded file has.
    std::error_code ec;
    std::string canonical = std::filesystem::weakly_canonical(path, ec).string();
    it = recorded_files_.find(canonical);
    if (it == recorded_files_.end()) {
      std::string base = std::filesystem::path(path).filename().string();
      for (auto c = recorded_files_.begin(); c != recorded_files_.end(); ++c) {
        if (std::filesystem::path(c->first).filename() != base) continue;
        if (it != recorded_files_.end()) return std::nullopt;  // ambiguous
        it = c;
      }
    }
  }
  if (it == recorded_files_.end()) return std::nullopt;
  return lookup_->file_path(it->second);
}

// gdb continues from a breakpoint by stepping off it first: forward over
// N hits, the mark would grow by two legs a hit ("bp A x1, +1 step, bp A
// x1, +1 step, ..."), and every seek there walk them all one by one. While
// the steps since the last hit of A never stood on A again, the next hit
// of A is simply the next execution of A: "bp A x k, +n steps, then A" is
// "bp A x k+1", which a walk (or the kernel, counting) reaches at once.
void ReplayTimeline::note_forward_step() {
  Mark base = mark_;
  base.steps = 0;
  bool on_anchor = !mark_.anchors.empty() && mark_.anchors.back().kind == Anchor::Kind::Breakpoint &&
                   current_->thread_registers(current_->next_thread()).ip() == mark_.anchors.back().addr();
  if (mark_.steps == 1) {
    step_watch_ = StepWatch{base, 1, on_anchor};
  } else if (step_watch_.base == base && step_watch_.checked + 1 == mark_.steps) {
    step_watch_.checked = mark_.steps;
    step_watch_.revisited = step_watch_.revisited || on_anchor;
  } else {
    step_watch_ = StepWatch{};  // steps this did not see: no merging
  }
}

Mark ReplayTimeline::after_forward_hit(const Anchor& a) {
  Mark base = mark_;
  base.steps = 0;
  bool merge = mark_.steps > 0 && !mark_.at_event && !mark_.anchors.empty() && mark_.anchors.back().same_trap(a) &&
               step_watch_.base == base && step_watch_.checked == mark_.steps && !step_watch_.revisited;
  step_watch_ = StepWatch{};
  if (!merge) return mark_.after_trap(a);
  ++base.anchors.back().count;
  return base;
}

}  // namespace backstep
