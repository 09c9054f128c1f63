#include "engine/core/vdso.h"

#include <gelf.h>
#include <libelf.h>
#include <sys/syscall.h>

#include <map>
#include <stdexcept>

namespace backstep {
namespace {

struct ElfHandle {
  Elf* elf = nullptr;
  ~ElfHandle() {
    if (elf) elf_end(elf);
  }
};

std::vector<uint8_t> syscall_stub(int nr) {
  // mov $nr, %eax ; syscall ; ret
  return {0xb8, static_cast<uint8_t>(nr), static_cast<uint8_t>(nr >> 8), 0, 0, 0x0f, 0x05, 0xc3};
}

std::vector<uint8_t> enosys_stub() {
  // mov $-ENOSYS, %eax ; cltq ; ret  (rax = -38)
  return {0xb8, 0xda, 0xff, 0xff, 0xff, 0x48, 0x98, 0xc3};
}

}  // namespace

std::vector<VdsoSymbol> vdso_functions(const std::vector<uint8_t>& image) {
  if (elf_version(EV_CURRENT) == EV_NONE) throw std::runtime_error("libelf initialisation failed");
  std::vector<uint8_t> copy = image;  // libelf wants a mutable buffer
  ElfHandle h;
  h.elf = elf_memory(reinterpret_cast<char*>(copy.data()), copy.size());
  if (!h.elf || elf_kind(h.elf) != ELF_K_ELF) throw std::runtime_error("vDSO is not an ELF image");

  // The vDSO's section headers are part of the mapped image, so its dynamic
  // symbol table can be read as from a file. Symbol values are link-time
  // addresses relative to the image's lowest PT_LOAD vaddr (0 in practice).
  uint64_t base = 0;
  size_t phnum = 0;
  if (elf_getphdrnum(h.elf, &phnum) == 0) {
    for (size_t i = 0; i < phnum; ++i) {
      GElf_Phdr ph;
      if (gelf_getphdr(h.elf, static_cast<int>(i), &ph) && ph.p_type == PT_LOAD) {
        base = ph.p_vaddr - ph.p_offset;
        break;
      }
    }
  }
  std::vector<VdsoSymbol> out;
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(h.elf, scn)) != nullptr) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data || sh.sh_entsize == 0) continue;
    size_t count = sh.sh_size / sh.sh_entsize;
    for (size_t i = 0; i < count; ++i) {
      GElf_Sym sym;
      if (!gelf_getsym(data, static_cast<int>(i), &sym)) continue;
      if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF) continue;
      const char* name = elf_strptr(h.elf, sh.sh_link, sym.st_name);
      if (!name) continue;
      uint64_t off = sym.st_value - base;
      if (off >= image.size()) throw std::runtime_error("vDSO symbol outside the image");
      out.push_back({name, off, sym.st_size});
    }
  }
  return out;
}

std::vector<VdsoPatch> vdso_syscall_patches(const std::vector<uint8_t>& image) {
  static const std::map<std::string, int> kTimeCalls = {
      {"clock_gettime", SYS_clock_gettime}, {"gettimeofday", SYS_gettimeofday},
      {"time", SYS_time},                   {"getcpu", SYS_getcpu},
      {"clock_getres", SYS_clock_getres},
  };
  std::vector<VdsoPatch> patches;
  std::map<uint64_t, bool> done;  // aliases share an address
  for (const auto& sym : vdso_functions(image)) {
    std::string base = sym.name.rfind("__vdso_", 0) == 0 ? sym.name.substr(7) : sym.name;
    std::vector<uint8_t> code;
    if (auto it = kTimeCalls.find(base); it != kTimeCalls.end()) {
      code = syscall_stub(it->second);
    } else if (base == "getrandom") {
      code = enosys_stub();
    } else {
      continue;
    }
    if (done[sym.offset]) continue;
    if (sym.size != 0 && sym.size < code.size()) {
      throw std::runtime_error("vDSO function " + sym.name + " too small to patch");
    }
    if (sym.offset + code.size() > image.size()) {
      throw std::runtime_error("vDSO function " + sym.name + " outside the image");
    }
    done[sym.offset] = true;
    patches.push_back({sym.offset, code, sym.name});
  }
  return patches;
}

}  // namespace backstep
