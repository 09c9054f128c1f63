#include "engine/record/ptrace_emulation.h"

#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

namespace backstep {

void describe_child_status(siginfo_t& info, int status) {
  if (WIFEXITED(status) || WIFSIGNALED(status)) {
    info.si_code = WIFEXITED(status) ? CLD_EXITED : WCOREDUMP(status) ? CLD_DUMPED : CLD_KILLED;
    info.si_status = WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status);
  } else {
    info.si_code = CLD_TRAPPED;
    info.si_status = (status >> 8) & 0xffff;
  }
}

siginfo_t stop_trap_siginfo(pid_t tid, int sig) {
  siginfo_t info{};
  info.si_signo = sig;
  info.si_code = sig | (PTRACE_EVENT_STOP << 8);
  info.si_pid = tid;
  info.si_uid = ::getuid();
  return info;
}

EmulatedTracee* PtraceEmulation::tracee(pid_t tid) {
  auto it = tracees_.find(tid);
  return it == tracees_.end() ? nullptr : &it->second;
}

bool PtraceEmulation::holds(pid_t tid) const {
  auto it = tracees_.find(tid);
  return it != tracees_.end() && it->second.stopped;
}

bool PtraceEmulation::traced_running(pid_t tid) const {
  auto it = tracees_.find(tid);
  return it != tracees_.end() && !it->second.stopped;
}

EmulatedTracee& PtraceEmulation::attach(pid_t tid, pid_t tracer, pid_t tracer_process, bool seized) {
  EmulatedTracee& t = tracees_[tid];
  t = EmulatedTracee{};
  t.tracer = tracer;
  t.tracer_process = tracer_process;
  t.seized = seized;
  return t;
}

void PtraceEmulation::stop(EmulatedTracee& t, int status, const siginfo_t& info, TraceStop kind) {
  t.stopped = true;
  t.listening = false;
  t.real_stop_trap = false;
  t.unreported = status;
  t.siginfo = info;
  t.kind = kind;
}

void PtraceEmulation::forget(pid_t tid) {
  for (auto it = tracees_.begin(); it != tracees_.end();) {
    it = it->second.tracer == tid ? tracees_.erase(it) : std::next(it);
  }
}

std::vector<pid_t> PtraceEmulation::tracees_of(pid_t tracer) const {
  std::vector<pid_t> found;
  for (const auto& [tid, t] : tracees_) {
    if (t.tracer == tracer) found.push_back(tid);
  }
  return found;
}

std::vector<pid_t> PtraceEmulation::unreaped_deaths() const {
  std::vector<pid_t> found;
  for (const auto& [tid, t] : tracees_) {
    if (t.dead && t.unreported) found.push_back(tid);
  }
  return found;
}

std::vector<pid_t> PtraceEmulation::matching(pid_t process, pid_t pid) const {
  std::vector<pid_t> found;
  pid_t group = pid == 0 ? ::getpgid(process) : -pid;
  for (const auto& [tid, t] : tracees_) {
    if (t.tracer_process != process) continue;
    bool match = pid > 0 ? tid == pid : pid == -1 ? true : ::getpgid(tid) == group;
    if (match) found.push_back(tid);
  }
  return found;
}

}  // namespace backstep
