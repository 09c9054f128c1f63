#include "engine/core/pagemap.h"

#include <fcntl.h>
#include <sys/ioctl.h>
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

namespace {

// <linux/fs.h>'s PAGEMAP_SCAN (Linux 6.7), spelled out for older headers.
struct PageRegion {
  uint64_t start, end, categories;
};
struct PmScanArg {
  uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
  uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};
constexpr unsigned long kPagemapScan = _IOWR('f', 16, PmScanArg);
constexpr uint64_t kIsPresent = 1 << 3, kIsSwapped = 1 << 4;

}  // namespace

std::optional<std::vector<std::pair<uint64_t, uint64_t>>> Pagemap::touched_runs(uint64_t start, uint64_t end) {
  if (fd_ < 0 || scan_unsupported_) return std::nullopt;
  std::vector<std::pair<uint64_t, uint64_t>> runs;
  std::vector<PageRegion> regions(256);
  uint64_t at = start;
  while (at < end) {
    PmScanArg arg{};
    arg.size = sizeof(arg);
    arg.start = at;
    arg.end = end;
    arg.vec = reinterpret_cast<uint64_t>(regions.data());
    arg.vec_len = regions.size();
    arg.category_anyof_mask = kIsPresent | kIsSwapped;
    arg.return_mask = kIsPresent | kIsSwapped;
    int n = ioctl(fd_, kPagemapScan, &arg);
    if (n < 0) {
      scan_unsupported_ = true;
      return std::nullopt;
    }
    for (int i = 0; i < n; ++i) {
      if (!runs.empty() && runs.back().second == regions[i].start) {
        runs.back().second = regions[i].end;
      } else {
        runs.emplace_back(regions[i].start, regions[i].end);
      }
    }
    if (arg.walk_end <= at) break;  // no progress: what was found is all
    at = arg.walk_end;
  }
  return runs;
}

}  // namespace backstep
