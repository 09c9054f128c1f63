#include "engine/timeline/client_memory.h"

#include <sys/mman.h>

#include <algorithm>

#include "engine/core/tool_page.h"

namespace backstep {
namespace {

constexpr uint64_t kPageSize = 4096;
// The lowest address a region may take: well above a non-PIE program's
// code and the start of its heap.
constexpr uint64_t kLowest = 0x10000000;

bool overlaps(uint64_t a, uint64_t a_end, uint64_t b, uint64_t b_end) { return a < b_end && b < a_end; }

// The region of `regions` (by start) holding `addr`, or end(); for find()
// and write() alike.
template <class Regions>
auto containing(Regions& regions, uint64_t addr) {
  auto it = regions.upper_bound(addr);
  if (it == regions.begin()) return regions.end();
  --it;
  return addr < it->first + it->second.size ? it : regions.end();
}

}  // namespace

std::optional<uint64_t> ClientMemory::allocate(uint64_t size, int prot, const std::vector<MemoryMapping>& taken) {
  if (size == 0 || size > kToolPageAddr - kLowest) return std::nullopt;
  uint64_t rounded = (size + kPageSize - 1) / kPageSize * kPageSize;
  // Downwards from the tool page, a page apart from everything else.
  uint64_t at = kToolPageAddr - kPageSize - rounded;
  while (at >= kLowest) {
    uint64_t lowest_clash = 0;
    bool clash = false;
    auto note = [&](uint64_t start, uint64_t end) {
      if (!overlaps(at - kPageSize, at + rounded + kPageSize, start, end)) return;
      if (!clash || start < lowest_clash) lowest_clash = start;
      clash = true;
    };
    for (const MemoryMapping& m : taken) note(m.start, m.end);
    for (const auto& [start, r] : regions_) note(start, start + r.size);
    if (!clash) {
      regions_[at] = Region{rounded, prot, std::vector<uint8_t>(rounded, 0)};
      return at;
    }
    if (lowest_clash < kLowest + rounded + 2 * kPageSize) break;
    at = (lowest_clash - kPageSize - rounded) / kPageSize * kPageSize;
  }
  return std::nullopt;
}

bool ClientMemory::deallocate(uint64_t addr) { return regions_.erase(addr) != 0; }

const ClientMemory::Region* ClientMemory::find(uint64_t addr, uint64_t* start) const {
  auto it = containing(regions_, addr);
  if (it == regions_.end()) return nullptr;
  if (start) *start = it->first;
  return &it->second;
}

std::vector<uint8_t> ClientMemory::read(uint64_t addr, std::size_t len) const {
  uint64_t start = 0;
  const Region* r = find(addr, &start);
  if (!r) return {};
  uint64_t off = addr - start;
  std::size_t n = static_cast<std::size_t>(std::min<uint64_t>(len, r->size - off));
  return {r->bytes.begin() + static_cast<long>(off), r->bytes.begin() + static_cast<long>(off + n)};
}

std::size_t ClientMemory::write(uint64_t addr, const std::vector<uint8_t>& bytes) {
  auto it = containing(regions_, addr);
  if (it == regions_.end()) return 0;
  Region* r = &it->second;
  uint64_t off = addr - it->first;
  std::size_t n = static_cast<std::size_t>(std::min<uint64_t>(bytes.size(), r->size - off));
  std::copy(bytes.begin(), bytes.begin() + static_cast<long>(n), r->bytes.begin() + static_cast<long>(off));
  return n;
}

void ClientMemory::add_to(std::vector<MemoryMapping>& maps) const {
  for (const auto& [start, r] : regions_) {
    MemoryMapping m;
    m.start = start;
    m.end = start + r.size;
    m.readable = (r.prot & PROT_READ) != 0;
    m.writable = (r.prot & PROT_WRITE) != 0;
    m.executable = (r.prot & PROT_EXEC) != 0;
    maps.push_back(std::move(m));
  }
  std::sort(maps.begin(), maps.end(), [](const MemoryMapping& a, const MemoryMapping& b) { return a.start < b.start; });
}

}  // namespace backstep
