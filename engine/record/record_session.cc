#include "engine/record/record_session.h"

#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <climits>
#include <cstring>
#include <set>
#include <utility>

#include "engine/core/cpu_features.h"
#include "values/log.h"
#include "engine/core/restart_codes.h"
#include "engine/core/seccomp_filter.h"
#include "engine/core/vsyscall.h"
#include "engine/core/compat_syscalls.h"
#include "engine/core/syscalls/output_size.h"
#include "engine/core/written_bytes.h"
#include "engine/record/compat_entry.h"
#include "engine/record/blocking_calls.h"
#include "engine/record/tracer_debug_registers.h"
#include "engine/record/unknown_syscall.h"
#include "engine/trace/written_data.h"
#include "engine/trace/trace_error.h"
#include "preload/preload_interface.h"

namespace backstep {

RecordSession::RecordSession(RecordOptions options)
    : options_(std::move(options)), site_patcher_(/*cpuid=*/!options_.cpuid_faulting) {
  if (options_.chaos_seed) chaos_.emplace(*options_.chaos_seed);
}

RecordSession::~RecordSession() = default;

namespace {

// The kernel's "restart through restart_syscall" return code.

std::vector<char*> c_strings(std::vector<std::string>& v) {
  std::vector<char*> out;
  for (auto& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Tracer and tracee share one CPU: a ptrace stop that crosses CPUs costs
// 3-5x more (shared/notes/perf-anchors.md). The affinity it had is kept in
// `disguise` for the program's sched_getaffinity.
int pin_to_current_cpu(RecorderDisguise& disguise) {
  disguise.have_inherited_affinity =
      sched_getaffinity(0, sizeof(disguise.inherited_affinity), &disguise.inherited_affinity) == 0;
  int cpu = sched_getcpu();
  if (cpu < 0) return -1;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  sched_setaffinity(0, sizeof(set), &set);
  return cpu;
}

// The trace writer's thread compresses and writes what the program's
// buffered calls read (200 MB for a 200 MB copy): on the tracee's CPU it
// would take turns with the program and the recorder. It gets the other
// CPUs the recorder was allowed, where there are any.
void place_writer(trace::TraceWriter& writer, const RecorderDisguise& disguise, int cpu) {
  if (!disguise.have_inherited_affinity || cpu < 0) return;
  cpu_set_t others = disguise.inherited_affinity;
  CPU_CLR(cpu, &others);
  if (CPU_COUNT(&others) == 0) return;
  if (!writer.place_background(others)) BS_LOG(Record, "the trace writer stays on CPU " << cpu);
}

// Appends `option` to the colon-separated list in variable `name` (made if
// absent): the program's own options come first.
void add_option(std::vector<std::string>& envp, const std::string& name, const std::string& option) {
  const std::string prefix = name + "=";
  for (std::string& e : envp) {
    if (e.rfind(prefix, 0) == 0) {
      e += (e.size() == prefix.size() ? "" : ":") + option;
      return;
    }
  }
  envp.push_back(prefix + option);
}

// The preload library goes first in LD_PRELOAD (the program's own list, if
// any, follows), so that every process of the tree loads it.
//
// A program built with AddressSanitizer's shared runtime (gcc's
// -fsanitize=address, clang's -shared-libasan) refuses to start unless
// libasan is the first library loaded ("ASan runtime does not come first in
// initial library list"). The preload library interposes nothing ASan
// needs to see first (only the vDSO's clock calls), so ASan is told not to
// check (verify_asan_link_order=0, after the program's own ASAN_OPTIONS):
// preloading libasan instead would load ASan into every program of the
// tree, instrumented or not. Programs without ASan ignore the variable.
void add_preload(std::vector<std::string>& envp, const std::string& library) {
  add_option(envp, "ASAN_OPTIONS", "verify_asan_link_order=0");
  for (std::string& e : envp) {
    if (e.rfind("LD_PRELOAD=", 0) == 0) {
      std::string rest = e.substr(11);
      e = "LD_PRELOAD=" + library + (rest.empty() ? "" : ":" + rest);
      return;
    }
  }
  envp.push_back("LD_PRELOAD=" + library);
}

// The seccomp filter of syscall buffering (preload/preload_interface.h):
// a call from the tool page's untraced instruction runs, every other one
// stops the program for the recorder (SECCOMP_RET_TRACE). Installed in the
// child before its exec, so every process of the tree has it.
// Async-signal-safe.
bool install_syscall_filter() {
  constexpr uint32_t ip_lo = static_cast<uint32_t>(BS_UNTRACED_SYSCALL_IP);
  constexpr uint32_t ip_hi = static_cast<uint32_t>(BS_UNTRACED_SYSCALL_IP >> 32);
  sock_filter code[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, instruction_pointer)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ip_lo, 0, 3),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, instruction_pointer) + 4),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ip_hi, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE | kRecorderTraceData),
  };
  sock_fprog prog{static_cast<unsigned short>(sizeof(code) / sizeof(code[0])), code};
  return load_seccomp_filter(prog);
}

std::string current_dir() {
  char buf[PATH_MAX];
  return getcwd(buf, sizeof(buf)) ? buf : "";
}

}  // namespace

pid_t RecordSession::spawn() {
  cpu_ = pin_to_current_cpu(disguise_);
  std::vector<std::string> argv = options_.argv, envp = options_.envp;
  bool buffered = buffering();
  if (buffered) add_preload(envp, options_.preload_library);
  std::vector<char*> c_argv = c_strings(argv), c_envp = c_strings(envp);
  // err_pipe: execve's errno back to us. go_pipe: the child waits on it
  // until it is seized (PTRACE_SEIZE, not TRACEME: the recorder interrupts
  // the program with PTRACE_INTERRUPT, which needs a seized tracee).
  int err_pipe[2], go_pipe[2];
  if (pipe2(err_pipe, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
  if (pipe2(go_pipe, O_CLOEXEC) != 0) {
    close(err_pipe[0]);
    close(err_pipe[1]);
    throw std::runtime_error("pipe2 failed");
  }

  // The kernel's rdtsc trap, unless the recorder patches rdtsc sites: then
  // the preload library reads the counter for the patched ones
  // (tsc_buffering.cc), and must be able to.
  const bool trap_rdtsc = !site_patcher_.enabled();
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork failed: ") + strerror(errno));
  if (pid == 0) {
    // Only async-signal-safe calls until execve.
    signals_->restore_in_child();
    close(err_pipe[0]);
    close(go_pipe[1]);
    char go = 0;
    while (read(go_pipe[0], &go, 1) < 0 && errno == EINTR) {
    }
    if (go != 1) _exit(127);  // the recorder could not seize us
    if (trap_rdtsc) prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0);  // rdtsc traps; see on_signal
    personality(static_cast<unsigned long>(personality(0xffffffff)) | ADDR_NO_RANDOMIZE);  // keep setarch's bits
    // Without buffering, a filter that stops calls through the vsyscall
    // page, which no syscall-entry stop shows (engine/core/vsyscall.h).
    if (buffered ? !install_syscall_filter() : !install_vsyscall_filter()) {
      int e = errno;
      ssize_t ignored = write(err_pipe[1], &e, sizeof(e));
      (void)ignored;
      _exit(127);
    }
    execve(options_.exe.c_str(), c_argv.data(), c_envp.data());
    int e = errno;
    ssize_t ignored = write(err_pipe[1], &e, sizeof(e));
    (void)ignored;
    _exit(127);
  }
  close(err_pipe[1]);
  close(go_pipe[0]);
  Task& task = add_task(pid);
  try {
    task.seize(PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC | PTRACE_O_TRACECLONE |
               PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACESECCOMP);
    task.set_seccomp_syscalls(buffered);
  } catch (...) {
    close(go_pipe[1]);  // the child reads end-of-file and exits
    close(err_pipe[0]);
    throw;
  }
  char go = 1;
  ssize_t sent = write(go_pipe[1], &go, 1);
  close(go_pipe[1]);
  if (sent != 1) {
    close(err_pipe[0]);
    throw std::runtime_error("cannot start the tracee: " + std::string(strerror(errno)));
  }
  WaitStatus ws = task.wait();
  // Under the filter, the child's execve (and, if it fails, its report)
  // stops at entry and exit first.
  while (ws.is_syscall()) {
    task.resume(ResumeHow::Syscall);
    ws = task.wait();
  }
  if (ws.kind != WaitStatus::Kind::EventStop || ws.event != PTRACE_EVENT_EXEC) {
    int e = 0;
    ssize_t n = read(err_pipe[0], &e, sizeof(e));
    close(err_pipe[0]);
    if (n == sizeof(e)) {
      throw std::runtime_error("cannot execute '" + options_.exe + "': " + strerror(e));
    }
    throw std::runtime_error("the tracee did not reach exec: " + ws.describe());
  }
  close(err_pipe[0]);
  return pid;
}

RecordResult RecordSession::run() {
  signals_ = std::make_unique<RecorderSignals>();
  struct PutBackSignals {
    std::unique_ptr<RecorderSignals>& s;
    ~PutBackSignals() { s.reset(); }
  } put_back{signals_};
  // Orphans of the program (a double fork) are reparented to the recorder,
  // which traces them anyway, rather than to init.
  prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  pid_t pid = spawn();
  RecordTask& t = add_record_task(pid);
  root_ = t.process = &add_process(pid, 0);
  Task& task = t.task;

  trace::Header header;
  header.backstep_version = BACKSTEP_VERSION;
  header.argv = options_.argv;
  header.envp = options_.envp;
  header.cwd = current_dir();
  header.exe = options_.exe;
  header.cpuid = current_cpu_features();
  // Positions are counter-less whatever the probe finds: the hardware
  // counter is not used yet.
  header.counter_mode = "none";
  header.codec = options_.codec;
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  header.start_time_ns = static_cast<uint64_t>(now.tv_sec) * 1000000000u + now.tv_nsec;
  header.recorded_cpu = cpu_;
  header.cpuid_faulting = options_.cpuid_faulting;
  header.chaos_seed = options_.chaos_seed;
  writer_ = std::make_unique<trace::TraceWriter>(options_.trace_dir, header);
  place_writer(*writer_, disguise_, cpu_);

  try {
    ExecSetup setup = record_exec(task);
    t.process->exe_stub_area = setup.exe_stub_area;
    t.process->patched_sites = std::move(setup.patched_sites);
    current_ = &t;
    last_scheduled_ = t.tid();
    t.run = RunState::Running;
    task.resume(ResumeHow::Syscall);
    for (;;) {
      check_stop_signals(task);
      if (!current_) {
        if (schedule()) return result_;
        if (current_) continue;
      } else if (current_->task.has_kept_status()) {
        if (handle_stop(*current_, current_->task.wait())) return result_;
        continue;
      }
      if (live_threads() > 1) signals_->tick_every(kTickMs);
      else if (forcing_tasks_ == 0) signals_->stop_ticking();
      // A tick or a desched event's signal that came while we were busy:
      // the running thread may have blocked in a buffered call since, or
      // be due for a forced position. Stops can come faster than the ticks
      // (a program's own 2 ms timer, whose signals are held back each
      // time), and the tick then lands beside a stop instead of breaking a
      // wait: it is looked at here as well as below.
      if (current_ && RecorderSignals::take_wake()) {
        check_blocked_call(*current_);
        maybe_interrupt(*current_);
      }
      std::optional<TaskStatus> stop;
      {
        // While the program runs, the writer may send our events to disk.
        trace::TraceWriter::Idle idle(*writer_);
        stop = wait_any_interruptible();
      }
      if (!stop) {
        // A signal came (see check_stop_signals), or a tick: a signal held
        // back, or another thread waiting (forced_position.cc), or a
        // signal for a wait held for tracees (ptrace_waits.cc).
        wake_tracers();
        if (current_) {
          RecorderSignals::take_wake();
          check_blocked_call(*current_);
          maybe_interrupt(*current_);
        } else if (idle_too_long() && schedule(true)) {
          return result_;
        }
        continue;
      }
      if (route_status(*stop)) return result_;
    }
  } catch (const RecorderStopped& e) {
    stop_recording(task, e.what());
    result_.stop_signal = e.signo;
  } catch (const trace::TraceError& e) {
    stop_recording(task, std::string("writing the trace failed: ") + e.what());
  } catch (const RecordingRefused& e) {
    stop_recording(task, e.what(), e.at_entry, e.tid);
  } catch (const AssertionFailure& e) {
    stop_recording(task, e.what());
  } catch (const TaskGone& e) {
    stop_recording(task, e.what());
  }
  return result_;
}

bool RecordSession::handle_stop(RecordTask& t, const WaitStatus& ws) {
  if (t.handover_count || t.parked_count) {
    // Counted hand-overs (counted_handover.cc): a thread wound back to
    // make its call again stops anew.
    if (std::optional<WaitStatus> again = settle_handover_count(t, ws)) return handle_stop(t, *again);
  }
  tracer_debug::settle(t);
  Task& task = t.task;
  // Calls other threads finished while this one ran user code come first;
  // those that this thread's own call caused (an unlock that woke a
  // waiter) come after its event (on_syscall_exit).
  bool exit_stop = ws.is_syscall() && t.in_syscall;
  // Our interrupt of a thread blocked in a buffered call (record_desched.cc):
  // its stop is the PTRACE_EVENT_STOP, or whatever came first.
  bool desched = std::exchange(t.desched_pending, false);
  if (live_threads() > 1 && !exiting(t) && !exit_stop) flush_completed_calls(t);
  // A stop ends the wait for the switch point asked of a buffered call,
  // except a signal's in user code: that one is held back (record_signals.cc)
  // and the thread runs on from where it was, the ask still out. (A timer's
  // signal every 2 ms would otherwise restart the wait each time, and the
  // thread would never be interrupted for its forced position.)
  if (ws.kind != WaitStatus::Kind::SignalStop) t.yield_asked_ns = 0;
  switch (ws.kind) {
    case WaitStatus::Kind::SyscallStop:
      if (std::exchange(t.exec_done, false) && after_exec(t)) return false;
      if (t.in_syscall) {
        on_syscall_exit(t);
      } else if (!stop_at_syscall_entry(t, ws)) {  // PTRACE_SYSCALL (record_tracees.cc)
        on_syscall_entry(t);
      }
      return false;
    case WaitStatus::Kind::SignalStop:
      note_program_signal(task, ws.signal);
      on_signal(t, ws.signal);
      return false;
    case WaitStatus::Kind::EventStop:
      if (ws.event == PTRACE_EVENT_CLONE || ws.event == PTRACE_EVENT_FORK) {
        // The new task is started at the call's exit, under the id the
        // kernel gives here (the result may be a pid namespace's).
        unsigned long child = 0;
        if (ptrace(PTRACE_GETEVENTMSG, task.tid(), nullptr, &child) != 0) {
          throw TaskGone("task " + std::to_string(task.tid()) + ": no child id at its clone");
        }
        t.created_child = static_cast<pid_t>(child);
        task.resume(ResumeHow::Syscall);
        return false;
      }
      if (ws.event == PTRACE_EVENT_VFORK) {
        on_vfork_event(t);
        return false;
      }
      if (ws.event == PTRACE_EVENT_EXEC) {
        on_exec_event(t);
        return false;
      }
      if (ws.event == PTRACE_EVENT_STOP) {
        // Our interrupt (for a blocked buffered call, a held-back signal or
        // a switch) of a thread waiting in a buffered call: the call goes
        // the traced way, where it can wait and a signal can be delivered.
        if (desched || t.interrupt_pending) abandon_interrupted_call(t);
        if (t.interrupt_pending) return on_interrupted(t);
        if (desched) {
          t.task.resume(ResumeHow::Syscall);
          return false;
        }
        if (is_group_stop(ws)) return on_group_stop(t, WSTOPSIG(ws.raw));
        // A seized tracee also stops like this whenever its process gets
        // SIGCONT (the kernel's notice to a tracer that may be listening):
        // nothing to record, unless a recorded tracer seized it too.
        if (stop_for_job_control(t, SIGTRAP)) return false;
        t.task.resume(ResumeHow::Syscall);
        return false;
      }
      throw RecordingRefused("unexpected ptrace event " + std::to_string(ws.event));
    case WaitStatus::Kind::Exited:
    case WaitStatus::Kind::Killed:
      // A thread that died with its process (exit_group, a fatal signal)
      // or was killed; the first thread's status ends the process.
      return on_task_gone(t, ws);
  }
  return false;
}

void RecordSession::stop_recording(Task& task, const std::string& why, std::optional<trace::RegBlock> regs,
                                   std::optional<pid_t> caller) {
  // First: no process of the program may run on unrecorded.
  for (auto& [tid, t] : record_tasks_) t->task.kill();
  task.kill();
  trace::Event abort_event;
  abort_event.kind = trace::EventKind::Abort;
  // Registers belong to the thread that made the refused call.
  abort_event.tid = static_cast<uint32_t>(regs && caller ? *caller : task.tid());
  abort_event.message = why;
  abort_event.regs = regs;
  try {
    write_event(abort_event);
    writer_->finish();
  } catch (const trace::TraceError&) {
    // The disk is full or failing: `why` says so already when that is what
    // stopped us, and the writer has put the reason into stop-reason.
    try {
      writer_->finish();
    } catch (const trace::TraceError&) {
    }
  }
  result_.completed = false;
  result_.stop_reason = why;
  result_.exit_status = 125;
  result_.events = writer_->events_written();
}

void RecordSession::write_event(const trace::Event& event, std::span<const trace::BorrowedWrite> first) {
  // The calls a thread made through its syscall buffer come right before
  // its next event, and only then: replay writes them back there, and the
  // thread runs (consuming them) only to reach that event. A stop that
  // records nothing (a held-back signal) must not flush, or a second flush
  // would overwrite the first before the thread ran.
  if (trace::kind_traits(event.kind).follows_buffer_flush) {
    if (RecordTask* t = record_task(static_cast<pid_t>(event.tid))) flush_buffer(*t);
  }
  BS_LOG(Record, "event " << writer_->events_written() << ": " << trace::to_string(event.kind));
  writer_->write(event, first);
}

uint64_t RecordSession::shared_object_id(dev_t dev, ino_t ino) {
  auto [it, added] = shared_objects_.emplace(std::make_pair(dev, ino), shared_objects_.size() + 1);
  return it->second;
}

std::optional<uint64_t> RecordSession::mapped_object(dev_t dev, ino_t ino) {
  for (const auto& [pid, maps] : shared_maps_) {
    for (const SharedFileMapping& m : maps) {
      if (m.dev == dev && m.ino == ino) return shared_object_id(dev, ino);
    }
  }
  return std::nullopt;
}

pid_t RecordSession::process_of(Task& task) {
  RecordTask* t = record_task(task.tid());
  return t && t->process ? t->process->pid : task.tid();
}

void RecordSession::forget_mappings(Task& task, uint64_t start, uint64_t len) {
  // What stays mapped of a tracked mapping stays tracked: the parts below
  // and above the range (a write to the file changes them still).
  std::vector<SharedFileMapping>& maps = shared_maps_[process_of(task)];
  std::vector<SharedFileMapping> kept;
  uint64_t end = start + len;
  for (const SharedFileMapping& m : maps) {
    if (m.end <= start || end <= m.start) {
      kept.push_back(m);
      continue;
    }
    if (m.start < start) kept.push_back({m.start, start, m.offset, m.dev, m.ino});
    if (end < m.end) kept.push_back({end, m.end, m.offset + (end - m.start), m.dev, m.ino});
  }
  maps = std::move(kept);
}

void RecordSession::on_syscall_entry(RecordTask& t) {
  Task& task = t.task;
  Registers regs = task.regs();
  try {
    if (in_vsyscall_page(regs.ip())) {
      on_vsyscall(t, regs);
      return;
    }
    enter_syscall(t, regs);
  } catch (RecordingRefused& e) {
    e.at_entry = regs.to_block();
    e.tid = task.tid();
    throw;
  }
}

bool RecordSession::writes_original_stdio(Task& task, const Registers& call) {
  return is_write_like(call.syscallno()) &&
         descriptors_.stdio_stream(task.tid(), static_cast<int>(call.arg(0))).has_value();
}

void RecordSession::enter_syscall(RecordTask& t, const Registers& regs) {
  Task& task = t.task;
  // A 32-bit call (int 0x80) is recorded as its 64-bit twin, or refused.
  std::optional<Registers> compat = compat_entry(task, regs, next_event());
  const Registers& call = compat ? *compat : regs;
  long nr = static_cast<long>(call.syscallno());
  // An exec replaces the buffer with the memory: its calls go now (the
  // Exec event, written after the exec, follows them). A fork copies the
  // buffer into the child, and a thread without TLS of its own shares it:
  // its calls go now too, or the child's copy would hold them as its own.
  if (nr == SYS_execve || nr == SYS_execveat || nr == SYS_clone || nr == SYS_clone3 || nr == SYS_fork ||
      nr == SYS_vfork) {
    flush_buffer(t);
  }
  forget_buffered_closes(t);
  if (strict_forbids(t, nr)) {
    // Emulated strict mode (record_buffers.cc): the kernel's answer.
    ::kill(t.process->pid, SIGKILL);
    return;
  }
  const sys::SyscallInfo* info = sys::lookup(nr);
  if (!info) {
    // A number the kernel does not know either: it returns -ENOSYS and
    // writes nothing; recorded as such (unknown_syscall.h).
    check_unknown_syscall_entry(call.syscallno(), next_event());
    info = &unknown_syscall_info();
  }
  // restart_syscall continues a sleep a signal interrupted, writing what the
  // interrupted call would have written: record it as that call.
  bool restart = nr == SYS_restart_syscall;
  if (restart) {
    if (!t.interrupted_entry) {
      throw RecordingRefused("restart_syscall without an interrupted call at event " +
                             std::to_string(next_event()));
    }
    info = sys::lookup(static_cast<long>(t.interrupted_entry->syscallno()));
  }
  t.in_syscall.emplace(SyscallContext{*this, task, *info, restart ? *t.interrupted_entry : call,
                                     Registers(), trace::Event()});
  SyscallContext& ctx = *t.in_syscall;
  ctx.entered_written = std::exchange(t.entered_written, false);
  if (!info->supported) ctx.refuse("unsupported system call");
  ctx.event.kind = trace::EventKind::Syscall;
  ctx.event.tid = static_cast<uint32_t>(task.tid());
  ctx.event.regs = regs.to_block();
  if (compat) ctx.event.status = kAuditArchI386;
  redeliver_deferred(t);
  const SyscallRecorder* recorder = syscall_recorder(info->nr);
  if (recorder && recorder->enter && !restart) recorder->enter(ctx);
  if (ctx.held) {
    hold_call(t);  // it waits unrun for what answers it (record_tracees.cc)
    return;
  }
  if (nr == SYS_exit || nr == SYS_exit_group) {
    // No exit stop follows: the thread (or the process) is gone when the
    // call "returns".
    write_event(ctx.event);
    t.in_syscall.reset();
    std::size_t siblings = live_threads_of(*t.process);
    if (nr == SYS_exit && siblings > 1 && !t.is_leader()) {
      end_thread(t);
      return;
    }
    if (nr == SYS_exit_group) t.process->exiting = true;
    if (nr == SYS_exit && siblings > 1) {
      // The first thread ends while others run: it stays a zombie until the
      // last one ends, and its status is the program's then.
      t.run = RunState::Gone;
      current_ = nullptr;
    }
    task.resume(ResumeHow::Syscall);
    return;
  }
  // A call its handler rewrote or answers itself blocks as rewritten.
  if (live_threads() > 1 && !exiting(t) && may_block(ctx.entry_rewritten ? ctx.entry : call)) {
    // Other threads run while this one waits in the kernel.
    trace::Event entered;
    entered.kind = trace::EventKind::SyscallEntered;
    entered.tid = ctx.event.tid;
    entered.regs = ctx.event.regs;
    // What a tracer of this thread reads of its extended state meanwhile.
    if (ptrace_.tracee(t.tid())) ctx.xstate_at_entry = task.xstate();
    if (blocks_on_pi_futex(call)) {
      task.resume(ResumeHow::Syscall);
      if (!pi_lock_waits(t, call.arg(0), entered)) return;  // it returned at once: handled as usual
    } else if (writes_original_stdio(task, call)) {
      // Output to backstep's own stdout or stderr, which replay re-emits in
      // trace order: let it finish before anyone else runs, so that the
      // outputs of several processes keep the order the kernel gave them.
      // Only a write that really blocks (a full pipe) lets others run.
      task.resume(ResumeHow::Syscall);
      signals_->tick_every(kTickMs);
      auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kEchoWaitMs);
      if (std::optional<WaitStatus> done = wait_with_deadline(task, deadline)) {
        task.keep_status(*done);  // handled as any call's exit, by the main loop
        return;
      }
    } else {
      task.resume(ResumeHow::Syscall);
    }
    if (!ctx.entered_written) write_event(entered);
    t.run = RunState::InKernel;
    if (current_ == &t) current_ = nullptr;
    return;
  }
  task.resume(ResumeHow::Syscall);
}

namespace {

// The spec's rule (engine/core/syscalls/output_size.h), with what it needs
// of the call: its arguments, its result, and for a DerefArg output the
// length its size argument points at after the call.
uint64_t output_size(const SyscallContext& ctx, const sys::OutParam& out) {
  uint64_t args[6];
  for (int i = 0; i < 6; ++i) args[i] = ctx.arg(i);
  uint32_t pointed = 0;
  uint64_t length_at = args[out.size_arg];
  if (out.size_kind == sys::SizeKind::DerefArg && !ctx.failed() && length_at != 0 &&
      ctx.task.read_some(remote_ptr<void>(length_at), &pointed, sizeof(pointed)) != sizeof(pointed)) {
    pointed = 0;
  }
  return sys::output_size(out, args, ctx.result(), pointed);
}

}  // namespace

void RecordSession::on_syscall_exit(RecordTask& t, bool resume) {
  Task& task = t.task;
  SyscallContext& ctx = *t.in_syscall;
  ctx.exit = task.regs();
  if (ctx.emulated_result) {
    ctx.exit.set_syscallno(ctx.info.nr);
    ctx.exit.set_syscall_result(static_cast<uint64_t>(*ctx.emulated_result));
    task.set_regs(ctx.exit);
  }
  if (!ctx.info.custom) {
    for (uint8_t i = 0; i < ctx.info.out_count; ++i) {
      const sys::OutParam& out = ctx.info.outs[i];
      uint64_t size = output_size(ctx, out);
      if (size > (1u << 30)) ctx.refuse("implausible output size");
      ctx.record_memory(ctx.arg(out.arg), size);
    }
  }
  if (ctx.entry.syscallno() == static_cast<uint64_t>(BS_CALL_REGISTER_BUFFER)) {
    register_buffer(t, ctx);
  } else if (&ctx.info == &unknown_syscall_info()) {
    check_unknown_syscall_exit(ctx);
  }
  ctx.written = read_written_bytes(task, ctx.entry, ctx.result());
  const SyscallRecorder* recorder = syscall_recorder(ctx.info.nr);
  if (recorder && recorder->exit) recorder->exit(ctx);
  after_traced_call(t, ctx);
  mapped_file_sizes_.note_changes(ctx.event);
  if (ctx.written) ctx.event.written = trace::summarize_written(*ctx.written, ctx.event.echoes);
  Registers recorded_entry = Registers::from_block(*ctx.event.regs);
  ctx.event.reg_changes = ctx.exit.changes_since(recorded_entry);
  write_event(ctx.event);
  if (ctx.result() == -kErestartRestartblock) {
    t.interrupted_entry = ctx.entry;
  } else {
    t.interrupted_entry.reset();
  }
  t.reached_boundary(ctx.exit, ctx.entry.syscallno() == SYS_rt_sigreturn);
  bool vfork_done = !ctx.failed() && (ctx.entry.syscallno() == SYS_vfork ||
                                      (ctx.entry.syscallno() == SYS_clone && (ctx.arg(0) & CLONE_VFORK)));
  pid_t vfork_child = vfork_done ? static_cast<pid_t>(ctx.result()) : 0;
  t.in_syscall.reset();
  raise_step_trap(t);  // a single-stepped tracee stops right after its call
  if (created_) {
    CreatedThread made = *created_;
    start_created_thread();
    // A traced creator stops with its ptrace event (record_tracees.cc).
    if (trace_created(t, made.tid, made.flags)) return;
  }
  if (vfork_child && stop_after_vfork(t, vfork_child)) return;  // PTRACE_EVENT_VFORK_DONE
  if (stop_at_syscall_exit(t)) return;  // PTRACE_SYSCALL (record_tracees.cc)
  if (!resume) return;
  if (live_threads() > 1 && !exiting(t)) flush_completed_calls(t);
  resume_or_switch(t);
}

}  // namespace backstep
