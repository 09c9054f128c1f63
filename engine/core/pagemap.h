// /proc/PID/pagemap: which pages of a process hold anything. Pages of an
// anonymous private mapping that the program never touched are neither
// present nor swapped out and read as zero, so they need not be read (a
// thread's 8 MiB stack, a fresh syscall buffer are mostly such pages).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace backstep {

class Pagemap {
 public:
  explicit Pagemap(pid_t pid);
  ~Pagemap();
  Pagemap(const Pagemap&) = delete;
  Pagemap& operator=(const Pagemap&) = delete;

  // For the 4 KiB pages of [start, start + len): whether each may hold
  // data. Every page may, when pagemap cannot be read.
  std::vector<bool> touched(uint64_t start, std::size_t len);
  // The runs [start, end) of touched pages in [start, end), found by the
  // kernel's page-table walk (PAGEMAP_SCAN, Linux 6.7), which skips what
  // was never touched without a word per page: a sanitizer's shadow
  // reserves terabytes, where reading pagemap took minutes. nullopt where
  // the kernel has no PAGEMAP_SCAN.
  std::optional<std::vector<std::pair<uint64_t, uint64_t>>> touched_runs(uint64_t start, uint64_t end);

 private:
  int fd_ = -1;
  bool scan_unsupported_ = false;
};

}  // namespace backstep
