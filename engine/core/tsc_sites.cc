#include "engine/core/tsc_sites.h"

#include <gelf.h>
#include <libelf.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <x86intrin.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "engine/core/x86_decoder.h"

namespace backstep {
namespace {

constexpr uint8_t kRdtsc[] = {0x0f, 0x31};
constexpr uint8_t kRdtscp[] = {0x0f, 0x01, 0xf9};
// `int 0x2e` and `int 0x2f`: interrupt gates user code may not use, so a
// general-protection fault before anything runs. Linux programs never use
// them (0x2e was an old Windows system-call gate).
constexpr uint8_t kIntOpcode = 0xcd;
constexpr uint8_t kPatchedRdtsc = 0x2e;
constexpr uint8_t kPatchedRdtscp = 0x2f;
constexpr uint8_t kNop = 0x90;

bool probe_rdtsc_trap() {
  pid_t child = fork();
  if (child < 0) return true;  // cannot tell: assume the usual kernel
  if (child == 0) {
    signal(SIGSEGV, SIG_DFL);
    if (prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0) != 0) _exit(2);
    volatile uint64_t t = __rdtsc();
    (void)t;
    _exit(0);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) return true;
  }
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV;
}

bool starts_with(const uint8_t* code, std::size_t n, const uint8_t* what, std::size_t len) {
  return n >= len && std::memcmp(code, what, len) == 0;
}

void scan(const uint8_t* code, std::size_t size, uint64_t file_offset, std::vector<TscSite>& out) {
  x86::for_each_instruction(code, size, file_offset, [&](std::size_t at, std::size_t len) {
    if (len == 2 && starts_with(code + at, size - at, kRdtsc, 2)) out.push_back({file_offset + at, 2});
    if (len == 3 && starts_with(code + at, size - at, kRdtscp, 3)) out.push_back({file_offset + at, 3});
  });
}

bool has_pattern(const uint8_t* code, std::size_t size) {
  return memmem(code, size, kRdtsc, sizeof(kRdtsc)) || memmem(code, size, kRdtscp, sizeof(kRdtscp));
}

}  // namespace

bool kernel_traps_rdtsc() {
  static const bool traps = probe_rdtsc_trap();
  return traps;
}

bool patching_rdtsc_sites() {
  const char* forced = std::getenv("BACKSTEP_PATCH_RDTSC");
  if (forced && std::string(forced) == "1") return true;
  return !kernel_traps_rdtsc();
}

void each_code_section(int fd, const std::function<void(const uint8_t*, std::size_t, uint64_t)>& visit) {
  each_code_section_at(fd, [&](const uint8_t* code, std::size_t size, uint64_t offset, uint64_t) {
    visit(code, size, offset);
  });
}

void each_code_section_at(int fd,
                          const std::function<void(const uint8_t*, std::size_t, uint64_t, uint64_t)>& visit) {
  if (elf_version(EV_CURRENT) == EV_NONE) return;
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  if (!elf) return;
  if (elf_kind(elf) == ELF_K_ELF) {
    Elf_Scn* scn = nullptr;
    while ((scn = elf_nextscn(elf, scn)) != nullptr) {
      GElf_Shdr sh;
      if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR)) continue;
      Elf_Data* data = elf_rawdata(scn, nullptr);
      if (!data || !data->d_buf || data->d_size == 0) continue;
      visit(static_cast<const uint8_t*>(data->d_buf), data->d_size, sh.sh_offset, sh.sh_addr);
    }
  }
  elf_end(elf);
}

std::vector<TscSite> find_tsc_sites(int fd) {
  std::vector<TscSite> sites;
  each_code_section(fd, [&](const uint8_t* code, std::size_t size, uint64_t offset) {
    if (has_pattern(code, size)) scan(code, size, offset, sites);
  });
  return sites;
}

std::vector<uint8_t> tsc_site_patch(uint8_t length) {
  if (length == 3) return {kIntOpcode, kPatchedRdtscp, kNop};
  return {kIntOpcode, kPatchedRdtsc};
}

int trapped_tsc_length(const uint8_t* code, std::size_t n, bool patched) {
  if (starts_with(code, n, kRdtsc, sizeof(kRdtsc))) return 2;
  if (starts_with(code, n, kRdtscp, sizeof(kRdtscp))) return 3;
  if (!patched || n < 2 || code[0] != kIntOpcode) return 0;
  if (code[1] == kPatchedRdtsc) return 2;
  if (code[1] == kPatchedRdtscp && n >= 3 && code[2] == kNop) return 3;
  return 0;
}

}  // namespace backstep
