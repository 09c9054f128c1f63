// Shared by the engine tests (and the reverse benchmarks): record a program
// in-process into a fresh temporary directory, and find a symbol's address
// in a (non-PIE) binary.
#pragma once

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/record/record_session.h"

namespace backstep::testing {

// The address of `name` in the symbol table of `path`; 0 if absent.
inline uint64_t symbol_address(const std::string& path, const std::string& name) {
  elf_version(EV_CURRENT);
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  uint64_t found = 0;
  Elf_Scn* scn = nullptr;
  while (elf && (scn = elf_nextscn(elf, scn)) != nullptr) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || sh.sh_entsize == 0) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; ++i) {
      GElf_Sym sym;
      if (!gelf_getsym(data, static_cast<int>(i), &sym)) continue;
      const char* n = elf_strptr(elf, sh.sh_link, sym.st_name);
      if (n && name == n) found = sym.st_value;
    }
  }
  if (elf) elf_end(elf);
  close(fd);
  return found;
}

// A recording of `binary args...` made in a new temporary directory (removed
// with the object); the program's stdout goes to /dev/null.
class Recording {
 public:
  // `preload`: the syscall-buffering library to inject (empty: none).
  explicit Recording(const std::string& binary, std::vector<std::string> args = {}, const std::string& preload = "")
      : binary_(binary) {
    char tmpl[] = "/tmp/backstep-test-XXXXXX";
    if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
    dir_ = tmpl;
    RecordOptions options;
    options.exe = binary;
    options.argv = {binary};
    options.argv.insert(options.argv.end(), args.begin(), args.end());
    options.trace_dir = trace();
    options.preload_library = preload;
    int saved = dup(1);
    int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
    dup2(devnull, 1);
    result_ = RecordSession(options).run();
    dup2(saved, 1);
    close(saved);
    close(devnull);
  }
  ~Recording() { std::filesystem::remove_all(dir_); }
  Recording(const Recording&) = delete;
  Recording& operator=(const Recording&) = delete;

  const std::string& dir() const { return dir_; }
  std::string trace() const { return dir_ + "/trace"; }
  const std::string& binary() const { return binary_; }
  const RecordResult& result() const { return result_; }

 private:
  std::string binary_;
  std::string dir_;
  RecordResult result_;
};

}  // namespace backstep::testing
