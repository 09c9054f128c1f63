// Names of the schema's enums, for messages and `backstep dump`, and what
// each kind of event is (kind_traits).
#include "engine/trace/event.h"

namespace backstep::trace {

const char* to_string(EventKind kind) {
  switch (kind) {
    case EventKind::Exec: return "exec";
    case EventKind::Syscall: return "syscall";
    case EventKind::Rdtsc: return "rdtsc";
    case EventKind::Signal: return "signal";
    case EventKind::FatalSignal: return "fatal-signal";
    case EventKind::Exit: return "exit";
    case EventKind::Abort: return "abort";
    case EventKind::Position: return "position";
    case EventKind::SyscallEntered: return "syscall-entered";
    case EventKind::ThreadStart: return "thread-start";
    case EventKind::ThreadExit: return "thread-exit";
    case EventKind::ProcessStart: return "process-start";
    case EventKind::BufferFlush: return "buffer-flush";
    case EventKind::TraceeChange: return "tracee-change";
  }
  return "unknown";
}

// Every kind, every field: the build makes a missing one an error here
// (engine/trace/CMakeLists.txt).
EventKindTraits kind_traits(EventKind kind) {
  switch (kind) {
    case EventKind::Exec:
      return {.requires_registers = true, .replay_checks_registers = false, .reached_without_running = false,
              .reached_at_syscall = true, .runs_no_instruction = false, .delivers_signal = false,
              .creates_thread = false, .starts_or_ends_thread = false, .can_close_trace = false,
              .follows_buffer_flush = false};
    case EventKind::Syscall:
      return {.requires_registers = true, .replay_checks_registers = true, .reached_without_running = false,
              .reached_at_syscall = true, .runs_no_instruction = false, .delivers_signal = false,
              .creates_thread = false, .starts_or_ends_thread = false, .can_close_trace = false,
              .follows_buffer_flush = true};
    case EventKind::Rdtsc:
      return {.requires_registers = true, .replay_checks_registers = true, .reached_without_running = false,
              .reached_at_syscall = false, .runs_no_instruction = false, .delivers_signal = false,
              .creates_thread = false, .starts_or_ends_thread = false, .can_close_trace = false,
              .follows_buffer_flush = true};
    case EventKind::Signal:
      return {.requires_registers = true, .replay_checks_registers = true, .reached_without_running = false,
              .reached_at_syscall = false, .runs_no_instruction = false, .delivers_signal = true,
              .creates_thread = false, .starts_or_ends_thread = false, .can_close_trace = false,
              .follows_buffer_flush = true};
    case EventKind::FatalSignal:
      return {.requires_registers = false, .replay_checks_registers = true, .reached_without_running = false,
              .reached_at_syscall = false, .runs_no_instruction = false, .delivers_signal = true,
              .creates_thread = false, .starts_or_ends_thread = false, .can_close_trace = false,
              .follows_buffer_flush = true};
    case EventKind::Exit:
      return {.requires_registers = false, .replay_checks_registers = false, .reached_without_running = true,
              .reached_at_syscall = false, .runs_no_instruction = true, .delivers_signal = false,
              .creates_thread = false, .starts_or_ends_thread = false, .can_close_trace = true,
              .follows_buffer_flush = false};
    case EventKind::Abort:
      return {.requires_registers = false, .replay_checks_registers = true, .reached_without_running = false,
              .reached_at_syscall = true, .runs_no_instruction = false, .delivers_signal = false,
              .creates_thread = false, .starts_or_ends_thread = false, .can_close_trace = true,
              .follows_buffer_flush = true};
    case EventKind::Position:
      return {.requires_registers = true, .replay_checks_registers = true, .reached_without_running = false,
              .reached_at_syscall = false, .runs_no_instruction = true, .delivers_signal = false,
              .creates_thread = false, .starts_or_ends_thread = false, .can_close_trace = false,
              .follows_buffer_flush = true};
    case EventKind::SyscallEntered:
      return {.requires_registers = true, .replay_checks_registers = true, .reached_without_running = false,
              .reached_at_syscall = true, .runs_no_instruction = true, .delivers_signal = false,
              .creates_thread = false, .starts_or_ends_thread = false, .can_close_trace = false,
              .follows_buffer_flush = true};
    case EventKind::ThreadStart:
      return {.requires_registers = true, .replay_checks_registers = false, .reached_without_running = true,
              .reached_at_syscall = false, .runs_no_instruction = true, .delivers_signal = false,
              .creates_thread = true, .starts_or_ends_thread = true, .can_close_trace = false,
              .follows_buffer_flush = false};
    case EventKind::ThreadExit:
      return {.requires_registers = false, .replay_checks_registers = false, .reached_without_running = true,
              .reached_at_syscall = false, .runs_no_instruction = true, .delivers_signal = false,
              .creates_thread = false, .starts_or_ends_thread = true, .can_close_trace = false,
              .follows_buffer_flush = true};
    case EventKind::ProcessStart:
      return {.requires_registers = true, .replay_checks_registers = false, .reached_without_running = true,
              .reached_at_syscall = false, .runs_no_instruction = true, .delivers_signal = false,
              .creates_thread = true, .starts_or_ends_thread = false, .can_close_trace = false,
              .follows_buffer_flush = false};
    case EventKind::BufferFlush:
      return {.requires_registers = false, .replay_checks_registers = false, .reached_without_running = true,
              .reached_at_syscall = false, .runs_no_instruction = true, .delivers_signal = false,
              .creates_thread = false, .starts_or_ends_thread = false, .can_close_trace = false,
              .follows_buffer_flush = false};
    case EventKind::TraceeChange:
      return {.requires_registers = false, .replay_checks_registers = false, .reached_without_running = true,
              .reached_at_syscall = false, .runs_no_instruction = true, .delivers_signal = false,
              .creates_thread = false, .starts_or_ends_thread = false, .can_close_trace = false,
              .follows_buffer_flush = true};
  }
  return {};  // not a kind: the decoder refuses any other value
}

const char* to_string(StoredState::Kind kind) {
  switch (kind) {
    case StoredState::Kind::Full: return "full";
    case StoredState::Kind::Incremental: return "incremental";
  }
  return "unknown";
}

const char* to_string(Codec codec) {
  switch (codec) {
    case Codec::Zstd: return "zstd";
    case Codec::Zlib: return "zlib";
    case Codec::Stored: return "stored";
  }
  return "unknown";
}

}  // namespace backstep::trace
