// Typed RSP requests: one small struct per packet, all held in the Request
// variant. parse_request() turns a decoded payload (see framing.h) into one of
// them, into Unknown for a packet it does not know (answer with the empty
// packet), or into a ParseError for a known packet that is malformed (answer
// with an E reply). It never throws and never reads outside the payload.
//
// Conventions: numbers are hex on the wire and plain integers here; byte
// strings sent as hex (M, G, P, vRun, qRcmd, file names) arrive decoded;
// binary data (X, vFile:pwrite, qXfer write) arrives as the framing left it,
// already unescaped. Signals are GDB's numbering, not Linux's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "gdbserver/rsp/hex.h"
#include "gdbserver/rsp/thread_id.h"

namespace backstep::rsp {

// The packets that take no arguments derive from this, for their ==.
struct NoArguments {
  bool operator==(const NoArguments&) const = default;
};

// ---- Connection set-up -----------------------------------------------------

// One entry of qSupported's list: "name+", "name-", "name?" or "name=value".
struct SupportedFeature {
  enum class State : std::uint8_t { Supported, Unsupported, Query, Value };
  std::string name;
  State state = State::Supported;
  std::string value;  // only for State::Value
  bool operator==(const SupportedFeature&) const = default;
};
struct QuerySupported {  // qSupported[:features]
  std::vector<SupportedFeature> features;
  bool supports(std::string_view name) const;  // sent as "name+"
  std::optional<std::string_view> value_of(std::string_view name) const;
  bool operator==(const QuerySupported&) const = default;
};
struct MustReplyEmpty : NoArguments {};          // vMustReplyEmpty
struct StartNoAckMode : NoArguments {};          // QStartNoAckMode
struct EnableExtendedMode : NoArguments {};      // !
struct ThreadSuffixSupported : NoArguments {};   // QThreadSuffixSupported
struct ListThreadsInStopReply : NoArguments {};  // QListThreadsInStopReply
struct EnableErrorStrings : NoArguments {};      // QEnableErrorStrings
struct SetNonStop {                              // QNonStop:0|1
  bool enabled = false;
  bool operator==(const SetNonStop&) const = default;
};

// ---- Queries ---------------------------------------------------------------

struct QueryStopReason : NoArguments {};  // ?
struct QueryAttached {                    // qAttached[:pid]
  std::optional<std::int64_t> pid;
  bool operator==(const QueryAttached&) const = default;
};
struct QueryOffsets : NoArguments {};      // qOffsets
struct QueryTraceStatus : NoArguments {};  // qTStatus
struct QueryHostInfo : NoArguments {};     // qHostInfo
struct QueryProcessInfo : NoArguments {};  // qProcessInfo
struct QueryMemoryRegion {                 // qMemoryRegionInfo:<addr>
  std::uint64_t addr = 0;
  bool operator==(const QueryMemoryRegion&) const = default;
};
struct QueryWatchpointSupport : NoArguments {};  // qWatchpointSupportInfo[:]
// lldb: where the dynamic linker's r_debug pointer lives (DT_DEBUG's value).
struct QueryShlibInfoAddr : NoArguments {};  // qShlibInfoAddr
struct QueryRegisterInfo {                       // qRegisterInfo<regnum>
  std::uint32_t regnum = 0;
  bool operator==(const QueryRegisterInfo&) const = default;
};
struct QuerySymbol {  // qSymbol:[value]:[hex name]; "qSymbol::" = ready to look symbols up
  std::optional<std::uint64_t> value;
  std::string name;
  bool operator==(const QuerySymbol&) const = default;
};
struct MonitorCommand {  // qRcmd,<hex command>
  std::string command;
  bool operator==(const MonitorCommand&) const = default;
};

// ---- Threads ---------------------------------------------------------------

struct QueryCurrentThread : NoArguments {};  // qC
struct ThreadInfoFirst : NoArguments {};     // qfThreadInfo
struct ThreadInfoNext : NoArguments {};      // qsThreadInfo
struct ThreadsInfoJson : NoArguments {};     // jThreadsInfo
struct ThreadAlive {                         // T<id>
  ThreadId thread;
  bool operator==(const ThreadAlive&) const = default;
};
struct ThreadExtraInfo {  // qThreadExtraInfo,<id>
  ThreadId thread;
  bool operator==(const ThreadExtraInfo&) const = default;
};
struct QueryTlsAddress {  // qGetTLSAddr:<id>,<offset>,<link map>
  ThreadId thread;
  std::uint64_t offset = 0;    // of the variable in its module's TLS block
  std::uint64_t link_map = 0;  // the module's struct link_map
  bool operator==(const QueryTlsAddress&) const = default;
};
struct SetThread {  // Hg<id> (registers, memory) / Hc<id> (legacy resume)
  enum class Purpose : std::uint8_t { General, Resume };
  Purpose purpose = Purpose::General;
  ThreadId thread;
  bool operator==(const SetThread&) const = default;
};

// ---- Registers (thread: lldb's ";thread:<id>;" suffix) --------------------

struct ReadRegisters {  // g
  std::optional<ThreadId> thread;
  bool operator==(const ReadRegisters&) const = default;
};
struct WriteRegisters {  // G<hex>
  Bytes data;
  std::optional<ThreadId> thread;
  bool operator==(const WriteRegisters&) const = default;
};
struct ReadRegister {  // p<regnum>
  std::uint32_t regnum = 0;
  std::optional<ThreadId> thread;
  bool operator==(const ReadRegister&) const = default;
};
struct WriteRegister {  // P<regnum>=<hex>
  std::uint32_t regnum = 0;
  Bytes value;
  std::optional<ThreadId> thread;
  bool operator==(const WriteRegister&) const = default;
};
struct SaveRegisterState {  // QSaveRegisterState
  std::optional<ThreadId> thread;
  bool operator==(const SaveRegisterState&) const = default;
};
struct RestoreRegisterState {  // QRestoreRegisterState:<decimal id>
  std::uint64_t save_id = 0;
  std::optional<ThreadId> thread;
  bool operator==(const RestoreRegisterState&) const = default;
};

// ---- Memory ----------------------------------------------------------------

struct ReadMemory {  // m<addr>,<len>: reply in hex
  std::uint64_t addr = 0;
  std::uint64_t length = 0;
  bool operator==(const ReadMemory&) const = default;
};
struct ReadMemoryBinary {  // x<addr>,<len>: reply in binary
  std::uint64_t addr = 0;
  std::uint64_t length = 0;
  bool operator==(const ReadMemoryBinary&) const = default;
};
struct WriteMemory {  // M<addr>,<len>:<hex>; data.size() == len
  std::uint64_t addr = 0;
  Bytes data;
  bool operator==(const WriteMemory&) const = default;
};
struct WriteMemoryBinary {  // X<addr>,<len>:<binary>; "X<addr>,0:" probes support
  std::uint64_t addr = 0;
  Bytes data;
  bool operator==(const WriteMemoryBinary&) const = default;
};
struct AllocateMemory {  // _M<size>,<permissions "rwx" subset>
  std::uint64_t size = 0;
  std::string permissions;
  bool operator==(const AllocateMemory&) const = default;
};
struct DeallocateMemory {  // _m<addr>
  std::uint64_t addr = 0;
  bool operator==(const DeallocateMemory&) const = default;
};
struct SearchMemory {  // qSearch:memory:<addr>;<length>;<binary pattern>
  std::uint64_t addr = 0;
  std::uint64_t length = 0;
  Bytes pattern;  // at least one byte
  bool operator==(const SearchMemory&) const = default;
};

// ---- Breakpoints and watchpoints -------------------------------------------

enum class BreakpointType : std::uint8_t {
  Software = 0,     // Z0
  Hardware = 1,     // Z1
  WriteWatch = 2,   // Z2
  ReadWatch = 3,    // Z3
  AccessWatch = 4,  // Z4
};
struct BreakpointSpec {
  BreakpointType type = BreakpointType::Software;
  std::uint64_t addr = 0;
  std::uint64_t kind = 0;  // breakpoint: instruction size; watchpoint: length
  std::string conditions;  // everything after the first ';', uninterpreted
  bool operator==(const BreakpointSpec&) const = default;
};
struct InsertBreakpoint {  // Z<type>,<addr>,<kind>[;...]
  BreakpointSpec spec;
  bool operator==(const InsertBreakpoint&) const = default;
};
struct RemoveBreakpoint {  // z<type>,<addr>,<kind>[;...]
  BreakpointSpec spec;
  bool operator==(const RemoveBreakpoint&) const = default;
};

// ---- Execution -------------------------------------------------------------

struct VContAction {
  enum class Kind : std::uint8_t { Continue, ContinueSignal, Step, StepSignal, Stop, RangeStep };
  Kind kind = Kind::Continue;
  int signal = 0;                 // ContinueSignal, StepSignal
  std::uint64_t range_start = 0;  // RangeStep: step while start <= pc < end
  std::uint64_t range_end = 0;
  std::optional<ThreadId> thread;  // absent: the default action for other threads
  bool operator==(const VContAction&) const = default;
};
struct VContQuery : NoArguments {};  // vCont?
struct VCont {                       // vCont;<action>[:<id>]... (at least one action)
  std::vector<VContAction> actions;
  bool operator==(const VCont&) const = default;
};
struct Continue {  // c[addr]
  std::optional<std::uint64_t> addr;
  bool operator==(const Continue&) const = default;
};
struct ContinueWithSignal {  // C<sig>[;addr]
  int signal = 0;
  std::optional<std::uint64_t> addr;
  bool operator==(const ContinueWithSignal&) const = default;
};
struct Step {  // s[addr]
  std::optional<std::uint64_t> addr;
  bool operator==(const Step&) const = default;
};
struct StepWithSignal {  // S<sig>[;addr]
  int signal = 0;
  std::optional<std::uint64_t> addr;
  bool operator==(const StepWithSignal&) const = default;
};
struct ReverseContinue : NoArguments {};  // bc
struct ReverseStep : NoArguments {};      // bs
struct Kill : NoArguments {};             // k
struct VKill {                            // vKill[;pid]
  std::optional<std::int64_t> pid;
  bool operator==(const VKill&) const = default;
};
struct Detach {  // D[;pid]
  std::optional<std::int64_t> pid;
  bool operator==(const Detach&) const = default;
};
struct VRun {  // vRun;<hex program>[;<hex arg>]...; program "" = the default one
  std::string program;
  std::vector<std::string> args;
  bool operator==(const VRun&) const = default;
};

// ---- Signals, syscalls and the environment of the next vRun ----------------

struct PassSignals {  // QPassSignals:<sig>[;<sig>]...
  std::vector<int> signals;
  bool operator==(const PassSignals&) const = default;
};
struct ProgramSignals {  // QProgramSignals:<sig>[;<sig>]...
  std::vector<int> signals;
  bool operator==(const ProgramSignals&) const = default;
};
struct CatchSyscalls {  // QCatchSyscalls:0 | QCatchSyscalls:1[;<nr>]...
  bool enabled = false;
  std::vector<std::uint64_t> numbers;  // empty while enabled: every syscall
  bool operator==(const CatchSyscalls&) const = default;
};
struct DisableRandomization {  // QDisableRandomization:0|1
  bool disable = false;
  bool operator==(const DisableRandomization&) const = default;
};
struct StartupWithShell {  // QStartupWithShell:0|1
  bool enabled = false;
  bool operator==(const StartupWithShell&) const = default;
};
struct EnvironmentReset : NoArguments {};  // QEnvironmentReset
struct EnvironmentHexEncoded {             // QEnvironmentHexEncoded:<hex "NAME=VALUE">
  std::string assignment;
  bool operator==(const EnvironmentHexEncoded&) const = default;
};
struct SetWorkingDir {  // QSetWorkingDir:[hex dir]; "" = the server's default
  std::string path;
  bool operator==(const SetWorkingDir&) const = default;
};

// ---- Object transfers (qXfer) ----------------------------------------------

enum class XferObject : std::uint8_t { Features, Auxv, ExecFile, Siginfo, Threads, LibrariesSvr4 };
struct XferRead {  // qXfer:<object>:read:<annex>:<offset>,<length>
  XferObject object = XferObject::Features;
  std::string annex;  // as sent: "target.xml", a hex pid, "" ...
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  bool operator==(const XferRead&) const = default;
};
struct XferWrite {  // qXfer:siginfo:write:<annex>:<offset>:<binary>
  XferObject object = XferObject::Siginfo;
  std::string annex;
  std::uint64_t offset = 0;
  Bytes data;
  bool operator==(const XferWrite&) const = default;
};

// ---- Host I/O (vFile); numbers are hex, GDB's File-I/O flag values ---------

struct FileSetFs {  // vFile:setfs:<pid>; 0 = the server's own filesystem
  std::int64_t pid = 0;
  bool operator==(const FileSetFs&) const = default;
};
struct FileOpen {  // vFile:open:<hex path>,<flags>,<mode>
  std::string path;
  std::uint64_t flags = 0;
  std::uint64_t mode = 0;
  bool operator==(const FileOpen&) const = default;
};
struct FileClose {  // vFile:close:<fd>
  std::int64_t fd = 0;
  bool operator==(const FileClose&) const = default;
};
struct FilePread {  // vFile:pread:<fd>,<count>,<offset>
  std::int64_t fd = 0;
  std::uint64_t count = 0;
  std::uint64_t offset = 0;
  bool operator==(const FilePread&) const = default;
};
struct FilePwrite {  // vFile:pwrite:<fd>,<offset>,<binary>
  std::int64_t fd = 0;
  std::uint64_t offset = 0;
  Bytes data;
  bool operator==(const FilePwrite&) const = default;
};
struct FileFstat {  // vFile:fstat:<fd>
  std::int64_t fd = 0;
  bool operator==(const FileFstat&) const = default;
};
struct FileUnlink {  // vFile:unlink:<hex path>
  std::string path;
  bool operator==(const FileUnlink&) const = default;
};
struct FileReadlink {  // vFile:readlink:<hex path>
  std::string path;
  bool operator==(const FileReadlink&) const = default;
};

// A packet this layer does not know; the server answers "".
struct Unknown {
  std::string name;  // "qFoo", "qXfer:memory-map:read", "vFile:stat", "A"
  bool operator==(const Unknown&) const = default;
};

using Request =
    std::variant<QuerySupported, MustReplyEmpty, StartNoAckMode, EnableExtendedMode,
                 ThreadSuffixSupported, ListThreadsInStopReply, EnableErrorStrings, SetNonStop,
                 QueryStopReason, QueryAttached, QueryOffsets, QueryTraceStatus, QueryHostInfo,
                 QueryProcessInfo, QueryMemoryRegion, QueryWatchpointSupport, QueryShlibInfoAddr, QueryRegisterInfo,
                 QuerySymbol, MonitorCommand, QueryCurrentThread, ThreadInfoFirst, ThreadInfoNext,
                 ThreadsInfoJson, ThreadAlive, ThreadExtraInfo, QueryTlsAddress, SetThread, ReadRegisters,
                 WriteRegisters, ReadRegister, WriteRegister, SaveRegisterState,
                 RestoreRegisterState, ReadMemory, ReadMemoryBinary, WriteMemory, WriteMemoryBinary,
                 AllocateMemory, DeallocateMemory, SearchMemory, InsertBreakpoint, RemoveBreakpoint, VContQuery,
                 VCont, Continue, ContinueWithSignal, Step, StepWithSignal, ReverseContinue,
                 ReverseStep, Kill, VKill, Detach, VRun, PassSignals, ProgramSignals, CatchSyscalls,
                 DisableRandomization, StartupWithShell, EnvironmentReset, EnvironmentHexEncoded,
                 SetWorkingDir, XferRead, XferWrite, FileSetFs, FileOpen, FileClose, FilePread,
                 FilePwrite, FileFstat, FileUnlink, FileReadlink, Unknown>;

// A known packet whose arguments do not parse. `what` names the packet and
// the problem: "m: expected ',' after the address".
struct ParseError {
  std::string what;
  bool operator==(const ParseError&) const = default;
};

using ParseResult = std::variant<Request, ParseError>;

ParseResult parse_request(std::string_view payload);

// Every packet name the parser knows, in table order (for tests and docs).
std::vector<std::string_view> known_packet_names();

// The object's name on the wire: XferObject::LibrariesSvr4 -> "libraries-svr4".
std::string_view to_string(XferObject object);

}  // namespace backstep::rsp
