// /proc/PID/pagemap: which pages of a process hold anything. Pages of an
// anonymous private mapping that the program never touched are neither
// present nor swapped out and read as zero, so they need not be read (a
// thread's 8 MiB stack, a fresh syscall buffer are mostly such pages).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
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

 private:
  int fd_ = -1;
};

}  // namespace backstep
