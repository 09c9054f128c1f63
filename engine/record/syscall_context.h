// One system call being recorded: the registers at entry and exit, the event
// being built, and the helpers family code uses to say what the kernel wrote.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "values/registers.h"
#include "engine/core/remote_ptr.h"
#include "engine/core/syscalls/syscall_table.h"
#include "engine/core/task.h"
#include "engine/trace/event.h"

namespace backstep {

class RecordSession;

// The recording cannot go on faithfully (an unsupported syscall, ioctl, ...).
// Thrown at syscall entry, before the kernel runs the call.
class RecordingRefused : public std::runtime_error {
 public:
  explicit RecordingRefused(const std::string& what) : std::runtime_error(what) {}
  // The registers at the entry of the refused call, when refused there: the
  // Abort event keeps them, so replay can run up to the call.
  std::optional<trace::RegBlock> at_entry;
  // The thread that made the call (the Abort event's), when refused at a
  // call: any thread of any process of the tree, not only the first.
  std::optional<pid_t> tid;
};

struct SyscallContext {
  RecordSession& session;
  Task& task;
  const sys::SyscallInfo& info;
  Registers entry;  // at the syscall-entry stop (possibly rewritten by enter())
  Registers exit;   // at the syscall-exit stop
  trace::Event event;
  // Set by enter() when it rewrote the call's arguments; exit() then sees
  // the rewritten entry registers, and replay compares against the original.
  bool entry_rewritten = false;
  // A call the recorder answers itself (emulate()): the kernel runs none,
  // and the exit stop is given this result.
  std::optional<int64_t> emulated_result;
  // Set by enter(): the call waits at its entry stop, unrun, until the
  // recorder answers it or lets the kernel run it (a wait for emulated
  // tracees, RecordSession::wake_tracers).
  bool held = false;
  // A traced thread's XSAVE area as it entered this call, kept where the
  // call blocks (RunState::InKernel): no ptrace request of the recorder's
  // can read it then, and its tracer's GETFPREGS and GETREGSET read this.
  std::vector<uint8_t> xstate_at_entry;
  // Its SyscallEntered event is in the trace already: written where its
  // tracer changed it at its syscall-entry stop (record_tracees.cc), so a
  // call that blocks writes none again.
  bool entered_written = false;
  // What a write-like call took from the program's memory (read once at the
  // exit stop; the echo of stdout/stderr and the trace's WrittenData use it).
  std::optional<std::vector<uint8_t>> written;

  uint64_t arg(int i) const { return entry.arg(i); }
  int64_t result() const { return exit.syscall_result(); }
  bool failed() const { return result() < 0 && result() > -4096; }

  // Records `len` bytes at `addr` as written by the kernel. Unreadable bytes
  // (a bad pointer the kernel rejected) are skipped.
  void record_memory(uint64_t addr, uint64_t len);
  // Records the first `total` bytes of the buffers of an iovec array.
  void record_iovecs(uint64_t iov_addr, uint64_t iovcnt, uint64_t total);
  // If the tracee's `fd` (any number) is the same file as backstep's stdout
  // or stderr, remembers `data` so that replay re-emits it there.
  void echo_if_stdio(int fd, std::vector<uint8_t> data);

  // At the entry stop: the kernel is given no call to run (number -1, which
  // it answers with -ENOSYS at once), and the exit shows `result` and the
  // call's own number, as if the kernel had run it.
  void emulate(int64_t result);
  // Writes into the calling task's memory what an emulated call outputs;
  // false where the address is not the task's to write (the kernel's
  // EFAULT). Not recorded: the spec's outputs or record_memory do that.
  bool write_output(uint64_t addr, const void* bytes, std::size_t len);

  [[noreturn]] void refuse(const std::string& why) const;
  // At the exit stop, for a call the kernel has run but whose effect cannot
  // be recorded: refuses with the entry registers, so that replay runs up
  // to the call and never past it.
  [[noreturn]] void refuse_after_call(const std::string& why) const;
};

// What the recorder does at a call's entry and exit beyond recording the
// spec's outputs. One per handler the spec names (`@NAME`), defined as
// `recorders::NAME` in the family's source file; a hook may be null.
struct SyscallRecorder {
  void (*enter)(SyscallContext&) = nullptr;
  void (*exit)(SyscallContext&) = nullptr;
};

// The handler the spec names for `nr`, or nullptr (the spec's outputs say
// everything). Generated from syscalls.spec (recorders.generated.cc): a
// handler the spec names but no family file defines fails the link.
const SyscallRecorder* syscall_recorder(long nr);

}  // namespace backstep
