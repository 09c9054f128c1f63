#include "engine/core/pagemap.h"

#include <fcntl.h>
#include <unistd.h>

#include <string>

namespace backstep {
namespace {
constexpr uint64_t kPage = 4096;
}  // namespace

Pagemap::Pagemap(pid_t pid) {
  std::string path = "/proc/" + std::to_string(pid) + "/pagemap";
  fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
}

Pagemap::~Pagemap() {
  if (fd_ >= 0) close(fd_);
}

std::vector<bool> Pagemap::touched(uint64_t start, std::size_t len) {
  std::size_t pages = (len + kPage - 1) / kPage;
  std::vector<bool> out(pages, true);
  if (fd_ < 0) return out;
  std::vector<uint64_t> entries(pages);
  ssize_t n = pread(fd_, entries.data(), pages * 8, static_cast<off_t>(start / kPage * 8));
  if (n != static_cast<ssize_t>(pages * 8)) return out;
  constexpr uint64_t kPresent = 1ull << 63, kSwapped = 1ull << 62;
  for (std::size_t i = 0; i < pages; ++i) out[i] = (entries[i] & (kPresent | kSwapped)) != 0;
  return out;
}

}  // namespace backstep
