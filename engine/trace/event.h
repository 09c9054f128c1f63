// The trace schema: what one recorded event holds. This is the single place
// where the content of an event is defined; docs/trace-format.md describes its
// encoding. Nothing here depends on the engine: registers are stored as the
// kernel's `user_regs_struct` words, memory as (address, bytes).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "values/cpu_state.h"

namespace backstep::trace {

// Bumped whenever the encoding or the meaning of a field changes.
// The reader refuses any other version.
inline constexpr uint32_t kFormatVersion = 7;

// Registers as `user_regs_struct` words and CPUID leaves: plain values the
// engine shares, defined in values/cpu_state.h.
using backstep::CpuidLeaf;
using backstep::kRegWords;
using backstep::RegBlock;
using backstep::RegChange;

// Ranges of the values an event holds; the decoder refuses any other (and
// the writer refuses to write one), so that no consumer ever sees one.
// Signal numbers: 1 to SIGRTMAX.
inline constexpr int64_t kMaxSignal = 64;
// Thread ids: 1 to the kernel's PID_MAX_LIMIT.
inline constexpr uint32_t kMaxTid = 4u << 20;
// A Syscall event's `status` for a 32-bit call made with `int 0x80`:
// AUDIT_ARCH_I386 (engine/core/compat_syscalls.h has the same value).
inline constexpr int64_t kSyscallAbiI386 = 0x40000003;
// An XSAVE area: the legacy region and the XSAVE header at least, and far
// less than 64 KiB (AMX, the largest component so far, brings it to 11 KiB).
inline constexpr std::size_t kMinXstateSize = 512 + 64;
inline constexpr std::size_t kMaxXstateSize = 64 * 1024;

enum class EventKind : uint8_t {
  // An execve completed (the first is the trace's event 0): the whole
  // address space and registers of the thread `tid`.
  Exec = 1,
  // A system call: registers at entry, what it changed (registers, memory,
  // mappings), what it wrote to stdout/stderr.
  Syscall = 2,
  // An RDTSC/RDTSCP instruction trapped and emulated.
  Rdtsc = 3,
  // A signal delivered to a handler, or ignored: registers before, the
  // frame the kernel wrote, registers at handler entry.
  Signal = 4,
  // A signal that killed the process (default action), at the point it
  // was delivered.
  FatalSignal = 5,
  // A process exited; `status` is the wait(2) status, `tid` its pid. The
  // last process's Exit ends the trace.
  Exit = 6,
  // The recording stopped before the program ended (unsupported syscall,
  // internal error); `message` says why. Replay stops here too.
  Abort = 7,
  // A position the recorder chose inside user code, where no system call or
  // fault is (to deliver a signal that arrived while the program ran a loop
  // without system calls). `regs` and `position` identify it; it changes
  // nothing. See ForcedPosition.
  Position = 8,
  // Threads. The thread entered a system call that may block, and the
  // recorder let other threads run meanwhile: `regs` are its entry
  // registers. Its Syscall event (same entry registers, with the results)
  // comes later, when the recorder let it continue.
  SyscallEntered = 9,
  // A thread was created (clone): `tid` is the new thread, `regs` and
  // `xstate` its state at its first instruction, `status` the recorded tid of
  // the thread that created it. Follows the creator's clone Syscall event.
  ThreadStart = 10,
  // A thread (not the last one) ended: `writes` holds what the kernel wrote
  // as it died (the CLONE_CHILD_CLEARTID / set_tid_address word zeroed).
  ThreadExit = 11,
  // Process trees. A process was created (fork, vfork, clone without
  // CLONE_THREAD): `tid` is its pid (and its first thread), `regs` and
  // `xstate` its state at its first instruction, `status` the recorded tid
  // of the thread that created it, `clone_flags` the flags it was made with
  // (CLONE_VM: it shares its creator's memory until it execs or exits, as a
  // vfork child does), `writes` what the kernel wrote into the new process's
  // memory (CLONE_CHILD_SETTID), `mappings` notes of the creator's memory
  // that a fork did not copy (MappingKind::ForkWiped, ForkDropped). Follows
  // the creator's SyscallEntered (vfork) or Syscall event.
  ProcessStart = 12,
  // In-process syscall buffering (preload/preload_interface.h). The calls
  // thread `tid` made through its buffer since its previous event, written
  // before its next one: `writes` holds the records, at the buffer's data
  // area, and the header's used/cursor words (the byte count, 0). Replay
  // writes them back before the thread runs on, and the library in the
  // thread returns their results instead of calling the kernel.
  BufferFlush = 13,
  // ptrace between recorded processes (engine/record/ptrace_emulation.h):
  // a recorded tracer changed thread `tid` while it was stopped for it.
  // `writes` go into its process's memory (PTRACE_POKE*, /proc/PID/mem,
  // process_vm_writev); `regs`, when present, are its new registers
  // (PTRACE_SETREGS, PTRACE_POKEUSER). Replay applies them where the thread
  // stands, without running it; the thread's stop is an exact position
  // (its previous event, or a Position or Signal event written for it).
  TraceeChange = 14,
};

const char* to_string(EventKind kind);

// What the reader and replay ask about a kind of event. kind_traits() answers
// every question for every kind in one switch (event.cc), which the build
// turns into an error when it misses a kind or a field: a new kind, or a new
// question, does not compile until each answer is written down.
struct EventKindTraits {
  // The event always holds `regs`: the decoder refuses one without them.
  bool requires_registers;
  // Replay checks the live thread's registers against the event's `regs`
  // when it applies the event: they are the thread's own at that point. Not
  // so for a new thread or process (`regs` are where it starts), an exec
  // (the new program's), an ending thread or process, or a buffer flush
  // (none recorded).
  bool replay_checks_registers;
  // Replay applies the event without running the program to it: it happens
  // where the previous event left off (a thread or process starting or
  // ending, a buffer flush written back before the thread's next event). A
  // signal's delivery may be reached so too, but whether it is depends on
  // the signal (not a synchronous fault), not on its kind.
  bool reached_without_running;
  // When replay runs the thread to the event, it stops at a system call: a
  // call's entry or its return, an exec, or an Abort at the call the
  // recorder refused.
  bool reached_at_syscall;
  // Applying the event runs no instruction of its thread's, so a single
  // step goes on past it: a position, a thread or process starting or
  // ending, a buffer flush, or a blocking call's entry (the call's
  // instruction completes at its Syscall event, after other threads'
  // events). A signal's delivery runs none either, but a step stops at its
  // handler's first instruction, so it is not one of these.
  bool runs_no_instruction;
  // A signal reached the thread: `status` is its number and `siginfo` its
  // siginfo. Signal: delivered to a handler, or ignored; FatalSignal: it
  // killed the process.
  bool delivers_signal;
  // The event creates the thread `tid` (a new thread, or a new process's
  // first thread), which does not exist before it.
  bool creates_thread;
  // The event starts or ends one thread of a process that was there before
  // and stays after it (ThreadStart, ThreadExit); a whole process starting
  // or ending is not one.
  bool starts_or_ends_thread;
  // A trace that ran to its end closes with an event of this kind: the last
  // process's Exit, or an Abort (the recording stopped). One that stops
  // after any other kind was cut short.
  bool can_close_trace;
  // The recorder writes out the thread's buffered calls (a BufferFlush
  // event) before an event of this kind: the thread's own events. Not a
  // thread or process start (its tid is the new task, whose buffer may be
  // its creator's), an exec (the old program's buffer is gone with it) or a
  // process's Exit (written after its threads' ends), nor the flush itself.
  bool follows_buffer_flush;
};

EventKindTraits kind_traits(EventKind kind);

// Bytes the kernel (or the recorder) wrote into tracee memory.
struct MemoryWrite {
  uint64_t addr = 0;
  std::vector<uint8_t> data;
  bool operator==(const MemoryWrite&) const = default;
};

// Bytes a system call wrote into a file that has a shared object (a file
// some process maps MAP_SHARED, or past its end): replay writes them into
// the memory standing for the file, so that every mapping of it, in any
// process, shows them as the kernel's page cache did.
struct ObjectWrite {
  uint64_t object = 0;  // Mapping::shared_object
  uint64_t offset = 0;  // in the file
  std::vector<uint8_t> data;
  bool operator==(const ObjectWrite&) const = default;
};

enum class MappingKind : uint8_t {
  Anonymous = 1,  // private or shared anonymous memory
  File = 2,       // backed by a file copied into the trace (`file`)
  Stack = 3,      // the initial [stack]
  Heap = 4,       // [heap] (brk area)
  Vdso = 5,       // [vdso], contents in the event's memory writes
  Vvar = 6,       // [vvar]/[vvar_vclock]: placeholder, never read by the program
  Tool = 7,       // backstep's own page (remote syscalls), same in record and replay
  // Not a mapping: a size note on a Syscall event. After the call, the file
  // of MAP_SHARED object `shared_object` is `file_size` bytes long (replay
  // resizes the memory standing for it, so that accesses past its end fault
  // as they did).
  FileSize = 8,
  // Not mappings: on a ProcessStart event of a fork, ranges of the
  // creator's memory that the new process did not get as a copy. ForkWiped:
  // it got them zero-filled (MADV_WIPEONFORK); ForkDropped: it has nothing
  // there (MADV_DONTFORK).
  ForkWiped = 9,
  ForkDropped = 10,
};

struct Mapping {
  uint64_t start = 0;
  uint64_t end = 0;
  uint32_t prot = 0;     // PROT_* bits
  uint32_t flags = 0;    // MAP_* bits (MAP_PRIVATE/MAP_SHARED, ...)
  uint64_t offset = 0;   // file offset (File only)
  MappingKind kind = MappingKind::Anonymous;
  std::string file;      // trace-relative path of the copy (File only)
  std::string name;      // the name the recording host showed (for `dump`)
  // What the copy held when it was stored (File only): its size in bytes and
  // the XXH3-64 hash of its whole content. Replay refuses a copy that no
  // longer matches, since mapping it would show bytes that never existed.
  uint64_t file_size = 0;
  uint64_t file_hash = 0;
  // MAP_SHARED File mappings: which file (the recorder numbers each distinct
  // file from 1), so that replay maps every alias of it over the same memory.
  // Also System V segments (Anonymous, MAP_SHARED), numbered the same way.
  uint64_t shared_object = 0;
  bool operator==(const Mapping&) const = default;
};

// A file stored in the trace's `files/` (see TraceWriter::add_file).
struct StoredFile {
  std::string path;   // trace-relative, e.g. "files/libc.so.6-0"
  uint64_t size = 0;  // bytes
  uint64_t hash = 0;  // XXH3-64 of the content
};

// Data the program wrote to its original stdout (fd 1) or stderr (fd 2);
// replay re-emits it.
struct StdioEcho {
  int32_t fd = 1;
  std::vector<uint8_t> data;
  bool operator==(const StdioEcho&) const = default;
};

// The bytes a write-like system call (write, writev, pwrite, send, ...) took
// from the program's memory: replay reads them again at the same call and
// compares, so a program that computes other data than when it was recorded
// is reported even though replay never performs the write.
struct WrittenData {
  enum class Form : uint8_t {
    Bytes = 1,        // `bytes` holds all of them
    BlockHashes = 2,  // `block_hashes`: XXH3-64 of each 4096-byte block (the last may be short)
    Echoed = 3,       // they are the event's one StdioEcho, stored there
  };
  Form form = Form::Bytes;
  uint64_t size = 0;  // bytes the call consumed (its result)
  std::vector<uint8_t> bytes;
  std::vector<uint64_t> block_hashes;
  bool operator==(const WrittenData&) const = default;
};

// How replay recognises a Position event without a counter
// (shared/notes/counterless-progress.md §4), in one of two ways:
//  - counted (arrivals > 0): the arrivals-th arrival of the thread at the
//    instruction at `regs`' rip since its previous event (the recorder
//    counted them in the thread itself: engine/record/counted_handover.cc).
//    Exact, with nothing else to compare than the registers.
//  - by state: the first moment after the previous event at which the
//    registers equal the event's `regs` (eflags without RF and TF) and
//    `digest` equals the digest of the program's state
//    (engine/core/state_digest.h). Equal state means an equal future, so
//    the first match is as good as the moment the recorder stopped.
struct ForcedPosition {
  uint64_t digest = 0;
  // The recorder saw one pass through the loop at this address leave every
  // register and every byte of writable memory as they were: the program
  // stays in this state until something from outside (the signal) changes it.
  bool fixpoint = false;
  uint64_t arrivals = 0;
  bool counted() const { return arrivals > 0; }
  bool operator==(const ForcedPosition&) const = default;
};

// Stored states (below) are made of whole pages: every address and length
// in one is a multiple of this.
inline constexpr uint64_t kStatePageSize = 4096;

// Addresses [start, end), both multiples of kStatePageSize.
struct PageRange {
  uint64_t start = 0;
  uint64_t end = 0;
  bool operator==(const PageRange&) const = default;
};

// The program's state stored with a Position event found by state (neither
// counted nor a fixpoint), for a replay that would take too long to find
// the moment by running (engine/replay/replay_position.cc): the process's
// writable memory, as the digest sees it (every page not all zero), and
// the thread's XSAVE area (the event's `xstate`). The pages are the
// event's `writes`, page-aligned runs in address order, described by:
//  - Full: they are every page of the state that is not all zero.
//  - Incremental: the state is the one of event `base` (the process's
//    previous stored state) with the pages outside `ranges` gone, the
//    pages in `zeroed` all zero, and the pages in `writes` replaced or
//    added; every other page is as it was there. The recorder compares
//    page hashes (engine/record/forced_position.cc), so a state costs what
//    the program wrote since, not what it holds.
struct StoredState {
  enum class Kind : uint8_t { Full = 1, Incremental = 2 };
  Kind kind = Kind::Full;
  uint64_t base = 0;              // Incremental: its base state's event number (Full: 0)
  std::vector<PageRange> ranges;  // the process's writable memory there, in address order
  std::vector<PageRange> zeroed;  // Incremental: pages of the base state all zero now
  bool operator==(const StoredState&) const = default;
};
const char* to_string(StoredState::Kind kind);

struct Event {
  EventKind kind = EventKind::Syscall;
  uint32_t tid = 0;                          // recorded thread id
  std::optional<RegBlock> regs;              // registers when the event happened
  std::vector<RegChange> reg_changes;        // registers the event changed
  std::vector<MemoryWrite> writes;           // memory the event wrote
  std::vector<ObjectWrite> object_writes;    // Syscall: what it wrote into mapped files
  std::vector<uint8_t> xstate;               // XSAVE area after the event (may be empty)
  std::vector<Mapping> mappings;             // Exec: whole address space; mmap-like: new mapping
  std::vector<uint8_t> siginfo;              // Signal/FatalSignal: 128-byte siginfo_t
  std::vector<StdioEcho> echoes;             // stdout/stderr output of this event
  std::optional<WrittenData> written;        // Syscall: what a write-like call wrote
  std::optional<ForcedPosition> position;    // Position: how replay finds it
  std::optional<StoredState> stored_state;   // Position: the state there (with writes, xstate)
  int64_t status = 0;                        // Exit: wait status; Signal/FatalSignal: signal number;
                                             // Exec: the initial program break (start_brk);
                                             // ThreadStart/ProcessStart: the creating thread
  std::string message;                       // Abort: why the recording stopped; Exec: the
                                             // executable's path (empty: the header's exe)
  std::vector<std::string> argv;             // Exec: the program's arguments (empty: the header's)
  uint64_t clone_flags = 0;                  // ProcessStart: the clone flags
  bool operator==(const Event&) const = default;
};

// Stored: a chunk of data that does not compress (what the writer found by
// compressing a sample of it), kept as it is. Never a header's choice.
enum class Codec : uint8_t { Zstd = 1, Zlib = 2, Stored = 3 };
const char* to_string(Codec codec);

// The trace header: written once at the start of a recording.
struct Header {
  uint32_t format_version = kFormatVersion;
  std::string backstep_version;
  std::vector<std::string> argv;     // command line as given to `record`
  std::vector<std::string> envp;     // environment of the tracee
  std::string cwd;                   // working directory of the tracee
  std::string exe;                   // resolved path of the executable
  std::vector<CpuidLeaf> cpuid;      // recording CPU's features
  std::string counter_mode;          // "none" (counter-less) or a counter name
  Codec codec = Codec::Zstd;         // codec of the event stream
  uint64_t start_time_ns = 0;        // CLOCK_REALTIME at start (informational)
  int32_t recorded_cpu = -1;         // CPU the tracee was pinned to
  // Recorded with CPUID faulting (record --cpuid-faulting): every cpuid
  // trapped and was answered by the recorder; replay makes it trap too.
  bool cpuid_faulting = false;
  // Recorded with record --chaos: the seed of its random scheduling
  // (informational: replay follows the events, whatever the schedule).
  std::optional<uint64_t> chaos_seed;
  bool operator==(const Header&) const = default;
};

}  // namespace backstep::trace
