// Names of the schema's enums, for messages and `backstep dump`.
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
  }
  return "unknown";
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
