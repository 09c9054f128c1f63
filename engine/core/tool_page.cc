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

uint64_t install_executable_stub_area(Task& task, const std::vector<MapsEntry>& maps, std::vector<siginfo_t>* held) {
  // The executable: the lowest file mapped with code (the dynamic loader
  // and the libraries lie far above it), from its first mapping on.
  const MapsEntry* code = nullptr;
  for (const MapsEntry& m : maps) {
    if (m.is_file() && (m.prot & PROT_EXEC) && (!code || m.start < code->start)) code = &m;
  }
  if (!code) return 0;
  uint64_t low = code->start;
  for (const MapsEntry& m : maps) {
    if (m.name == code->name && m.start < low) low = m.start;
  }
  // A gap below it, and above the lowest address the kernel maps at.
  constexpr uint64_t kGap = 0x10000, kLowest = 0x100000;
  if (low < kLowest + BS_STUB_AREA_SIZE + kGap) return 0;
  uint64_t at = (low - BS_STUB_AREA_SIZE - kGap) & ~(kGap - 1);
  std::array<uint64_t, 6> args{at, BS_STUB_AREA_SIZE, PROT_READ | PROT_EXEC,
                               MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, static_cast<uint64_t>(-1), 0};
  auto call = [&](long nr, const std::array<uint64_t, 6>& a) {
    return held ? tool_syscall_holding(task, *held, nr, a) : task.remote_syscall(kToolSyscallInsn, nr, a);
  };
  int64_t r = call(SYS_mmap, args);
  if (r == static_cast<int64_t>(at)) return at;
  // Taken (EEXIST), or a kernel that took the address as a hint.
  if (r > 0) call(SYS_munmap, {static_cast<uint64_t>(r), BS_STUB_AREA_SIZE, 0, 0, 0, 0});
  return 0;
}

int64_t tool_syscall(Task& task, long nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
                     uint64_t a4, uint64_t a5) {
  return task.remote_syscall(kToolSyscallInsn, nr, {a0, a1, a2, a3, a4, a5});
}

int64_t tool_syscall_holding(Task& task, std::vector<siginfo_t>& held, long nr, std::array<uint64_t, 6> args) {
  return task.remote_syscall(kToolSyscallInsn, nr, args, &held);
}

}  // namespace backstep
