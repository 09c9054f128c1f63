#include "engine/record/mapped_file_sizes.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

namespace backstep {
namespace {

constexpr uint64_t kPage = 4096;
uint64_t page_up(uint64_t v) { return (v + kPage - 1) & ~(kPage - 1); }

}  // namespace

MappedFileSizes::~MappedFileSizes() {
  for (const Watched& w : watched_) ::close(w.fd);
}

void MappedFileSizes::watch(const std::string& fd_path, uint64_t object, uint64_t size, uint64_t start,
                            uint64_t end) {
  unmapped(start, end - start);
  for (Watched& w : watched_) {
    if (w.object != object) continue;
    w.ranges.push_back({start, end});
    return;
  }
  int fd = ::open(fd_path.c_str(), O_PATH | O_CLOEXEC);
  if (fd < 0) return;  // gone already: its size cannot change under the program
  watched_.push_back({fd, object, size, {{start, end}}});
}

void MappedFileSizes::cut(uint64_t start, uint64_t len) {
  uint64_t end = start + page_up(len);
  for (Watched& w : watched_) {
    std::vector<Range> left;
    for (const Range& r : w.ranges) {
      // What is left of r on either side of [start, end): a partly unmapped
      // mapping still maps the rest over the object in replay.
      if (r.end <= start || end <= r.start) {
        left.push_back(r);
        continue;
      }
      if (r.start < start) left.push_back({r.start, start});
      if (end < r.end) left.push_back({end, r.end});
    }
    w.ranges = std::move(left);
  }
}

void MappedFileSizes::unmapped(uint64_t start, uint64_t len) {
  cut(start, len);
  drop_unmapped();
}

void MappedFileSizes::remapped(uint64_t old_addr, uint64_t old_len, bool old_kept, uint64_t new_addr,
                               uint64_t new_len) {
  // The span that moves: with old_len 0, a copy of new_len bytes from old_addr.
  uint64_t old_end = old_addr + page_up(old_len == 0 ? new_len : old_len);
  uint64_t new_end = new_addr + page_up(new_len);
  struct Moved {
    Watched* to;
    Range range;
  };
  std::vector<Moved> moved;
  for (Watched& w : watched_) {
    for (const Range& r : w.ranges) {
      uint64_t lo = std::max(r.start, old_addr), hi = std::min(r.end, old_end);
      if (lo >= hi) continue;
      // The same offsets at the new place; a range that reached the old
      // end reaches the new one (what mremap adds maps more of the same).
      uint64_t start = new_addr + (lo - old_addr);
      uint64_t end = hi == old_end ? new_end : std::min(new_end, new_addr + (hi - old_addr));
      if (start < end) moved.push_back({&w, {start, end}});
    }
  }
  if (!old_kept) cut(old_addr, old_len);
  cut(new_addr, new_len);
  for (const Moved& m : moved) m.to->ranges.push_back(m.range);
  drop_unmapped();
}

void MappedFileSizes::drop_unmapped() {
  std::erase_if(watched_, [&](const Watched& w) {
    if (!w.ranges.empty()) return false;
    ::close(w.fd);
    return true;
  });
}

void MappedFileSizes::note_changes(trace::Event& event) {
  for (Watched& w : watched_) {
    struct stat st {};
    if (::fstat(w.fd, &st) != 0) continue;
    uint64_t size = static_cast<uint64_t>(st.st_size);
    if (size == w.size) continue;
    w.size = size;
    trace::Mapping note;
    note.kind = trace::MappingKind::FileSize;
    note.shared_object = w.object;
    note.file_size = size;
    event.mappings.push_back(std::move(note));
  }
}

std::set<uint64_t> MappedFileSizes::watched() const {
  std::set<uint64_t> objects;
  for (const Watched& w : watched_) objects.insert(w.object);
  return objects;
}

}  // namespace backstep
