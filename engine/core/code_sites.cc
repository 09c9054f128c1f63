#include "engine/core/code_sites.h"

#include <gelf.h>
#include <libelf.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "engine/core/cpuid_trap.h"
#include "engine/core/x86_decoder.h"

namespace backstep {
namespace {

// DWARF exception-header pointer encodings (.eh_frame_hdr).
constexpr uint8_t kUdata4 = 0x03, kSdata4 = 0x0b, kUdata8 = 0x04, kSdata8 = 0x0c;
constexpr uint8_t kDatarelSdata4 = 0x3b;  // the table's usual encoding

// The size of a value in encoding `enc` (its low nibble), or 0 where it is
// not one read here.
std::size_t encoded_size(uint8_t enc) {
  switch (enc & 0x0f) {
    case kUdata4 & 0x0f:
    case kSdata4 & 0x0f: return 4;
    case kUdata8 & 0x0f:
    case kSdata8 & 0x0f: return 8;
    default: return 0;
  }
}

// The function start addresses in an .eh_frame_hdr at address `addr`.
std::vector<uint64_t> function_starts(const uint8_t* p, std::size_t n, uint64_t addr) {
  std::vector<uint64_t> starts;
  if (n < 4 || p[0] != 1) return starts;
  const uint8_t ptr_enc = p[1], count_enc = p[2], table_enc = p[3];
  std::size_t ptr_size = encoded_size(ptr_enc), count_size = encoded_size(count_enc);
  if (ptr_size == 0 || count_size != 4 || table_enc != kDatarelSdata4) return starts;
  std::size_t at = 4 + ptr_size;
  if (at + 4 > n) return starts;
  uint32_t count = 0;
  std::memcpy(&count, p + at, 4);
  at += 4;
  if (count > (n - at) / 8) return starts;
  starts.reserve(count);
  for (uint32_t i = 0; i < count; ++i, at += 8) {
    int32_t location = 0;
    std::memcpy(&location, p + at, 4);
    starts.push_back(addr + static_cast<uint64_t>(static_cast<int64_t>(location)));
  }
  std::sort(starts.begin(), starts.end());
  return starts;
}

// The length of a site of a kind asked for whose bytes are at `p` (n
// bytes), or 0: where the walk must decode (whether they are an
// instruction there is the decoder's to say).
std::size_t site_length(const uint8_t* p, std::size_t n, bool tsc, bool cpuid) {
  if (std::size_t random = random_insn_length(p, n)) return random;
  if (tsc) {
    if (int length = trapped_tsc_length(p, n, /*patched=*/false)) return static_cast<std::size_t>(length);
  }
  return cpuid && is_cpuid(p, n, /*patched=*/false) ? 2 : 0;
}

}  // namespace

void scan_code_sites(const uint8_t* code, std::size_t size, uint64_t file_offset,
                     const std::vector<uint64_t>& starts, bool tsc, bool cpuid, CodeSites& out) {
  // The boundary walk: `at` is a boundary of the linear decoding from the
  // last place it started, and every boundary it passes is checked.
  std::size_t at = 0;
  auto check = [&](std::size_t here, std::size_t len) {
    const uint8_t* p = code + here;
    std::size_t left = size - here;
    if (random_insn_length(p, left) == len) out.random.push_back({file_offset + here, std::vector<uint8_t>(p, p + len)});
    if (tsc) {
      int n = trapped_tsc_length(p, left, /*patched=*/false);
      if (n != 0 && static_cast<std::size_t>(n) == len) out.tsc.push_back({file_offset + here, static_cast<uint8_t>(n)});
    }
    if (cpuid && len == 2 && is_cpuid(p, left, /*patched=*/false)) out.cpuid.push_back(file_offset + here);
  };
  const uint8_t* escape = code;
  while ((escape = static_cast<const uint8_t*>(std::memchr(escape, 0x0f, size - (escape - code)))) != nullptr) {
    std::size_t candidate = static_cast<std::size_t>(escape - code);
    ++escape;
    if (candidate < at || site_length(code + candidate, size - candidate, tsc, cpuid) == 0) continue;
    // The nearest function start at or before it; a start past `at` is a
    // boundary the walk may jump to.
    auto next = std::upper_bound(starts.begin(), starts.end(), static_cast<uint64_t>(candidate));
    if (next != starts.begin() && *(next - 1) > at) at = static_cast<std::size_t>(*(next - 1));
    while (at <= candidate && at < size) {
      std::size_t len = x86::instruction_length(code + at, size - at, file_offset + at);
      if (len == 0) {
        ++at;
        continue;
      }
      check(at, len);
      at += len;
    }
    if (at > candidate) escape = code + std::max(candidate + 1, std::min(at, size));
  }
}

namespace {

// The function starts the file's .eh_frame_hdr names (addresses, sorted).
std::vector<uint64_t> function_starts_of(int fd) {
  std::vector<uint64_t> starts;
  if (elf_version(EV_CURRENT) == EV_NONE) return starts;
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  if (!elf) return starts;
  std::size_t names = 0;
  if (elf_kind(elf) == ELF_K_ELF && elf_getshdrstrndx(elf, &names) == 0) {
    Elf_Scn* scn = nullptr;
    while ((scn = elf_nextscn(elf, scn)) != nullptr) {
      GElf_Shdr sh;
      if (!gelf_getshdr(scn, &sh)) continue;
      const char* name = elf_strptr(elf, names, sh.sh_name);
      if (!name || std::strcmp(name, ".eh_frame_hdr") != 0) continue;
      Elf_Data* data = elf_rawdata(scn, nullptr);
      if (data && data->d_buf) starts = function_starts(static_cast<const uint8_t*>(data->d_buf), data->d_size, sh.sh_addr);
      break;
    }
  }
  elf_end(elf);
  return starts;
}

}  // namespace

CodeSites find_code_sites(int fd, bool tsc, bool cpuid) {
  CodeSites sites;
  const std::vector<uint64_t> starts = function_starts_of(fd);
  each_code_section_at(fd, [&](const uint8_t* code, std::size_t size, uint64_t offset, uint64_t addr) {
    // This section's function starts, relative to it.
    std::vector<uint64_t> in_section;
    for (auto it = std::lower_bound(starts.begin(), starts.end(), addr); it != starts.end() && *it < addr + size; ++it) {
      in_section.push_back(*it - addr);
    }
    scan_code_sites(code, size, offset, in_section, tsc, cpuid, sites);
  });
  return sites;
}

}  // namespace backstep
