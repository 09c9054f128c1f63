#include "gdbserver/memory_search.h"

#include <algorithm>
#include <functional>
#include <limits>

namespace backstep::gdb {
namespace {

constexpr uint64_t kPage = 4096;

// [start, end): addresses that can be read one after the other.
struct Run {
  uint64_t start = 0, end = 0;
};

// The mapped parts of [lo, hi), adjacent mappings joined.
std::vector<Run> mapped_runs(const std::vector<MemoryMapping>& maps, uint64_t lo, uint64_t hi) {
  std::vector<Run> runs;
  for (const MemoryMapping& m : maps) {
    uint64_t s = std::max(m.start, lo), e = std::min(m.end, hi);
    if (s >= e) continue;
    if (!runs.empty() && runs.back().end == s) runs.back().end = e;
    else runs.push_back({s, e});
  }
  return runs;
}

}  // namespace

std::optional<uint64_t> search_memory(const std::vector<MemoryMapping>& maps, const MemoryReader& read, uint64_t addr,
                                      uint64_t length, const std::vector<uint8_t>& pattern, std::size_t chunk) {
  if (pattern.empty() || length < pattern.size()) return std::nullopt;
  uint64_t hi = length > std::numeric_limits<uint64_t>::max() - addr ? std::numeric_limits<uint64_t>::max() : addr + length;
  chunk = std::max(chunk, pattern.size());
  std::boyer_moore_horspool_searcher searcher(pattern.begin(), pattern.end());
  for (const Run& run : mapped_runs(maps, addr, hi)) {
    // `window` holds the bytes read from `base` on: the tail of the last
    // read that a match could still start in, then the next read.
    std::vector<uint8_t> window;
    uint64_t base = run.start, at = run.start;
    while (at < run.end) {
      std::size_t want = static_cast<std::size_t>(std::min<uint64_t>(chunk, run.end - at));
      std::vector<uint8_t> got = read(at, want);
      window.insert(window.end(), got.begin(), got.end());
      auto hit = std::search(window.begin(), window.end(), searcher);
      if (hit != window.end()) return base + static_cast<uint64_t>(hit - window.begin());
      if (got.size() < want) {
        // Unreadable from here (a file mapping past its end): on from the
        // next page, with nothing carried over the hole.
        uint64_t hole = at + got.size();
        at = (hole / kPage + 1) * kPage;
        window.clear();
        base = at;
        continue;
      }
      at += got.size();
      std::size_t keep = std::min(window.size(), pattern.size() - 1);
      window.erase(window.begin(), window.end() - static_cast<std::ptrdiff_t>(keep));
      base = at - keep;
    }
  }
  return std::nullopt;
}

}  // namespace backstep::gdb
