// Replays a trace: a fresh process whose address space is rebuilt from the
// Exec event, then driven event by event. Recorded syscalls are not executed
// (PTRACE_SYSEMU) except those that shape the address space; their results
// and memory writes come from the trace. Registers are compared at every
// event; the first mismatch stops replay with a divergence report.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "engine/core/registers.h"
#include "engine/core/session.h"
#include "engine/trace/reader.h"

namespace backstep {

class ReplayDivergence : public std::runtime_error {
 public:
  ReplayDivergence(uint64_t event, const std::string& what)
      : std::runtime_error("replay diverged at event " + std::to_string(event) + ": " + what),
        event_(event) {}
  uint64_t event() const { return event_; }

 private:
  uint64_t event_;
};

struct ReplayOptions {
  bool echo_stdio = true;  // re-emit the program's stdout/stderr
};

struct ReplayResult {
  enum class End { Exited, RecordingStopped, TraceCutShort };
  End end = End::Exited;
  int exit_status = 0;      // as a shell reports it (Exited)
  std::string message;      // why, for the other ends
  uint64_t events = 0;      // events replayed
};

class ReplaySession : public Session {
 public:
  // Opens the trace and checks it can be replayed on this machine (throws
  // trace::TraceError or std::runtime_error with the reason).
  ReplaySession(const std::string& trace_dir, ReplayOptions options = {});
  ~ReplaySession() override;

  // Replays to the end of the trace. Throws ReplayDivergence.
  ReplayResult run_to_end();

  const trace::Header& header() const { return reader_->header(); }

 private:
  void start(const trace::Event& exec);
  void replay_event(const trace::Event& event);
  void replay_syscall(const trace::Event& event);
  void replay_rdtsc(const trace::Event& event);
  void replay_signal(const trace::Event& event);
  void run_to_stop();
  void expect_syscall_stop(const trace::Event& event);
  void expect_signal_stop(const trace::Event& event, int sig);
  void check_registers(const trace::Event& event);
  void apply_effects(const trace::Event& event);
  void echo(const trace::Event& event);
  void restart_if_interrupted(const Registers& exit);
  std::optional<trace::Event> take_event();
  const trace::Event* peek_event();
  [[noreturn]] void diverged(const std::string& what) const;

  std::unique_ptr<trace::TraceReader> reader_;
  ReplayOptions options_;
  Task* task_ = nullptr;
  uint64_t event_number_ = 0;   // the event being replayed
  uint64_t next_number_ = 0;    // the number of the event take_event() returns next
  std::optional<trace::Event> peeked_;
  uint64_t brk_ = 0;  // current program break, as recorded
  std::optional<struct WaitStatus> last_stop_;
  bool echo_failed_ = false;
};

}  // namespace backstep
