// Reply payloads. Each function returns the payload, unescaped and unframed:
// hand it to encode_packet() (framing.h), which escapes and adds "$...#cs".
// Binary content (qXfer chunks, x replies, vFile data) is placed raw here and
// escaped there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "gdbserver/rsp/hex.h"
#include "gdbserver/rsp/request.h"
#include "gdbserver/rsp/thread_id.h"

namespace backstep::rsp {

// ---- Generic ---------------------------------------------------------------

std::string ok();     // "OK"
std::string empty();  // "": the packet (or this form of it) is not supported

// The numbers in E replies. gdb shows them but does not interpret them; they
// follow Linux errno values so that a number in a log means something.
enum class ErrorCode : std::uint8_t {
  Failed = 0x01,           // the operation failed and nothing below says better
  NoSuchThread = 0x03,     // the thread or process named does not exist (H, T, qThreadExtraInfo)
  NotWritable = 0x0d,      // memory or registers cannot change here (e.g. outside a diversion)
  NotReadable = 0x0e,      // not a single byte of the requested memory could be read
  InvalidArgument = 0x16,  // the packet was malformed or its arguments out of range
  LimitReached = 0x18,     // a per-client limit (checkpoints, packet size) is reached (EMFILE)
  NoSpace = 0x1c,          // no hardware slot left for a breakpoint or watchpoint
  NotSupported = 0x26,     // a supported packet asked for something this server never does
};

std::string error(ErrorCode code);  // "E16"
// lldb's form once it sent QEnableErrorStrings: "E16;<hex message>".
std::string error(ErrorCode code, std::string_view message);

// ---- Stop replies ----------------------------------------------------------

struct SoftwareBreak {};  // "swbreak:;" (only if the client sent swbreak+)
struct HardwareBreak {};  // "hwbreak:;"
struct Watchpoint {
  enum class Access : std::uint8_t { Write, Read, ReadWrite };  // watch / rwatch / awatch
  Access access = Access::Write;
  std::uint64_t addr = 0;
};
struct HistoryBoundary {  // "replaylog:begin;" / "replaylog:end;"
  enum class Edge : std::uint8_t { Begin, End };
  Edge edge = Edge::Begin;
};
struct SyscallEntry {  // "syscall_entry:<nr>;"
  std::uint64_t number = 0;
};
struct SyscallReturn {  // "syscall_return:<nr>;"
  std::uint64_t number = 0;
};
struct Exec {  // "exec:<hex of the path>;" (gdb, with exec-events+); lldb: "reason:exec;"
  std::string path;
  bool lldb = false;
};
struct Fork {  // "fork:p<pid>.<tid>;" or "vfork:...;" (fork-events+ / vfork-events+)
  ThreadId child;
  bool vfork = false;
};
struct VforkDone {};  // "vforkdone:;": the vfork child has exec'd or exited
using StopReason = std::variant<std::monostate, SoftwareBreak, HardwareBreak, Watchpoint,
                                HistoryBoundary, SyscallEntry, SyscallReturn, Exec, Fork, VforkDone>;

// A register value sent along with a stop, so the client need not ask: "n:value;".
struct ExpeditedRegister {
  std::uint32_t regnum = 0;
  std::string value;  // hex, as register_value() / register_bytes() make it
};

struct StopReply {
  int signal = 0;  // GDB signal number
  std::optional<ThreadId> thread;
  StopReason reason;
  std::vector<ExpeditedRegister> registers;
  std::optional<int> core;
  // lldb after QListThreadsInStopReply: every thread and, in the same order,
  // its pc. Both are left out when empty.
  std::vector<ThreadId> threads;
  std::vector<std::uint64_t> thread_pcs;
};

// "T05thread:p1a.1b;swbreak:;6:...;core:2;"
std::string stop_reply(const StopReply& stop);
// The process exited with `status`: "W00" or "W00;process:1a".
std::string exited(int status, std::optional<std::int64_t> pid = std::nullopt);
// The process was killed by `signal` (GDB number): "X09" or "X09;process:1a".
std::string terminated(int signal, std::optional<std::int64_t> pid = std::nullopt);

// ---- Threads ---------------------------------------------------------------

// qfThreadInfo / qsThreadInfo: "m<id>,<id>..." or "l" once nothing is left.
std::string thread_list(std::span<const ThreadId> threads);
// qC: "QC<id>".
std::string current_thread(const ThreadId& thread);

// ---- Registers and memory --------------------------------------------------

// `value` as `size` little-endian bytes in hex (rip = 0x401000, 8 -> "0010400000000000").
std::string register_value(std::uint64_t value, std::size_t size);
std::string register_bytes(std::span<const std::uint8_t> bytes);
// "xx" for each byte of a register that has no value.
std::string unavailable_register(std::size_t size);

// m: the bytes in hex.
std::string memory_hex(std::span<const std::uint8_t> bytes);
// x: raw bytes. gdb >= 16 after binary-upload+ wants a 'b' first; lldb
// (after "x0,0" -> OK) wants none.
enum class BinaryMemoryStyle : std::uint8_t { GdbPrefixed, Lldb };
std::string memory_binary(std::span<const std::uint8_t> bytes, BinaryMemoryStyle style);

// ---- Console, transfers, host I/O ------------------------------------------

// "O<hex text>": output for the user (qRcmd replies send several, then OK).
std::string console_output(std::string_view text);

// One qXfer read reply over the whole `object`: 'm' + the bytes at
// [offset, offset + length) when more follow, 'l' + them when they reach the
// end, a bare "l" when offset is at or past the end.
std::string xfer_chunk(std::string_view object, std::uint64_t offset, std::uint64_t length);

std::string file_result(std::int64_t result);  // "F<hex>", "F-1" (no errno)
std::string file_error(int gdb_errno);         // "F-1,<hex errno>" (GDB File-I/O errno)
// vFile:pread: "F<hex byte count>;<raw bytes>".
std::string file_data(std::string_view bytes);

// ---- Key-value replies -----------------------------------------------------

// qSupported: "PacketSize=20000;QStartNoAckMode+;...".
std::string supported_features(std::span<const SupportedFeature> features);

// qHostInfo, qProcessInfo, qWatchpointSupportInfo: "key:value;" each.
std::string key_values(std::span<const std::pair<std::string_view, std::string>> pairs);

// qMemoryRegionInfo: "start:<hex>;size:<hex>;permissions:rx;name:<hex>;".
// Empty permissions leave the key out, as lldb-server does: lldb then takes
// the range as unmapped (an address in no mapping, or a PROT_NONE guard).
struct MemoryRegion {
  std::uint64_t start = 0;
  std::uint64_t size = 0;
  std::string permissions;  // a subset of "rwx", in that order
  std::optional<std::string> name;
};
std::string memory_region(const MemoryRegion& region);

}  // namespace backstep::rsp
