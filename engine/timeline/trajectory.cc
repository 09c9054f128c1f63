#include "engine/timeline/trajectory.h"

#include <algorithm>

namespace backstep {
namespace {

// The position with its final steps taken off: what a run of positions
// shares.
Mark base_of(const Mark& m) {
  Mark b = m;
  b.steps = 0;
  return b;
}

}  // namespace

const TrajectoryEntry* Trajectory::find(const Mark& m) const {
  if (m.at_event || entries_.empty() || m.steps < first_ || m.steps - first_ >= entries_.size()) return nullptr;
  if (base_of(m) != base_) return nullptr;
  return &entries_[m.steps - first_];
}

std::optional<std::vector<uint8_t>> Trajectory::window_bytes(const TrajectoryEntry& entry, uint64_t addr,
                                                             std::size_t len) {
  for (const auto& w : entry.windows) {
    if (addr < w->addr || addr + len < addr || addr + len > w->addr + w->bytes.size()) continue;
    auto from = w->bytes.begin() + static_cast<std::ptrdiff_t>(addr - w->addr);
    return std::vector<uint8_t>(from, from + static_cast<std::ptrdiff_t>(len));
  }
  return std::nullopt;
}

bool Trajectory::read_only(uint64_t addr, std::size_t len) const {
  if (addr + len < addr) return false;
  uint64_t at = addr, end = addr + len;
  // The mappings are sorted and may be adjacent: walk them across the range.
  for (const auto& [start, stop] : read_only_) {
    if (at >= end) break;
    if (stop <= at) continue;
    if (start > at) return false;
    at = stop;
  }
  return at >= end;
}

void Trajectory::begin(const Mark& first, std::vector<std::pair<uint64_t, uint64_t>> read_only) {
  filling_ = true;
  pending_base_ = base_of(first);
  pending_first_ = first.steps;
  pending_.clear();
  std::sort(read_only.begin(), read_only.end());
  pending_read_only_ = std::move(read_only);
}

void Trajectory::add(TrajectoryEntry entry) {
  pending_.push_back(std::move(entry));
  if (pending_.size() > kMaxEntries) {
    // The latest positions are the ones reverse steps come to first.
    pending_.pop_front();
    ++pending_first_;
  }
}

void Trajectory::end() {
  filling_ = false;
  if (pending_.empty()) return;
  uint64_t pending_end = pending_first_ + pending_.size();
  bool same = !entries_.empty() && pending_base_ == base_;
  if (same && pending_first_ < first_ && pending_end >= first_) {
    // The run before the cached one (a reverse step went past its start):
    // put it in front, keep the earliest positions.
    pending_.resize(first_ - pending_first_);
    for (auto it = pending_.rbegin(); it != pending_.rend(); ++it) entries_.push_front(std::move(*it));
    first_ = pending_first_;
    while (entries_.size() > kMaxEntries) entries_.pop_back();
  } else if (same && pending_first_ >= first_ && pending_first_ <= first_ + entries_.size()) {
    // The run after it (or inside it): append what is new.
    uint64_t have_end = first_ + entries_.size();
    for (std::size_t i = 0; i < pending_.size(); ++i) {
      if (pending_first_ + i >= have_end) entries_.push_back(std::move(pending_[i]));
    }
    while (entries_.size() > kMaxEntries) {
      entries_.pop_front();
      ++first_;
    }
  } else {
    base_ = pending_base_;
    first_ = pending_first_;
    entries_ = std::move(pending_);
    read_only_ = std::move(pending_read_only_);
  }
  pending_.clear();
}

void Trajectory::clear() {
  entries_.clear();
  pending_.clear();
  filling_ = false;
}

}  // namespace backstep
