// The initial bytes of a data symbol of an ELF file, as the file holds them:
// constants a library exports for debuggers (glibc's _thread_db_*
// descriptors, which say where the thread-local storage fields lie in its
// structures) are read from the file, not from the process, so no load
// address is needed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace backstep {

// The `size` bytes at the symbol `name` of the ELF file at `path`, looked up
// in .dynsym, then .symtab; nullopt if the file is not ELF, has no such
// symbol, or the symbol's bytes are not in the file (.bss).
std::optional<std::vector<uint8_t>> elf_symbol_bytes(const std::string& path, const std::string& name,
                                                     std::size_t size);

}  // namespace backstep
