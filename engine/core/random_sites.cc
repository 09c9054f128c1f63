#include "engine/core/random_sites.h"

#include "engine/core/x86_decoder.h"

namespace backstep {
namespace {

constexpr uint8_t kIntOpcode = 0xcd;
constexpr uint8_t kFirstVector = 0x2a;  // 0x2a, 0x2b, 0x2c: 3, 4, 5 bytes
constexpr uint8_t kOperandSize = 0x66;

bool is_rex(uint8_t b) { return (b & 0xf0) == 0x40; }

// 0F C7 with a register ModRM whose reg field is 6 (RDRAND) or 7 (RDSEED).
bool is_random_opcode(const uint8_t* p) {
  return p[0] == 0x0f && p[1] == 0xc7 && (p[2] & 0xc0) == 0xc0 && ((p[2] >> 3) & 7) >= 6;
}

}  // namespace

std::size_t random_insn_length(const uint8_t* p, std::size_t n) {
  std::size_t at = 0;
  if (at < n && p[at] == kOperandSize) ++at;
  if (at < n && is_rex(p[at])) ++at;
  if (n - at < 3 || !is_random_opcode(p + at)) return 0;
  return at + 3;
}

bool may_hold_random_sites(const uint8_t* code, std::size_t size) {
  for (std::size_t i = 0; i + 3 <= size; ++i) {
    if (is_random_opcode(code + i)) return true;
  }
  return false;
}

void scan_random_sites(const uint8_t* code, std::size_t size, uint64_t file_offset, std::vector<RandomSite>& out) {
  x86::for_each_instruction(code, size, file_offset, [&](std::size_t at, std::size_t len) {
    if (random_insn_length(code + at, size - at) == len) {
      out.push_back({file_offset + at, std::vector<uint8_t>(code + at, code + at + len)});
    }
  });
}

std::vector<uint8_t> random_site_patch(const std::vector<uint8_t>& insn) {
  std::vector<uint8_t> patch = {kIntOpcode, static_cast<uint8_t>(kFirstVector + insn.size() - 3), insn.back()};
  for (uint8_t b : insn) {
    if (is_rex(b)) patch.push_back(b);
  }
  if (insn.front() == kOperandSize) patch.push_back(kOperandSize);
  return patch;
}

std::optional<RandomRequest> patched_random_site(const uint8_t* code, std::size_t n) {
  if (n < 3 || code[0] != kIntOpcode || code[1] < kFirstVector || code[1] > kFirstVector + 2) return std::nullopt;
  RandomRequest r;
  r.length = 3 + (code[1] - kFirstVector);
  if (n < static_cast<std::size_t>(r.length)) return std::nullopt;
  uint8_t modrm = code[2];
  if ((modrm & 0xc0) != 0xc0 || ((modrm >> 3) & 7) < 6) return std::nullopt;
  r.seed = ((modrm >> 3) & 7) == 7;
  uint8_t rex = 0;
  bool operand_size = false;
  for (int i = 3; i < r.length; ++i) {
    if (is_rex(code[i])) rex = code[i];
    else if (code[i] == kOperandSize) operand_size = true;
    else return std::nullopt;
  }
  r.reg = (modrm & 7) | ((rex & 1) << 3);
  r.width = (rex & 8) ? 64 : operand_size ? 16 : 32;
  return r;
}

}  // namespace backstep
