// Stop signals during recording: whose are they?
//
// The program shares the recorder's process group. What the program itself
// sends to that group never reaches the recorder (the recorder blocks it for
// the duration of the kill(2): recorder_signals.h); everything here is about
// signals from elsewhere.
//
// Ctrl-C on a terminal sends SIGINT to the whole foreground process group,
// the recorder and the program alike (so do Ctrl-\, a hang-up, and
// `kill -INT -PGID`). The program's copy is its own business: it is recorded
// like any signal, and the recorder records on until the program ends. A
// stop signal that reached the recorder alone (`kill -TERM RECORDER`) asks
// the recorder to stop: it kills the program and ends the trace with an
// Abort event that says why.
//
// A group signal is sent to the program before the recorder: the kernel
// walks a process group newest member first, and the program is newer. So
// when the recorder looks, the program's copy is either still pending, or
// the program has taken it and sits in a signal-delivery-stop, or the
// recorder has already seen that stop. The kernel dequeues a signal and
// enters the stop under the same lock under which /proc/PID/status reads the
// pending sets, which makes "pending, else stopped with it" a complete test
// when done in that order.
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <string>

#include "values/log.h"
#include "engine/record/record_session.h"

namespace backstep {
namespace {

// How many one-sided stop signals are remembered; a few suffice, the bound
// keeps a program that raises SIGINT at itself in a loop from growing them.
constexpr std::size_t kRemembered = 16;

bool same(const StopSignal& a, const StopSignal& b) {
  return a.signo == b.signo && a.code == b.code && a.sender == b.sender;
}

bool is_stop_signal(int sig) { return sig == SIGINT || sig == SIGQUIT || sig == SIGTERM || sig == SIGHUP; }

void remember(std::vector<StopSignal>& list, const StopSignal& s) {
  if (list.size() == kRemembered) list.erase(list.begin());
  list.push_back(s);
}

bool forget(std::vector<StopSignal>& list, const StopSignal& s) {
  for (auto it = list.begin(); it != list.end(); ++it) {
    if (same(*it, s)) {
      list.erase(it);
      return true;
    }
  }
  return false;
}

// Whether `sig` is pending for the thread or its process.
bool pending_in(pid_t tid, int sig) {
  std::ifstream status("/proc/" + std::to_string(tid) + "/status");
  std::string line;
  uint64_t bit = uint64_t{1} << (sig - 1);
  while (std::getline(status, line)) {
    if (line.rfind("SigPnd:", 0) == 0 || line.rfind("ShdPnd:", 0) == 0) {
      if (std::stoull(line.substr(7), nullptr, 16) & bit) return true;
    }
  }
  return false;
}

StopSignal sender_of(const siginfo_t& info) { return {info.si_signo, info.si_code, info.si_pid}; }

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

}  // namespace

void RecordSession::check_stop_signals(Task& task) {
  while (std::optional<StopSignal> s = signals_->take()) {
    if (program_got(task, *s)) {
      BS_LOG(Record, signal_name(s->signo) << " went to the whole group: the program's to handle");
      continue;
    }
    throw RecorderStopped(s->signo, "the recorder received " + signal_name(s->signo));
  }
}

bool RecordSession::program_got(Task& task, const StopSignal& s) {
  if (forget(program_only_, s)) return true;  // its stop came first
  bool got = pending_in(task.tid(), s.signo);
  if (!got) {
    // Stopped with it, but not yet reported to us? WNOWAIT leaves the stop
    // for the main loop to take.
    siginfo_t ready{};
    if (waitid(P_PID, static_cast<id_t>(task.tid()), &ready, WSTOPPED | WNOHANG | WNOWAIT | __WALL) == 0 &&
        ready.si_pid == task.tid() && ready.si_code == CLD_TRAPPED && ready.si_status == s.signo) {
      got = same(sender_of(task.siginfo()), s);
    }
  }
  if (got) remember(recorder_only_, s);  // so that its stop is not taken for a new one
  return got;
}

void RecordSession::note_program_signal(Task& task, int sig) {
  if (!is_stop_signal(sig)) return;
  StopSignal s = sender_of(task.siginfo());
  // Sent by the program itself: the recorder was shielded from its copy.
  if (s.code == SI_USER && s.sender == task.tid()) return;
  if (!forget(recorder_only_, s)) remember(program_only_, s);
}

}  // namespace backstep
