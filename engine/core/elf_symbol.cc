#include "engine/core/elf_symbol.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cstring>

namespace backstep {
namespace {

// The symbol's value in the first symbol table of `type` that has it.
std::optional<uint64_t> symbol_value(Elf* elf, Elf64_Word type, const std::string& name) {
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(elf, scn)) != nullptr) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || sh.sh_entsize == 0) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data) continue;
    std::size_t count = sh.sh_size / sh.sh_entsize;
    for (std::size_t i = 0; i < count; ++i) {
      GElf_Sym sym;
      if (!gelf_getsym(data, static_cast<int>(i), &sym) || sym.st_shndx == SHN_UNDEF) continue;
      const char* n = elf_strptr(elf, sh.sh_link, sym.st_name);
      if (n && name == n) return sym.st_value;
    }
  }
  return std::nullopt;
}

// The file's bytes at virtual address `addr`, from the section that holds
// them (nullopt for NOBITS or nothing).
std::optional<std::vector<uint8_t>> bytes_at(Elf* elf, uint64_t addr, std::size_t size) {
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(elf, scn)) != nullptr) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || addr < sh.sh_addr ||
        addr - sh.sh_addr >= sh.sh_size) {
      continue;
    }
    if (sh.sh_type == SHT_NOBITS || size > sh.sh_size - (addr - sh.sh_addr)) return std::nullopt;
    Elf_Data* data = elf_rawdata(scn, nullptr);
    if (!data || !data->d_buf || data->d_size < sh.sh_size) return std::nullopt;
    const auto* p = static_cast<const uint8_t*>(data->d_buf) + (addr - sh.sh_addr);
    return std::vector<uint8_t>(p, p + size);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::vector<uint8_t>> elf_symbol_bytes(const std::string& path, const std::string& name,
                                                     std::size_t size) {
  if (elf_version(EV_CURRENT) == EV_NONE) return std::nullopt;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::optional<std::vector<uint8_t>> out;
  if (Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr)) {
    if (elf_kind(elf) == ELF_K_ELF) {
      std::optional<uint64_t> value = symbol_value(elf, SHT_DYNSYM, name);
      if (!value) value = symbol_value(elf, SHT_SYMTAB, name);
      if (value) out = bytes_at(elf, *value, size);
    }
    elf_end(elf);
  }
  close(fd);
  return out;
}

}  // namespace backstep
