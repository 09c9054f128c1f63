#include "engine/core/tool_page.h"

#include <sys/mman.h>
#include <sys/syscall.h>

#include <cstring>
#include <stdexcept>

#include "engine/core/task.h"
#include "preload/preload_interface.h"

namespace backstep {

void install_tool_page(Task& task, std::vector<siginfo_t>* held) {
  Registers regs = task.regs();
  remote_ptr<void> entry(regs.ip());
  uint8_t saved[2];
  task.read_bytes(entry, saved, sizeof(saved));
  const uint8_t syscall_insn[2] = {0x0f, 0x05};
  task.write_bytes(entry, syscall_insn, sizeof(syscall_insn));
  int64_t r = task.remote_syscall(
      entry, SYS_mmap,
      {kToolPageAddr, kToolPageSize, PROT_READ | PROT_WRITE | PROT_EXEC,
       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, static_cast<uint64_t>(-1), 0},
      held);
  task.write_bytes(entry, saved, sizeof(saved));
  if (r != static_cast<int64_t>(kToolPageAddr)) {
    throw std::runtime_error("cannot map backstep's tool page at 0x70000000 (mmap returned " +
                             std::to_string(r) + "); the program's layout uses that address");
  }
  const uint8_t code[3] = {0x0f, 0x05, 0xcc};  // syscall; int3
  task.write_bytes(kToolSyscallInsn, code, sizeof(code));
  // The preload library's entries (preload/preload_interface.h): the same
  // in record and replay, like everything else on this page.
  const uint8_t call_and_return[3] = {0x0f, 0x05, 0xc3};  // syscall; ret
  task.write_bytes(remote_ptr<void>(BS_UNTRACED_SYSCALL_ADDR), call_and_return, sizeof(call_and_return));
  task.write_bytes(remote_ptr<void>(BS_TRACED_SYSCALL_ADDR), call_and_return, sizeof(call_and_return));
}

int64_t tool_syscall(Task& task, long nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
                     uint64_t a4, uint64_t a5) {
  return task.remote_syscall(kToolSyscallInsn, nr, {a0, a1, a2, a3, a4, a5});
}

int64_t tool_syscall_holding(Task& task, std::vector<siginfo_t>& held, long nr, std::array<uint64_t, 6> args) {
  return task.remote_syscall(kToolSyscallInsn, nr, args, &held);
}

}  // namespace backstep
