// RDRAND and RDSEED, which no kernel can make trap (and CPUID, which would
// let backstep hide them, traps only where the CPU has CPUID faulting): a
// program that reads the hardware random generator would replay other
// numbers. So each RDRAND and RDSEED of the program's code is patched, as
// the file is mapped, into an instruction that always faults (`int 0x2a`
// to `int 0x2c`: a general-protection fault, SIGSEGV with SI_KERNEL at its
// address), the patch recorded like rdtsc's (tsc_sites.h). At the fault the
// recorder answers with random bytes of its own, recorded as the registers
// the instruction set, and replay sets them again.
//
// The patch keeps what the recorder needs to answer: `int` with a vector
// that says the instruction's length (3, 4 or 5 bytes), then the ModRM byte
// (which names RDRAND or RDSEED and the register), then the REX and 0x66
// prefixes the instruction had, if any.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace backstep {

struct RandomSite {
  uint64_t offset = 0;  // in the file
  std::vector<uint8_t> insn;  // the instruction's bytes (3 to 5)
};

// The RDRAND and RDSEED instructions (register forms, with REX and 0x66
// prefixes) found by decoding the code section `code` from its start.
void scan_random_sites(const uint8_t* code, std::size_t size, uint64_t file_offset, std::vector<RandomSite>& out);
// Whether the section might hold one (a quick byte search first).
bool may_hold_random_sites(const uint8_t* code, std::size_t size);
// The length of a RDRAND or RDSEED at `p` (prefixes 0x66 and one REX, in
// that order, as assemblers write them), or 0.
std::size_t random_insn_length(const uint8_t* p, std::size_t n);

// The bytes that replace `insn` (same length).
std::vector<uint8_t> random_site_patch(const std::vector<uint8_t>& insn);

// What a patched site at `code` asks for (`n` bytes readable), or nullopt.
struct RandomRequest {
  int length = 0;       // bytes to step over
  bool seed = false;    // RDSEED (else RDRAND)
  int reg = 0;          // 0..15: rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi, r8..r15
  int width = 32;       // 16, 32 or 64 bits
};
std::optional<RandomRequest> patched_random_site(const uint8_t* code, std::size_t n);

}  // namespace backstep
