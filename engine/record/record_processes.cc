// Recording a process tree (shared/notes/threads-and-processes.md §1, §6).
//
// Every process the program creates (fork, vfork, clone without
// CLONE_THREAD) is traced from its first instruction (PTRACE_O_TRACEFORK,
// TRACEVFORK) and recorded into the same trace. The processes take turns
// with the threads under the one scheduler of record_threads.cc: exactly one
// task of the whole tree runs user code at a time, so the trace is one
// order of everything that happened.
//
//  - A new process gets a ProcessStart event after its creator's call
//    (after its SyscallEntered for vfork: the creator then waits in the
//    kernel until the child execs or exits, while the child runs).
//  - An execve that succeeds becomes an Exec event (the new address space,
//    as for the first one), in place of the call's Syscall event.
//  - A process's end is its Exit event, written when its first thread's
//    death is seen; the recording ends with the last process.
//  - The recorder is the tree's subreaper, so that orphans (double fork)
//    are reparented to it and stay in the recording.
#include <sched.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "values/log.h"
#include "engine/core/proc_maps.h"
#include "engine/record/clone_request.h"
#include "engine/record/record_session.h"
#include "engine/record/tracer_debug_registers.h"

namespace backstep {

namespace {

// What a fork's child got other than a copy of its creator's memory
// (trace::MappingKind::ForkWiped, ForkDropped), read while the creator
// stands at the fork's exit.
std::vector<trace::Mapping> fork_differences(pid_t creator) {
  std::vector<trace::Mapping> notes;
  for (const ForkDifference& d : read_fork_differences(creator)) {
    trace::Mapping m;
    m.start = d.start;
    m.end = d.end;
    m.kind = d.dropped ? trace::MappingKind::ForkDropped : trace::MappingKind::ForkWiped;
    notes.push_back(m);
  }
  return notes;
}

}  // namespace

RecordProcess& RecordSession::add_process(pid_t pid, pid_t parent) {
  auto& slot = processes_[pid];
  slot = std::make_unique<RecordProcess>();
  slot->pid = pid;
  slot->parent = parent;
  return *slot;
}

std::size_t RecordSession::live_processes() const {
  std::size_t n = 0;
  for (const auto& [pid, p] : processes_) n += !p->ended;
  return n;
}

std::size_t RecordSession::live_threads_of(const RecordProcess& p) const {
  std::size_t n = 0;
  for (const auto& [tid, t] : record_tasks_) n += t->process == &p && t->run != RunState::Gone;
  return n;
}

void RecordSession::thread_created(SyscallContext& ctx, pid_t child, uint64_t flags, uint64_t parent_tid_addr,
                                   uint64_t child_tid_addr) {
  // A vfork child was started at its PTRACE_EVENT_VFORK already.
  if (record_task(child)) return;
  CreatedThread c;
  c.tid = child;
  c.parent = ctx.task.tid();
  c.flags = flags;
  c.parent_tid_addr = parent_tid_addr;
  c.child_tid_addr = child_tid_addr;
  created_ = c;
}

void RecordSession::on_vfork_event(RecordTask& t) {
  // The parent stays in the kernel until the child execs or exits: it has
  // entered a blocking call, and the child runs meanwhile.
  unsigned long child = 0;
  if (ptrace(PTRACE_GETEVENTMSG, t.tid(), nullptr, &child) != 0) {
    throw TaskGone("task " + std::to_string(t.tid()) + ": no child id at its vfork");
  }
  SyscallContext& ctx = *t.in_syscall;
  trace::Event entered;
  entered.kind = trace::EventKind::SyscallEntered;
  entered.tid = ctx.event.tid;
  entered.regs = ctx.event.regs;
  if (!ctx.entered_written) write_event(entered);
  t.run = RunState::InKernel;
  if (current_ == &t) current_ = nullptr;
  std::optional<CloneRequest> request = clone_request(t.task, ctx.entry);
  if (!request) throw RecordingRefused("a vfork whose clone arguments cannot be read");
  CreatedThread c;
  c.tid = static_cast<pid_t>(child);
  c.parent = t.tid();
  c.flags = request->flags;
  c.parent_tid_addr = request->parent_tid;
  c.child_tid_addr = request->child_tid;
  created_ = c;
  start_created_thread();
  t.task.resume(ResumeHow::Syscall);
  trace_created(t, c.tid, c.flags);  // a traced parent stops (record_tracees.cc)
}

void RecordSession::start_created_process(const CreatedThread& c, RecordTask& t) {
  RecordTask* creator = record_task(c.parent);
  RecordProcess& p = add_process(c.tid, creator && creator->process ? creator->process->pid : 0);
  t.process = &p;
  // The child has its parent's mappings (a copy, or the same memory).
  if (creator) shared_maps_[p.pid] = shared_maps_[process_of(creator->task)];
  // ... with the preload library where it was, and its creator's syscall
  // buffer at the same address (a copy, or the same memory for a vfork).
  if (creator && creator->process) {
    p.stub_area = creator->process->stub_area;
    p.stub_area_size = creator->process->stub_area_size;
    p.trampoline = creator->process->trampoline;
    p.library_code = creator->process->library_code;
    p.library_code_end = creator->process->library_code_end;
    p.exe_stub_area = creator->process->exe_stub_area;
    p.patched_sites = creator->process->patched_sites;
    t.buffer = creator->buffer;
    p.own_filter = creator->process->own_filter;
    p.strict = creator->process->strict;
    p.sigchld_nocldstop = creator->process->sigchld_nocldstop;
    if (p.own_filter) t.task.set_syscall_stops(true);
    // A process with a seccomp filter of its own has its buffers switched
    // off (program_seccomp.cc): its child may share them, and that filter
    // may refuse the calls that would unshare them.
    if (!(c.flags & CLONE_VM) && !p.own_filter) unshare_buffers(t, *creator->process);
  }
  trace::Event event;
  if (creator && creator->process && creator->process->fork_sensitive && !(c.flags & CLONE_VM)) {
    p.fork_sensitive = true;
    event.mappings = fork_differences(creator->task.tid());
  }
  event.kind = trace::EventKind::ProcessStart;
  event.tid = static_cast<uint32_t>(c.tid);
  event.regs = t.task.regs().to_block();
  event.xstate = t.task.xstate();
  event.status = c.parent;
  event.clone_flags = c.flags;
  // What the kernel wrote into the child's own memory: its tid at
  // CLONE_CHILD_SETTID (glibc's fork: the tid cached in its thread block),
  // and the parent-tid word as the child sees it.
  auto record_word = [&](uint64_t addr) {
    std::vector<uint8_t> value(4);
    if (addr != 0 && t.task.read_some(remote_ptr<void>(addr), value.data(), 4) == 4) {
      event.writes.push_back({addr, value});
    }
  };
  if (c.flags & CLONE_CHILD_SETTID) record_word(c.child_tid_addr);
  if (c.flags & CLONE_PARENT_SETTID) record_word(c.parent_tid_addr);
  write_event(event);
  if (c.flags & CLONE_CHILD_CLEARTID) t.clear_child_tid = c.child_tid_addr;
  BS_LOG(Record, "process " << c.tid << " created by " << c.parent);
}

void RecordSession::on_exec_event(RecordTask& t) {
  // The kernel reports the exec under the process's id (t): the thread that
  // called execve may have been another, whose id the event message gives.
  // Every other thread of the process is gone by now (killed by the exec).
  RecordProcess& p = *t.process;
  unsigned long former = static_cast<unsigned long>(t.tid());
  if (ptrace(PTRACE_GETEVENTMSG, t.tid(), nullptr, &former) != 0) former = static_cast<unsigned long>(t.tid());
  // The kernel drops the debug registers at an exec, a tracer's included.
  tracer_debug::forget_at_exec(t, ptrace_.tracee(t.tid()));
  RecordTask* execer = record_task(static_cast<pid_t>(former));
  if (!execer) execer = &t;
  if (execer != &t) {
    // t's RecordTask goes on as the thread that exec'd.
    t.exec_path = std::move(execer->exec_path);
    t.exec_argv = std::move(execer->exec_argv);
    t.since_ns = execer->since_ns;
    execer->run = RunState::Gone;
  }
  for (auto& [tid, other] : record_tasks_) {
    if (other->process != &p || other.get() == execer || other->end_written) continue;
    // Replay ends these threads (the former leader too, when another thread
    // exec'd) before the exec.
    trace::Event ended;
    ended.kind = trace::EventKind::ThreadExit;
    ended.tid = static_cast<uint32_t>(tid);
    write_event(ended);
    other->end_written = true;
    if (other.get() != &t) other->run = RunState::Gone;
  }
  t.end_written = false;
  t.run = RunState::Running;
  current_ = &t;
  shared_maps_[p.pid].clear();  // a new address space
  ExecSetup setup = record_exec(t.task, t.exec_path, t.exec_argv, static_cast<uint32_t>(former));
  descriptors_.table_changed(t.tid());  // close-on-exec is done
  // The Exec event stands for the whole call. The kernel may still report
  // its exit (it does not here): after_exec() passes over that stop.
  t.in_syscall.reset();
  t.exec_done = true;
  t.exec_path.clear();
  t.exec_argv.clear();
  t.clear_child_tid = 0;
  t.robust_list = 0;
  t.buffer = 0;  // the new program's library registers its own
  p.stub_area = p.stub_area_size = p.trampoline = 0;
  p.library_code = p.library_code_end = 0;
  p.exe_stub_area = setup.exe_stub_area;
  p.patchable_code_known = false;
  p.patched_sites = std::move(setup.patched_sites);
  p.buffer_views.clear();
  p.fork_sensitive = false;
  p.sigchld_nocldstop = false;  // handlers are reset, and their flags
  p.stored_pages.reset();
  t.reached_boundary(t.task.regs());
  t.interrupted_entry.reset();
  if (stop_after_exec(t, static_cast<pid_t>(former))) return;  // a traced thread (record_tracees.cc)
  resume_or_switch(t);
}

bool RecordSession::after_exec(RecordTask& t) {
  if (t.task.syscall_info().op != PTRACE_SYSCALL_INFO_EXIT) return false;
  resume_or_switch(t);
  return true;
}

bool RecordSession::is_group_stop(const WaitStatus& ws) {
  if (ws.kind != WaitStatus::Kind::EventStop || ws.event != PTRACE_EVENT_STOP) return false;
  int sig = WSTOPSIG(ws.raw);
  return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

bool RecordSession::on_group_stop(RecordTask& t, int sig) {
  // A traced thread stays in this trap for its tracer (record_tracees.cc).
  if (stop_for_job_control(t, sig)) return false;
  // PTRACE_LISTEN leaves the task stopped, as the program's parent and the
  // kernel see it, and reports its next stop (SIGCONT's) like any status of
  // a task blocked in the kernel: then it is scheduled again.
  BS_LOG(Record, "task " << t.tid() << " stopped by its process's group-stop");
  if (ptrace(PTRACE_LISTEN, t.tid(), nullptr, nullptr) != 0) {
    throw TaskGone("task " + std::to_string(t.tid()) + ": PTRACE_LISTEN failed");
  }
  t.run = RunState::InKernel;
  if (current_ == &t) current_ = nullptr;
  return false;
}

bool RecordSession::on_task_gone(RecordTask& t, const WaitStatus& ws) {
  t.run = RunState::Gone;
  let_tracees_go(t, ws.raw);
  wake_tracers();
  if (current_ == &t) current_ = nullptr;
  RecordProcess& p = *t.process;
  if (!t.is_leader() || p.ended) return false;
  // The first thread's status is the process's: the kernel reports it once
  // every thread of the process is gone.
  for (auto& [tid, other] : record_tasks_) {
    if (other->process != &p) continue;
    other->run = RunState::Gone;
    let_tracees_go(*other, ws.raw);
  }
  trace::Event exit_event;
  exit_event.kind = trace::EventKind::Exit;
  exit_event.tid = static_cast<uint32_t>(p.pid);
  exit_event.status = ws.raw;
  write_event(exit_event);
  p.ended = true;
  p.buffer_views.clear();
  shared_maps_.erase(p.pid);
  wake_tracers();  // a wait held for its stops may now be the kernel's
  if (&p == root_) {
    result_.exit_status = ws.kind == WaitStatus::Kind::Exited ? ws.exit_code : 128 + ws.signal;
  }
  BS_LOG(Record, "process " << p.pid << " ended: " << ws.describe());
  if (live_processes() > 0) return false;
  writer_->finish();
  result_.completed = true;
  result_.events = writer_->events_written();
  return true;
}

}  // namespace backstep
