// The vDSO's time functions read clocks without entering the kernel, which a
// ptrace recorder cannot see. backstep overwrites them in the tracee with
// stubs that make the real system call, so time is recorded like any other
// syscall result.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace backstep {

struct VdsoSymbol {
  std::string name;
  uint64_t offset = 0;  // from the start of the vDSO image
  uint64_t size = 0;
};

// The defined function symbols of a vDSO image (an ELF shared object as
// mapped in memory). Throws std::runtime_error if it is not a valid ELF.
std::vector<VdsoSymbol> vdso_functions(const std::vector<uint8_t>& image);

struct VdsoPatch {
  uint64_t offset = 0;
  std::vector<uint8_t> code;
  std::string symbol;
};

// The stubs to write over the vDSO's clock_gettime, gettimeofday, time,
// getcpu, clock_getres (each becomes `mov $NR,%eax; syscall; ret`) and
// getrandom (made to fail with ENOSYS so libc falls back to the syscall).
std::vector<VdsoPatch> vdso_syscall_patches(const std::vector<uint8_t>& image);

}  // namespace backstep
