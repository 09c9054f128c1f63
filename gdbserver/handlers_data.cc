// Registers, memory, breakpoints and watchpoints.
#include "gdbserver/gdb_session.h"
#include "gdbserver/rsp/hex.h"

namespace backstep::gdb {

std::string GdbSession::register_hex(std::size_t regnum, const Registers& regs, const std::vector<uint8_t>& xsave) {
  std::optional<std::vector<uint8_t>> value = register_value(registers_, regnum, regs, xsave);
  if (!value) return rsp::unavailable_register(register_size(registers_, regnum));
  return rsp::register_bytes(*value);
}

void GdbSession::handle(const rsp::ReadRegisters& r) {
  pid_t tid = register_thread(r.thread);
  if (tid == 0) {
    reply(error_reply(rsp::ErrorCode::NoSuchThread));
    return;
  }
  Registers regs = target_.registers(tid);
  std::vector<uint8_t> xsave = target_.xstate(tid);
  std::string out;
  for (std::size_t n = 0; n < registers_.count(); ++n) out += register_hex(n, regs, xsave);
  reply(out);
}

void GdbSession::handle(const rsp::ReadRegister& r) {
  if (register_size(registers_, r.regnum) == 0) {
    reply(error_reply(rsp::ErrorCode::InvalidArgument));
    return;
  }
  pid_t tid = register_thread(r.thread);
  if (tid == 0) {
    reply(error_reply(rsp::ErrorCode::NoSuchThread));
    return;
  }
  reply(register_hex(r.regnum, target_.registers(tid), target_.xstate(tid)));
}

// A replay cannot change the past: registers stay as recorded until
// function calls during replay (diversions) exist. A write is accepted only
// where it changes nothing, so that nobody is told OK for a change that did
// not happen:
// - the value the register already holds (gdb writes back what it read);
// - -1 into orig_rax. gdb's amd64 Linux support writes it with every pc
//   write, so that the kernel does not restart an interrupted system call
//   at the new pc; in a replay the kernel restarts nothing (system calls
//   are replayed from the recording), so -1 there is already the truth.
bool GdbSession::write_changes_nothing(std::size_t regnum, const std::vector<uint8_t>& value, const Registers& regs,
                                       const std::vector<uint8_t>& xsave) {
  if (regnum == kRegOrigRax && value == std::vector<uint8_t>(8, 0xff)) return true;
  std::optional<std::vector<uint8_t>> now = register_value(registers_, regnum, regs, xsave);
  return now && *now == value;
}

void GdbSession::handle(const rsp::WriteRegisters& r) {
  pid_t tid = register_thread(r.thread);
  if (tid == 0) {
    reply(error_reply(rsp::ErrorCode::NoSuchThread));
    return;
  }
  Registers regs = target_.registers(tid);
  std::vector<uint8_t> xsave = target_.xstate(tid);
  std::size_t offset = 0;
  for (std::size_t n = 0; n < registers_.count() && offset < r.data.size(); ++n) {
    std::size_t size = register_size(registers_, n);
    if (offset + size > r.data.size()) break;  // gdb may send only the first registers
    std::vector<uint8_t> value(r.data.begin() + static_cast<std::ptrdiff_t>(offset),
                               r.data.begin() + static_cast<std::ptrdiff_t>(offset + size));
    offset += size;
    // Registers we report unavailable come back as whatever gdb holds.
    if (!register_value(registers_, n, regs, xsave)) continue;
    if (!write_changes_nothing(n, value, regs, xsave)) {
      reply(error_reply(rsp::ErrorCode::NotWritable));
      return;
    }
  }
  reply(rsp::ok());
}

void GdbSession::handle(const rsp::WriteRegister& r) {
  std::size_t size = register_size(registers_, r.regnum);
  if (size == 0 || r.value.size() != size) {
    reply(error_reply(rsp::ErrorCode::InvalidArgument));
    return;
  }
  pid_t tid = register_thread(r.thread);
  if (tid == 0) {
    reply(error_reply(rsp::ErrorCode::NoSuchThread));
    return;
  }
  bool ok = write_changes_nothing(r.regnum, r.value, target_.registers(tid), target_.xstate(tid));
  reply(ok ? rsp::ok() : error_reply(rsp::ErrorCode::NotWritable));
}

void GdbSession::handle(const rsp::ReadMemory& r) {
  std::vector<uint8_t> bytes = target_.read_memory(r.addr, static_cast<std::size_t>(std::min<uint64_t>(r.length, 0x8000)));
  if (bytes.empty() && r.length > 0) {
    reply(error_reply(rsp::ErrorCode::NotReadable));
    return;
  }
  reply(rsp::memory_hex(bytes));
}

void GdbSession::handle(const rsp::WriteMemoryBinary& r) {
  // "X addr,0:" probes whether X exists; saying no makes gdb use M, which
  // is refused below the same way.
  reply(r.data.empty() ? "" : error_reply(rsp::ErrorCode::NotWritable));
}

namespace {

std::optional<WatchType> watch_type(rsp::BreakpointType t) {
  switch (t) {
    case rsp::BreakpointType::WriteWatch: return WatchType::Write;
    case rsp::BreakpointType::AccessWatch: return WatchType::Access;
    default: return std::nullopt;  // read-only watchpoints: x86 has none
  }
}

}  // namespace

void GdbSession::handle(const rsp::InsertBreakpoint& r) {
  const rsp::BreakpointSpec& b = r.spec;
  switch (b.type) {
    case rsp::BreakpointType::Software:
    case rsp::BreakpointType::Hardware:
      if (b.type == rsp::BreakpointType::Software && target_.read_memory(b.addr, 1).empty()) {
        // Nothing mapped there to put an int3 into (gdbserver says the same).
        reply(error_reply(rsp::ErrorCode::NotReadable));
        return;
      }
      target_.set_breakpoint(b.addr, b.type == rsp::BreakpointType::Hardware ? TrapKind::Hardware : TrapKind::Software);
      reply(rsp::ok());
      return;
    case rsp::BreakpointType::ReadWatch:
      reply("");  // gdb falls back to an access watchpoint
      return;
    default:
      reply(target_.set_watchpoint(b.addr, b.kind, *watch_type(b.type)) ? rsp::ok()
                                                                         : error_reply(rsp::ErrorCode::NoSpace));
  }
}

void GdbSession::handle(const rsp::RemoveBreakpoint& r) {
  const rsp::BreakpointSpec& b = r.spec;
  switch (b.type) {
    case rsp::BreakpointType::Software:
    case rsp::BreakpointType::Hardware:
      target_.remove_breakpoint(b.addr, b.type == rsp::BreakpointType::Hardware ? TrapKind::Hardware : TrapKind::Software);
      reply(rsp::ok());
      return;
    case rsp::BreakpointType::ReadWatch:
      reply("");
      return;
    default:
      target_.remove_watchpoint(b.addr, b.kind, *watch_type(b.type));
      reply(rsp::ok());
  }
}

}  // namespace backstep::gdb
