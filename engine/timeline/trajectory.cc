#include "engine/timeline/trajectory.h"

#include <algorithm>
#include <optional>

namespace backstep {
namespace {

// The position with its final steps taken off: what a run of positions
// shares.
Mark base_of(const Mark& m) {
  Mark b = m;
  b.steps = 0;
  return b;
}

// `base` is `m` without its steps (compared in place: a reverse step asks
// several times per stop).
bool same_base(const Mark& base, const Mark& m) {
  return base.event == m.event && base.at_event == m.at_event && base.steps == 0 && base.anchors == m.anchors;
}

}  // namespace

const TrajectoryEntry* Trajectory::find(const Mark& m) const {
  if (m.at_event) return nullptr;
  for (auto run = runs_.rbegin(); run != runs_.rend(); ++run) {
    if (m.steps < run->first || m.steps - run->first >= run->entries.size() || !same_base(run->base, m)) continue;
    return &run->entries[m.steps - run->first];
  }
  return nullptr;
}

std::optional<uint64_t> Trajectory::complete_run_end(const Mark& base) const {
  for (auto run = runs_.rbegin(); run != runs_.rend(); ++run) {
    if (run->complete && !run->entries.empty() && run->base == base) return run->first + run->entries.size() - 1;
  }
  return std::nullopt;
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

void Trajectory::end(bool complete) {
  filling_ = false;
  if (pending_.empty()) return;
  // Runs of one interval only: nothing between two of its positions changes
  // a mapping, which read_only() relies on.
  if (!runs_.empty() && (runs_.front().base.event != pending_base_.event)) {
    runs_.clear();
    total_ = 0;
  }
  if (runs_.empty()) read_only_ = std::move(pending_read_only_);
  Run run{pending_base_, pending_first_, std::move(pending_), complete};
  pending_.clear();
  merge(run);
  while (runs_.size() > 1 && (total_ > kMaxEntries || runs_.size() > kMaxRuns)) {
    total_ -= runs_.front().entries.size();
    runs_.erase(runs_.begin());
  }
}

void Trajectory::merge(Run& pending) {
  auto same = std::find_if(runs_.begin(), runs_.end(), [&](const Run& r) { return r.base == pending.base; });
  if (same != runs_.end()) {
    Run cached = std::move(*same);
    total_ -= cached.entries.size();
    runs_.erase(same);
    uint64_t pending_end = pending.first + pending.entries.size();
    if (pending.first < cached.first && pending_end >= cached.first) {
      // The run before the cached one (a reverse step went past its start):
      // put it in front, keep the earliest positions.
      pending.entries.resize(cached.first - pending.first);
      for (auto it = pending.entries.rbegin(); it != pending.entries.rend(); ++it) {
        cached.entries.push_front(std::move(*it));
      }
      cached.first = pending.first;
      while (cached.entries.size() > kMaxEntries) {
        cached.entries.pop_back();
        cached.complete = false;
      }
      pending = std::move(cached);
    } else if (pending.first >= cached.first && pending.first <= cached.first + cached.entries.size()) {
      // The run after it (or inside it): append what is new.
      uint64_t have_end = cached.first + cached.entries.size();
      bool longer = pending_end > have_end;
      for (std::size_t i = 0; i < pending.entries.size(); ++i) {
        if (pending.first + i >= have_end) cached.entries.push_back(std::move(pending.entries[i]));
      }
      cached.complete = longer ? pending.complete : cached.complete || (pending_end == have_end && pending.complete);
      while (cached.entries.size() > kMaxEntries) {
        cached.entries.pop_front();
        ++cached.first;
      }
      pending = std::move(cached);
    }
    // Otherwise apart from it: the new run replaces it.
  }
  total_ += pending.entries.size();
  runs_.push_back(std::move(pending));
}

void Trajectory::clear() {
  runs_.clear();
  total_ = 0;
  pending_.clear();
  filling_ = false;
}

}  // namespace backstep
