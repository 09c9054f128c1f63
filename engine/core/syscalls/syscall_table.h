// The x86-64 system call table, generated at build time from syscalls.spec
// (the one place that says how each call's results are recorded).
#pragma once

#include <cstdint>
#include <span>

namespace backstep::sys {

// Which recording code owns a call. Each family has its own source file in
// engine/record/ (never one switch over every syscall).
enum class Family : uint8_t {
  Fs,        // files, directories, descriptors
  Mm,        // address space: brk, mmap, munmap, mprotect, mremap, madvise, ...
  Time,      // clocks and sleeping
  Identity,  // ids, limits, uname, sysinfo, resource usage
  Net,       // sockets
  Poll,      // poll/select/epoll/eventfd
  Signal,    // signal dispositions, masks, sending
  Process,   // process and thread lifecycle, arch_prctl, prctl, rseq, futex, ...
  Thread,    // clone of threads, futex, thread ids and exit words
  Ioctl,     // ioctl: per-request handling
  Misc,      // getrandom and the rest
};

const char* to_string(Family family);

// How many bytes an output parameter holds once the call succeeded.
enum class SizeKind : uint8_t {
  Fixed,     // `size` bytes
  Ret,       // the call's (non-negative) return value, in bytes
  RetTimes,  // return value * `size`
  Arg,       // the value of argument `size_arg`
  ArgTimes,  // the value of argument `size_arg` * `size`
  DerefArg,  // the int (4 bytes) argument `size_arg` points at, read after the call
  FdSet,     // select's fd_set: the int argument `size_arg` (nfds) rounded up to 64 bits, in bytes
};

// A pointer argument through which the kernel writes memory.
struct OutParam {
  uint8_t arg = 0;          // which argument (0..5) holds the pointer
  SizeKind size_kind = SizeKind::Fixed;
  uint8_t size_arg = 0;     // for Arg, ArgTimes, DerefArg
  uint32_t size = 0;        // for Fixed, RetTimes, ArgTimes
};

// What replay does with a call that shapes the address space, beyond the
// memory and registers it applies for every call (`replay=` in the spec;
// engine/replay/address_space.cc has one case each, and the build fails
// on a missing one).
enum class ReplayAction : uint8_t {
  None,            // nothing more
  Mmap,            // maps the recorded mapping
  Munmap,          // unmaps the range
  MapObject,       // maps the recorded mapping of a shared object (shmat, io_setup)
  UnmapObject,     // unmaps the extent the recorder noted (shmdt, io_destroy)
  StackRoom,       // reserves what a raised RLIMIT_STACK lets the stack grow into
  Brk,             // follows the recorded program break
  Mprotect,        // the call again, in the replayed process
  PkeyMprotect,    // the same
  PkeyAlloc,       // the same, expecting the recorded key
  PkeyFree,        // the same
  RemapFilePages,  // the same, on replay's shared mapping of the file
  Madvise,         // the same, for advice that changes memory
  Mremap,          // the same, to the recorded address
  ModifyLdt,       // the same, for writes to the LDT
  ArchPrctl,       // the same, for a permission to use extended state (AMX)
};

// Some of a call's operations, named by one argument (the spec's
// opN&MASK:V|V...): the argument's low 32 bits masked with `mask` must be
// one of `values`, a bit per value below 64.
struct OpSet {
  int8_t arg = -1;  // -1: every operation of the call
  uint32_t mask = 0;
  uint64_t values = 0;

  bool contains(uint64_t arg_value) const {
    uint64_t op = arg_value & mask;
    return op < 64 && ((values >> op) & 1) != 0;
  }
};

struct SyscallInfo {
  int nr = -1;
  const char* name = "";
  Family family = Family::Misc;
  bool supported = false;   // false: recording stops with a clear error
  bool custom = false;      // true: its handler (@NAME in the spec) records it (outs unused)
  uint8_t out_count = 0;
  OutParam outs[4] = {};  // Fixed ones are recorded even when the call fails
  // `buffer` in the spec: the preload library may perform the call itself
  // and append it to the thread's buffer (preload/preload_interface.h).
  bool bufferable = false;
  int8_t buffer_fd_arg = -1;  // bufferable and gated on this argument's descriptor
  bool buffer_closes = false;  // buffered, a success closes that descriptor
  bool buffer_block = false;   // buffered with the desched event armed (it may block)
  bool buffer_opens = false;   // buffered, a success returns a new descriptor, which the
                               // library puts into a gate (the record's `check` says which)
  // `blocks` in the spec: the call may wait for another thread or the
  // outside world (engine/record/blocking_calls.h), for the operations in
  // blocking_ops (all of them when its arg is -1).
  bool blocks = false;
  OpSet blocking_ops = {};
  ReplayAction replay = ReplayAction::None;
};

// nullptr for a number the spec does not list.
const SyscallInfo* lookup(long nr);

// Every entry of the spec, by increasing number.
std::span<const SyscallInfo> all_syscalls();

}  // namespace backstep::sys
