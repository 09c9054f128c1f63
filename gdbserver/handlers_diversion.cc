// Writes: registers (P, G, QSaveRegisterState/QRestoreRegisterState),
// memory (M, X) and lldb's memory allocation (_M, _m). A replay cannot
// change the past, so a write that changes something moves the client into
// a diversion, a live copy of the program at this position (see
// engine/timeline/diversion.h and timeline_diversion.cc): that is how gdb's
// `print f(3)` and lldb's `expression` call functions during replay.
#include <sys/mman.h>

#include <stdexcept>

#include "gdbserver/gdb_session.h"
#include "gdbserver/gdb_signals.h"
#include "gdbserver/rsp/hex.h"

namespace backstep::gdb {

void GdbSession::write_registers(pid_t tid, const Registers& regs, const std::vector<uint8_t>& xsave) {
  try {
    target_.write_registers(tid, regs, xsave);
  } catch (const std::out_of_range&) {
    reply(error_reply(rsp::ErrorCode::NoSuchThread));
    return;
  } catch (const std::exception& e) {
    reply(error_reply(rsp::ErrorCode::NotWritable, e.what()));
    return;
  }
  reply(rsp::ok());
}

void GdbSession::handle(const rsp::WriteRegisters& r) {
  std::optional<ThreadRegisters> t = request_registers(r.thread);
  if (!t) return;
  Registers regs = t->regs;
  std::vector<uint8_t> xsave = t->xsave;
  std::size_t offset = 0;
  for (std::size_t n = 0; n < registers_.count() && offset < r.data.size(); ++n) {
    std::size_t size = register_size(registers_, n);
    if (offset + size > r.data.size()) break;  // gdb may send only the first registers
    std::vector<uint8_t> value(r.data.begin() + static_cast<std::ptrdiff_t>(offset),
                               r.data.begin() + static_cast<std::ptrdiff_t>(offset + size));
    offset += size;
    // Registers reported unavailable come back as whatever the client holds.
    if (!register_value(registers_, n, t->regs, t->xsave)) continue;
    set_register_value(registers_, n, value, regs, xsave);
  }
  write_registers(t->tid, regs, xsave);
}

void GdbSession::handle(const rsp::WriteRegister& r) {
  std::size_t size = register_size(registers_, r.regnum);
  if (size == 0 || r.value.size() != size) {
    reply(error_reply(rsp::ErrorCode::InvalidArgument));
    return;
  }
  std::optional<ThreadRegisters> t = request_registers(r.thread);
  if (!t) return;
  if (!set_register_value(registers_, r.regnum, r.value, t->regs, t->xsave)) {
    reply(error_reply(rsp::ErrorCode::NotWritable, "that register is not available here"));
    return;
  }
  write_registers(t->tid, t->regs, t->xsave);
}

void GdbSession::handle(const rsp::SaveRegisterState& r) {
  if (saved_registers_.size() >= kMaxSavedRegisterStates) {
    reply(error_reply(rsp::ErrorCode::LimitReached, "too many saved register states"));
    return;
  }
  std::optional<ThreadRegisters> t = request_registers(r.thread);
  if (!t) return;
  std::uint64_t id = next_save_id_++;
  saved_registers_[id] = std::move(*t);
  reply(std::to_string(id));  // decimal, as lldb reads it
}

void GdbSession::handle(const rsp::RestoreRegisterState& r) {
  auto it = saved_registers_.find(r.save_id);
  if (it == saved_registers_.end()) {
    reply(error_reply(rsp::ErrorCode::InvalidArgument, "no such saved register state"));
    return;
  }
  ThreadRegisters saved = std::move(it->second);
  saved_registers_.erase(it);
  write_registers(saved.tid, saved.regs, saved.xsave);
}

void GdbSession::write_memory(uint64_t addr, const std::vector<uint8_t>& bytes) {
  std::size_t written = 0;
  try {
    written = target_.write_memory(addr, bytes);
  } catch (const std::exception& e) {
    reply(error_reply(rsp::ErrorCode::NotWritable, e.what()));
    return;
  }
  reply(written == bytes.size() ? rsp::ok() : error_reply(rsp::ErrorCode::NotWritable));
}

void GdbSession::handle(const rsp::WriteMemory& r) { write_memory(r.addr, r.data); }

void GdbSession::handle(const rsp::WriteMemoryBinary& r) {
  // "X addr,0:" probes whether X exists.
  if (r.data.empty()) {
    reply(rsp::ok());
    return;
  }
  write_memory(r.addr, r.data);
}

void GdbSession::handle(const rsp::AllocateMemory& r) {
  int prot = 0;
  for (char c : r.permissions) prot |= c == 'r' ? PROT_READ : c == 'w' ? PROT_WRITE : PROT_EXEC;
  std::optional<uint64_t> addr;
  try {
    addr = target_.allocate_memory(r.size, prot);
  } catch (const std::exception& e) {
    reply(error_reply(rsp::ErrorCode::Failed, e.what()));
    return;
  }
  reply(addr ? rsp::hex_number(*addr) : error_reply(rsp::ErrorCode::Failed, "cannot allocate that memory"));
}

void GdbSession::handle(const rsp::DeallocateMemory& r) {
  reply(target_.deallocate_memory(r.addr) ? rsp::ok()
                                          : error_reply(rsp::ErrorCode::InvalidArgument, "not memory allocated here"));
}

void GdbSession::handle(const rsp::ContinueWithSignal& r) {
  ResumeRequest req = forward(ResumeRequest::How::Continue);
  req.signal = linux_signal(r.signal);
  resume(req);
}

void GdbSession::handle(const rsp::StepWithSignal& r) {
  ResumeRequest req = legacy_step();
  req.signal = linux_signal(r.signal);
  resume(req);
}

}  // namespace backstep::gdb
