// gdb's view of the x86-64 registers: its numbering, sizes and the target
// description XML, built from the engine's kernel-layout registers and XSAVE
// area. This is the only place that knows gdb's register numbers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "values/cpu_state.h"
#include "values/registers.h"

namespace backstep::gdb {

struct RegisterSet {
  bool avx = false;  // ymm upper halves (from the recording CPU's XSAVE features)
  // Number of registers in gdb's numbering.
  std::size_t count() const { return avx ? 76 : 60; }
};

// Which registers the recording CPU had (AVX from CPUID leaf 1 ECX.AVX with
// OSXSAVE). The description must match the recording, not this host.
RegisterSet register_set_for(const std::vector<CpuidLeaf>& cpuid);

// Size in bytes of gdb register `regnum`, or 0 if there is no such register.
std::size_t register_size(const RegisterSet& set, std::size_t regnum);

// The value of gdb register `regnum` (little-endian, register_size bytes), or
// nullopt when it is unavailable (no XSAVE data).
std::optional<std::vector<uint8_t>> register_value(const RegisterSet& set, std::size_t regnum,
                                                   const Registers& regs, const std::vector<uint8_t>& xsave);

// Writes gdb register `regnum` (`value`: register_size bytes, little-endian)
// into `regs` or the XSAVE area `xsave`; false for no such register, a
// wrong size, or an XSAVE register without an area. The inverse of
// register_value: the x87 tag word goes back to FXSAVE's abridged form.
bool set_register_value(const RegisterSet& set, std::size_t regnum, const std::vector<uint8_t>& value,
                        Registers& regs, std::vector<uint8_t>& xsave);

// target.xml and the feature files it includes, by annex name; nullopt for
// an unknown annex.
std::optional<std::string> target_description(const RegisterSet& set, const std::string& annex);

// The index of rip, rsp, rbp in gdb's numbering (for expedited registers).
inline constexpr std::size_t kRegRbp = 6, kRegRsp = 7, kRegRip = 16;
// orig_rax: gdb writes -1 there whenever it sets the pc (see handlers_data.cc).
inline constexpr std::size_t kRegOrigRax = 57;

}  // namespace backstep::gdb
