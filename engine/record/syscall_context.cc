#include "engine/record/syscall_context.h"

#include <sys/uio.h>

#include <sstream>

#include "engine/record/record_session.h"

namespace backstep {

void SyscallContext::record_memory(uint64_t addr, uint64_t len) {
  if (addr == 0 || len == 0) return;
  trace::MemoryWrite w;
  w.addr = addr;
  w.data.resize(len);
  w.data.resize(task.read_some(remote_ptr<void>(addr), w.data.data(), len));
  if (!w.data.empty()) event.writes.push_back(std::move(w));
}

void SyscallContext::record_iovecs(uint64_t iov_addr, uint64_t iovcnt, uint64_t total) {
  for (uint64_t i = 0; i < iovcnt && total > 0; ++i) {
    iovec v;
    if (task.read_some(remote_ptr<void>(iov_addr + i * sizeof(iovec)), &v, sizeof(v)) != sizeof(v)) {
      return;
    }
    uint64_t n = std::min<uint64_t>(v.iov_len, total);
    record_memory(reinterpret_cast<uint64_t>(v.iov_base), n);
    total -= n;
  }
}

void SyscallContext::echo_if_stdio(int fd, std::vector<uint8_t> data) {
  if (data.empty()) return;
  if (std::optional<int> stream = session.stdio_stream(task, fd)) event.echoes.push_back({*stream, std::move(data)});
}

void SyscallContext::emulate(int64_t result) {
  entry.set_syscallno(static_cast<uint64_t>(-1));
  task.set_regs(entry);
  entry_rewritten = true;
  emulated_result = result;
}

bool SyscallContext::write_output(uint64_t addr, const void* bytes, std::size_t len) {
  try {
    task.write_bytes(remote_ptr<void>(addr), bytes, len);
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

void SyscallContext::refuse(const std::string& why) const {
  std::ostringstream os;
  os << why << " (system call " << info.name << ", event " << session.next_event() << ")";
  throw RecordingRefused(os.str());
}

void SyscallContext::refuse_after_call(const std::string& why) const {
  try {
    refuse(why);
  } catch (RecordingRefused& e) {
    e.at_entry = event.regs;
    e.tid = task.tid();
    throw;
  }
}

}  // namespace backstep
