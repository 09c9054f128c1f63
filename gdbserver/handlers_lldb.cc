// The packets of lldb's dialect (lldb-server's extensions to the protocol):
// host and process identity, the dynamic linker's r_debug slot, memory
// regions, error strings. gdb sends none of them; docs/protocol.md, "lldb".
#include <limits>
#include <utility>

#include "gdbserver/gdb_session.h"
#include "gdbserver/rsp/hex.h"

namespace backstep::gdb {
namespace {

constexpr std::string_view kTriple = "x86_64-pc-linux-gnu";

// What both qHostInfo and qProcessInfo say about the machine: the recording
// is of an x86-64 Linux program whatever host replays it.
std::vector<std::pair<std::string_view, std::string>> machine_keys() {
  return {{"triple", rsp::hex_encode(kTriple)},
          {"ostype", "linux"},
          {"vendor", "pc"},
          {"endian", "little"},
          {"ptrsize", "8"}};
}

std::string_view default_text(rsp::ErrorCode code) {
  switch (code) {
    case rsp::ErrorCode::Failed: return "the operation failed";
    case rsp::ErrorCode::NoSuchThread: return "no such thread in the replayed process";
    case rsp::ErrorCode::NotWritable: return "a replay cannot change the recorded memory or registers";
    case rsp::ErrorCode::NotReadable: return "memory not readable";
    case rsp::ErrorCode::InvalidArgument: return "invalid argument";
    case rsp::ErrorCode::LimitReached: return "a per-client limit is reached";
    case rsp::ErrorCode::NoSpace: return "no hardware debug register left";
    case rsp::ErrorCode::NotSupported: return "not supported by backstep";
  }
  return "error";
}

}  // namespace

std::string GdbSession::error_reply(rsp::ErrorCode code, std::string_view message) const {
  if (!error_strings_) return rsp::error(code);
  return rsp::error(code, message.empty() ? default_text(code) : message);
}

void GdbSession::handle(const rsp::QueryHostInfo&) {
  mark_lldb();
  auto keys = machine_keys();
  // x86 debug registers trap after the access; lldb then need not step
  // over the instruction again to see its effect.
  keys.emplace_back("watchpoint_exceptions_received", "after");
  reply(rsp::key_values(keys));
}

void GdbSession::handle(const rsp::QueryProcessInfo&) {
  mark_lldb();
  // The pid every thread id names (wire_pid: not one a local process can have).
  auto keys = machine_keys();
  keys.insert(keys.begin(), {"pid", rsp::hex_number(static_cast<std::uint64_t>(wire_pid()))});
  reply(rsp::key_values(keys));
}

void GdbSession::handle(const rsp::QueryShlibInfoAddr&) {
  // lldb reads r_debug's address from this slot. Without the answer it
  // takes the svr4 list's main-lm for r_debug and finds no libraries.
  std::optional<uint64_t> slot = target_.debug_pointer_address();
  if (!slot) {
    reply(error_reply(rsp::ErrorCode::NotSupported, "the program has no DT_DEBUG entry (statically linked?)"));
    return;
  }
  reply(rsp::hex_number(*slot));
}

void GdbSession::handle(const rsp::QueryMemoryRegion& r) {
  // As lldb-server: the mapping that holds the address, else the gap
  // around it (no permissions: lldb takes it as unmapped).
  uint64_t gap_start = 0;
  for (const MemoryMapping& m : target_.memory_map()) {
    if (r.addr < m.start) {
      reply(rsp::memory_region({gap_start, m.start - gap_start, "", std::nullopt}));
      return;
    }
    if (r.addr < m.end) {
      std::string permissions;
      if (m.readable) permissions += 'r';
      if (m.writable) permissions += 'w';
      if (m.executable) permissions += 'x';
      std::optional<std::string> name;
      if (!m.name.empty()) name = m.name;
      reply(rsp::memory_region({m.start, m.end - m.start, permissions, name}));
      return;
    }
    gap_start = m.end;
  }
  reply(rsp::memory_region({gap_start, std::numeric_limits<uint64_t>::max() - gap_start, "", std::nullopt}));
}

}  // namespace backstep::gdb
