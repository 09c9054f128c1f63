// Registers, memory, breakpoints and watchpoints.
#include "gdbserver/gdb_session.h"
#include "gdbserver/rsp/hex.h"

namespace backstep::gdb {

std::string GdbSession::register_hex(std::size_t regnum, const Registers& regs, const std::vector<uint8_t>& xsave) {
  std::optional<std::vector<uint8_t>> value = register_value(registers_, regnum, regs, xsave);
  if (!value) return rsp::unavailable_register(register_size(registers_, regnum));
  return rsp::register_bytes(*value);
}

std::optional<GdbSession::ThreadRegisters> GdbSession::request_registers(const std::optional<rsp::ThreadId>& suffix) {
  pid_t tid = register_thread(suffix);
  if (tid == 0) {
    reply(error_reply(rsp::ErrorCode::NoSuchThread));
    return std::nullopt;
  }
  return ThreadRegisters{tid, target_.registers(tid), target_.xstate(tid)};
}

void GdbSession::handle(const rsp::ReadRegisters& r) {
  std::optional<ThreadRegisters> t = request_registers(r.thread);
  if (!t) return;
  std::string out;
  for (std::size_t n = 0; n < registers_.count(); ++n) out += register_hex(n, t->regs, t->xsave);
  reply(out);
}

void GdbSession::handle(const rsp::ReadRegister& r) {
  if (register_size(registers_, r.regnum) == 0) {
    reply(error_reply(rsp::ErrorCode::InvalidArgument));
    return;
  }
  if (std::optional<ThreadRegisters> t = request_registers(r.thread)) reply(register_hex(r.regnum, t->regs, t->xsave));
}

void GdbSession::handle(const rsp::ReadMemory& r) {
  std::vector<uint8_t> bytes = target_.read_memory(r.addr, static_cast<std::size_t>(std::min<uint64_t>(r.length, 0x8000)));
  if (bytes.empty() && r.length > 0) {
    reply(error_reply(rsp::ErrorCode::NotReadable));
    return;
  }
  reply(rsp::memory_hex(bytes));
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
