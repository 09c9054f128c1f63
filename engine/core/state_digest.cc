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

struct StateDeleter {
  void operator()(XXH3_state_t* s) const { XXH3_freeState(s); }
};

// Calls fn(address, bytes, length) for each readable chunk of program state,
// with the hidden bytes put back. Untouched anonymous pages come as zeros
// without being read.
template <typename Fn>
void for_each_chunk(Task& task, const std::map<uint64_t, uint8_t>& hidden, Fn fn) {
  std::vector<uint8_t> buf(kChunk);
  Pagemap pagemap(task.tid());
  for (const MapsEntry& m : read_proc_maps(task.tid())) {
    if (!is_program_state(m)) continue;
    bool anonymous = m.inode == 0 && !m.shared;
    for (uint64_t at = m.start; at < m.end; at += kChunk) {
      std::size_t want = static_cast<std::size_t>(std::min<uint64_t>(kChunk, m.end - at));
      std::size_t got = 0;
      if (anonymous) {
        // Each run of touched pages in one read (a read a page cost 9 us
        // of system time: 100 ms for the 43 MB of a par_sort thread).
        std::vector<bool> touched = pagemap.touched(at, want);
        got = want;
        for (std::size_t i = 0; i < touched.size();) {
          std::size_t j = i + 1;
          while (j < touched.size() && touched[j] == touched[i]) ++j;
          std::size_t off = i * kPage, n = std::min<std::size_t>(j * kPage, want) - off;
          if (!touched[i]) {
            std::memset(buf.data() + off, 0, n);
          } else if (std::size_t read = task.read_some(remote_ptr<void>(at + off), buf.data() + off, n); read != n) {
            got = off + read / kPage * kPage;  // the pages read whole
            break;
          }
          i = j;
        }
      } else {
        got = task.read_some(remote_ptr<void>(at), buf.data(), want);
      }
      for (auto it = hidden.lower_bound(at); it != hidden.end() && it->first < at + got; ++it) {
        buf[it->first - at] = it->second;
      }
      if (got) fn(at, buf.data(), got);
      if (got < want) break;  // the rest of this mapping cannot be read
    }
  }
}

}  // namespace

uint64_t StateDigest::combined() const { return memory ^ (vector * 0x9e3779b97f4a7c15ull); }

StateDigest state_digest(Task& task, const std::vector<uint8_t>& xstate,
                         const std::map<uint64_t, uint8_t>& hidden) {
  std::unique_ptr<XXH3_state_t, StateDeleter> state(XXH3_createState());
  if (!state || XXH3_64bits_reset(state.get()) == XXH_ERROR) throw std::runtime_error("xxhash: out of memory");
  StateDigest d;
  for_each_chunk(task, hidden, [&](uint64_t at, const uint8_t* data, std::size_t len) {
    d.bytes += len;
    for (std::size_t off = 0; off < len; off += kPage) {
      std::size_t n = std::min<std::size_t>(kPage, len - off);
      if (all_zero(data + off, n)) continue;
      uint64_t addr = at + off;
      XXH3_64bits_update(state.get(), &addr, sizeof(addr));
      XXH3_64bits_update(state.get(), data + off, n);
    }
  });
  d.memory = XXH3_64bits_digest(state.get());
  if (xstate.size() >= kXmmEnd) {
    uint8_t v[4 + (kXmmEnd - kXmmOffset)];
    std::memcpy(v, xstate.data() + kMxcsrOffset, 4);
    std::memcpy(v + 4, xstate.data() + kXmmOffset, kXmmEnd - kXmmOffset);
    d.vector = XXH3_64bits(v, sizeof(v));
  }
  return d;
}

std::size_t MemoryImage::bytes() const {
  std::size_t n = 0;
  for (const Range& r : ranges) n += r.bytes.size();
  return n;
}

MemoryImage writable_image(Task& task, const std::map<uint64_t, uint8_t>& hidden) {
  MemoryImage image;
  for_each_chunk(task, hidden, [&](uint64_t at, const uint8_t* data, std::size_t len) {
    for (std::size_t off = 0; off < len; off += kPage) {
      std::size_t n = std::min<std::size_t>(kPage, len - off);
      if (all_zero(data + off, n)) continue;
      uint64_t addr = at + off;
      if (image.ranges.empty() || image.ranges.back().start + image.ranges.back().bytes.size() != addr) {
        image.ranges.push_back({addr, {}});
      }
      image.ranges.back().bytes.insert(image.ranges.back().bytes.end(), data + off, data + off + n);
    }
  });
  return image;
}

}  // namespace backstep
