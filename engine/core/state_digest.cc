#include "engine/core/state_digest.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "engine/core/pagemap.h"
#include "engine/core/proc_maps.h"
#include "engine/core/task.h"
#include "engine/core/tool_page.h"
#include "preload/preload_interface.h"

namespace backstep {
namespace {

constexpr uint64_t kPage = 4096;
constexpr std::size_t kChunk = 1 << 20;
// FXSAVE layout: MXCSR at 24, XMM0-15 at 160..416.
constexpr std::size_t kMxcsrOffset = 24;
constexpr std::size_t kXmmOffset = 160;
constexpr std::size_t kXmmEnd = 416;

bool is_program_state(const MapsEntry& m) {
  if (!(m.prot & PROT_WRITE)) return false;
  if (m.name.rfind("[vvar", 0) == 0 || m.name == "[vsyscall]") return false;
  if (m.start < kToolPageAddr + kToolPageSize && kToolPageAddr < m.end) return false;
  // Syscall buffers (preload/preload_interface.h): not the program's state.
  if (m.start < BS_BUFFER_REGION_END && BS_BUFFER_REGION_START < m.end) return false;
  return true;
}

bool all_zero(const uint8_t* p, std::size_t n) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    if (w) return false;
  }
  for (; i < n; ++i)
    if (p[i]) return false;
  return true;
}

// Calls fn(i, j) for each run [i, j) of set bits, in order.
template <typename Fn>
void for_each_set_run(const std::vector<bool>& bits, Fn fn) {
  for (std::size_t i = 0; i < bits.size();) {
    if (!bits[i]) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < bits.size() && bits[j]) ++j;
    fn(i, j);
    i = j;
  }
}

// Calls fn(address, bytes, length) for each readable run of program state
// in address order, with the hidden bytes put back. Pages of anonymous
// mappings that were never touched read as zero and are left out without
// being read (a JVM reserves hundreds of MiB it never touches). With
// `ranges`, also gives every mapping looked at, adjacent ones merged.
template <typename Fn>
void for_each_run(Task& task, const std::map<uint64_t, uint8_t>& hidden, Fn fn,
                  std::vector<PageSpan>* ranges = nullptr) {
  std::vector<uint8_t> buf(kChunk);
  Pagemap pagemap(task.tid());
  for (const MapsEntry& m : read_proc_maps(task.tid())) {
    if (!is_program_state(m)) continue;
    if (ranges) {
      if (!ranges->empty() && ranges->back().end == m.start) {
        ranges->back().end = m.end;
      } else {
        ranges->push_back({m.start, m.end});
      }
    }
    bool anonymous = m.inode == 0 && !m.shared;
    bool readable = true;
    // The touched runs of an anonymous mapping, where the kernel can walk
    // them: chunks with none are passed over unread, as pagemap.touched
    // would have found them (the same chunks, the same runs in each).
    std::optional<std::vector<std::pair<uint64_t, uint64_t>>> runs;
    if (anonymous) runs = pagemap.touched_runs(m.start, m.end);
    std::size_t next_run = 0;
    for (uint64_t at = m.start; at < m.end && readable; at += kChunk) {
      std::size_t want = static_cast<std::size_t>(std::min<uint64_t>(kChunk, m.end - at));
      std::size_t pages = (want + kPage - 1) / kPage;
      std::vector<bool> touched;
      if (runs) {
        while (next_run < runs->size() && (*runs)[next_run].second <= at) ++next_run;
        if (next_run == runs->size()) break;
        uint64_t first = (*runs)[next_run].first;
        if (first >= at + want) {
          at += (first - at) / kChunk * kChunk - kChunk;  // on to the chunk that holds it
          continue;
        }
        touched.assign(pages, false);
        for (std::size_t r = next_run; r < runs->size() && (*runs)[r].first < at + want; ++r) {
          uint64_t lo = std::max((*runs)[r].first, at), hi = std::min((*runs)[r].second, at + want);
          for (uint64_t p = lo; p < hi; p += kPage) touched[(p - at) / kPage] = true;
        }
      } else {
        // Each run of touched pages in one read (a read a page cost 9 us
        // of system time: 100 ms for the 43 MB of a par_sort thread).
        touched = anonymous ? pagemap.touched(at, want) : std::vector<bool>(pages, true);
      }
      for_each_set_run(touched, [&](std::size_t i, std::size_t j) {
        if (!readable) return;
        std::size_t off = i * kPage, n = std::min<std::size_t>(j * kPage, want) - off;
        std::size_t got = task.read_some(remote_ptr<void>(at + off), buf.data() + off, n);
        got = got / kPage * kPage;  // the pages read whole
        for (auto it = hidden.lower_bound(at + off); it != hidden.end() && it->first < at + off + got; ++it) {
          buf[it->first - at] = it->second;
        }
        if (got) fn(at + off, buf.data() + off, got);
        if (got < n) readable = false;  // the rest of this mapping cannot be read
      });
    }
  }
}

}  // namespace

uint64_t StateDigest::combined() const { return memory ^ (vector * 0x9e3779b97f4a7c15ull); }

StateDigestBuilder::StateDigestBuilder() : state_(XXH3_createState()) {
  if (!state_ || XXH3_64bits_reset(state_) == XXH_ERROR) {
    XXH3_freeState(state_);
    throw std::runtime_error("xxhash: out of memory");
  }
}

StateDigestBuilder::~StateDigestBuilder() { XXH3_freeState(state_); }

void StateDigestBuilder::add(uint64_t at, const uint8_t* data, std::size_t len) {
  bytes_ += len;
  for (std::size_t off = 0; off < len; off += kPage) {
    std::size_t n = std::min<std::size_t>(kPage, len - off);
    if (all_zero(data + off, n)) continue;
    uint64_t addr = at + off;
    XXH3_64bits_update(state_, &addr, sizeof(addr));
    XXH3_64bits_update(state_, data + off, n);
  }
}

StateDigest StateDigestBuilder::finish(const std::vector<uint8_t>& xstate) {
  StateDigest d;
  d.bytes = bytes_;
  d.memory = XXH3_64bits_digest(state_);
  if (xstate.size() >= kXmmEnd) {
    uint8_t v[4 + (kXmmEnd - kXmmOffset)];
    std::memcpy(v, xstate.data() + kMxcsrOffset, 4);
    std::memcpy(v + 4, xstate.data() + kXmmOffset, kXmmEnd - kXmmOffset);
    d.vector = XXH3_64bits(v, sizeof(v));
  }
  return d;
}

StateDigest state_digest(Task& task, const std::vector<uint8_t>& xstate,
                         const std::map<uint64_t, uint8_t>& hidden) {
  StateDigestBuilder b;
  for_each_run(task, hidden, [&](uint64_t at, const uint8_t* data, std::size_t len) { b.add(at, data, len); });
  return b.finish(xstate);
}

void for_each_written_page(Task& task, const std::function<void(uint64_t, const uint8_t*)>& fn) {
  for_each_run(task, {}, [&](uint64_t at, const uint8_t* data, std::size_t len) {
    for (std::size_t off = 0; off + kPage <= len; off += kPage) {
      if (!all_zero(data + off, kPage)) fn(at + off, data + off);
    }
  });
}

MemoryDelta memory_delta(Task& task, const std::vector<PageHash>* base) {
  MemoryDelta d;
  std::size_t b = 0;  // the first page of `base` not below the page looked at
  std::vector<bool> changed;
  for_each_run(
      task, {},
      [&](uint64_t at, const uint8_t* data, std::size_t len) {
        const std::size_t pages = len / kPage;
        changed.assign(pages, false);
        for (std::size_t i = 0; i < pages; ++i) {
          const uint8_t* page = data + i * kPage;
          if (all_zero(page, kPage)) continue;
          uint64_t addr = at + i * kPage;
          uint64_t hash = XXH3_64bits(page, kPage);
          d.hashes.push_back({addr, hash});
          d.image_bytes += kPage;
          if (base) {
            while (b < base->size() && (*base)[b].addr < addr) ++b;
            if (b < base->size() && (*base)[b].addr == addr && (*base)[b].hash == hash) continue;
          }
          changed[i] = true;
        }
        // Each run of changed pages copied once, into a vector of its size
        // (growing one page by page would copy and fault in the memory of
        // a full state several times over).
        for_each_set_run(changed, [&](std::size_t i, std::size_t j) {
          d.changed.push_back({at + i * kPage, std::vector<uint8_t>(data + i * kPage, data + j * kPage)});
          d.changed_bytes += (j - i) * kPage;
        });
      },
      &d.ranges);
  if (!base) return d;
  // The base's pages that are all zero now but still mapped: replay must
  // clear them in its copy of the base.
  std::size_t h = 0, r = 0;
  for (const PageHash& old : *base) {
    while (h < d.hashes.size() && d.hashes[h].addr < old.addr) ++h;
    if (h < d.hashes.size() && d.hashes[h].addr == old.addr) continue;
    while (r < d.ranges.size() && d.ranges[r].end <= old.addr) ++r;
    if (r == d.ranges.size() || d.ranges[r].start > old.addr) continue;  // gone with its mapping
    if (!d.zeroed.empty() && d.zeroed.back().end == old.addr) {
      d.zeroed.back().end += kPage;
    } else {
      d.zeroed.push_back({old.addr, old.addr + kPage});
    }
  }
  return d;
}

}  // namespace backstep
