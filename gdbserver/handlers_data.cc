// Registers, memory, breakpoints and watchpoints.
#include "gdbserver/gdb_session.h"
#include "gdbserver/memory_search.h"
#include "gdbserver/rsp/hex.h"

namespace backstep::gdb {

std::string GdbSession::register_hex(std::size_t regnum, const Registers& regs, const std::vector<uint8_t>& xsave) {
  std::optional<std::vector<uint8_t>> value = register_value(registers_, regnum, regs, xsave);
  if (!value) return rsp::unavailable_register(register_size(registers_, regnum));
  return rsp::register_bytes(*value);
}

std::optional<GdbSession::ThreadRegisters> GdbSession::request_registers(const std::optional<rsp::ThreadId>& suffix) {
  if (general_child_ != 0 && !suffix) {
    // A forked child the client holds: where it started (no XSAVE state).
    auto child = forked_children_.find(general_child_);
    if (child != forked_children_.end()) {
      return ThreadRegisters{static_cast<pid_t>(recorded_pid(child->first)), child->second, {}};
    }
  }
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
  // A longer read gets a shorter reply, as the protocol allows.
  std::size_t length = static_cast<std::size_t>(std::min<uint64_t>(r.length, kMaxMemoryRead));
  std::vector<uint8_t> bytes = target_.read_memory(r.addr, length);
  if (bytes.empty() && r.length > 0) {
    reply(error_reply(rsp::ErrorCode::NotReadable));
    return;
  }
  reply(rsp::memory_hex(bytes));
}

void GdbSession::handle(const rsp::SearchMemory& r) {
  std::optional<uint64_t> found =
      search_memory(target_.memory_map(), [this](uint64_t addr, std::size_t len) { return target_.read_memory(addr, len); },
                    r.addr, r.length, r.pattern);
  reply(found ? "1," + rsp::hex_number(*found) : "0");
}

namespace {

std::optional<WatchKind> watch_kind(rsp::BreakpointType t) {
  switch (t) {
    case rsp::BreakpointType::WriteWatch: return WatchKind::Write;
    // x86 has no read-only debug register: the target watches accesses and
    // reports those that left the bytes unchanged (rr's rule).
    case rsp::BreakpointType::ReadWatch: return WatchKind::Read;
    case rsp::BreakpointType::AccessWatch: return WatchKind::Access;
    default: return std::nullopt;
  }
}

}  // namespace

// Why a Z packet cannot be served, checked before the target sees it: a
// watchpoint longer than the debug registers cover, or a range outside user
// space (the kernel refuses a debug register there at the next resume).
std::optional<std::string> GdbSession::unservable(const rsp::BreakpointSpec& b) {
  bool watch = watch_kind(b.type).has_value();
  if (watch && (b.kind == 0 || b.kind > DebugTarget::kMaxWatchLength)) {
    return "a watchpoint covers 1 to " + std::to_string(DebugTarget::kMaxWatchLength) +
           " bytes (what the debug registers hold), not " + std::to_string(b.kind);
  }
  if (!in_user_space(b.addr, watch ? b.kind : 1)) {
    return "address 0x" + rsp::hex_number(b.addr) + " is outside user space";
  }
  return std::nullopt;
}

void GdbSession::handle(const rsp::InsertBreakpoint& r) {
  const rsp::BreakpointSpec& b = r.spec;
  if (std::optional<std::string> why = unservable(b)) {
    reply(error_reply(rsp::ErrorCode::InvalidArgument, *why));
    return;
  }
  switch (b.type) {
    case rsp::BreakpointType::Software:
    case rsp::BreakpointType::Hardware:
      if (b.type == rsp::BreakpointType::Software && b.addr < kLowestMappable &&
          target_.read_memory(b.addr, 1).empty()) {
        // Nothing can ever be mapped there (below mmap_min_addr's default):
        // refused, as gdbserver does. Higher up, an address with nothing
        // mapped now is taken: the target inserts it once code is mapped
        // there (gdb keeps its breakpoints in libraries when the replay goes
        // back to before they were loaded, and must be able to resume).
        reply(error_reply(rsp::ErrorCode::NotReadable));
        return;
      }
      if (!target_.set_breakpoint(b.addr, b.type == rsp::BreakpointType::Hardware ? TrapKind::Hardware : TrapKind::Software)) {
        reply(error_reply(rsp::ErrorCode::LimitReached,
                          "at most " + std::to_string(DebugTarget::kMaxBreakpoints) + " breakpoints"));
        return;
      }
      reply(rsp::ok());
      return;
    default:
      reply(target_.set_watchpoint(b.addr, b.kind, *watch_kind(b.type)) ? rsp::ok()
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
    default:
      target_.remove_watchpoint(b.addr, b.kind, *watch_kind(b.type));
      reply(rsp::ok());
  }
}

}  // namespace backstep::gdb
