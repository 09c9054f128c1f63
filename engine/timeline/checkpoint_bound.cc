// The bound on automatic checkpoints: which one CheckpointStore evicts
// (checkpoint_store.h). Each checkpoint is a fork of the replayed tree:
// left unbounded, a reverse-continue across a million trap hits (a walk
// leaves one every kHitsPerWalkCheckpoint) would fork tens of thousands of
// processes and run out of pids. So at most limit_ automatic ones live at
// once: room is made before each fork, and eviction keeps the survivors
// spread evenly over what has been explored, so that a search anywhere
// replays at most about (explored span)/limit from the checkpoint before
// it. Never evicted: the start of history, the user's own checkpoints, and
// the one the current walk started from (pinned_). An evicted checkpoint's
// processes are killed and reaped at once (~Task).
#include <algorithm>
#include <climits>

#include "engine/timeline/checkpoint_policy.h"
#include "engine/timeline/checkpoint_store.h"

namespace backstep {

using namespace checkpoint_policy;

namespace {

// How far along its interval a mark lies: the trap hits and steps from the
// interval's start (monotonic along any one way through the interval).
uint64_t depth(const Mark& m) {
  uint64_t d = 0;
  for (const Move& move : m.moves()) d += move.n;
  return d;
}

}  // namespace

std::optional<std::size_t> CheckpointStore::eviction_victim(std::size_t allowed) const {
  std::vector<std::size_t> boundary, inner, state;  // the evictable ones, by kind
  std::size_t automatic = held_elsewhere();  // a stretch's copy (stretch_copy.cc) counts
  for (std::size_t i = 1; i < list_.size(); ++i) {
    const Checkpoint& cp = list_[i];
    if (cp.id > 0) continue;
    ++automatic;
    if (pinned_ && cp.mark == *pinned_) continue;
    (cp.holds_state ? state : cp.mark.at_boundary() ? boundary : inner).push_back(i);
  }
  auto oldest_made = [&](const std::vector<std::size_t>& of) {  // ids count down
    return *std::max_element(of.begin(), of.end(),
                             [&](std::size_t a, std::size_t b) { return list_[a].id < list_[b].id; });
  };
  // Boundary checkpoints over their share: the one whose neighbours (by
  // event) are closest goes, so that the rest stay spread over the trace.
  if (boundary.size() > std::max<std::size_t>(1, limit_ / kBoundaryShareDivisor)) {
    return spread_victim(boundary);
  }
  if (automatic <= allowed) return std::nullopt;

  // Inside intervals: the most recently made few are kept (the next step
  // back starts from one of them); the others in the interval being worked
  // on are spread evenly by depth; other intervals' go first.
  std::size_t recent = std::max<std::size_t>(1, limit_ / kRecentShareDivisor);
  std::vector<std::size_t> by_age = inner;
  std::sort(by_age.begin(), by_age.end(),
            [&](std::size_t a, std::size_t b) { return list_[a].id < list_[b].id; });
  // No search per checkpoint (the limit may be thousands): the recent ones
  // are those made at or after the recent-th newest (ids count down).
  int recent_from = by_age.empty() ? INT_MIN : list_[by_age[std::min(recent, by_age.size()) - 1]].id;
  std::vector<bool> is_inner(list_.size(), false);
  for (std::size_t i : inner) is_inner[i] = true;
  auto is_recent = [&](std::size_t i) { return is_inner[i] && list_[i].id <= recent_from; };
  if (!by_age.empty()) {
    uint64_t working = list_[by_age.front()].mark.event;
    std::vector<std::size_t> stale;
    for (std::size_t i : inner) {
      if (list_[i].mark.event != working && !is_recent(i)) stale.push_back(i);
    }
    if (!stale.empty()) return oldest_made(stale);
    // Every checkpoint inside this interval, evictable or not, by depth.
    std::vector<std::pair<uint64_t, std::size_t>> along;
    for (std::size_t i = 1; i < list_.size(); ++i) {
      const Mark& m = list_[i].mark;
      if (m.event == working && !m.at_boundary()) along.emplace_back(depth(m), i);
    }
    std::sort(along.begin(), along.end());
    std::optional<std::size_t> victim;
    uint64_t best_gap = UINT64_MAX;
    // The deepest one marks the end of what was explored: kept.
    for (std::size_t k = 0; k + 1 < along.size(); ++k) {
      std::size_t i = along[k].second;
      if (!is_inner[i] || is_recent(i)) continue;
      uint64_t gap = along[k + 1].first - (k == 0 ? 0 : along[k - 1].first);
      if (gap < best_gap) {
        best_gap = gap;
        victim = i;
      }
    }
    if (victim) return victim;
  }
  if (!state.empty()) return oldest_made(state);
  if (!boundary.empty()) return spread_victim(boundary);
  if (!inner.empty()) return oldest_made(inner);
  return std::nullopt;  // only the pinned one is left
}

std::size_t CheckpointStore::spread_victim(const std::vector<std::size_t>& candidates) const {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < list_.size(); ++i) {
    if (list_[i].mark.at_boundary()) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return list_[a].mark.event < list_[b].mark.event;
  });
  std::vector<bool> candidate(list_.size(), false);
  for (std::size_t i : candidates) candidate[i] = true;
  std::size_t victim = candidates.front();
  uint64_t best_gap = UINT64_MAX;
  // The first (the start) and the last (the newest reach) are kept.
  for (std::size_t k = 1; k + 1 < order.size(); ++k) {
    std::size_t i = order[k];
    if (!candidate[i]) continue;
    uint64_t gap = list_[order[k + 1]].mark.event - list_[order[k - 1]].mark.event;
    if (gap < best_gap) {
      best_gap = gap;
      victim = i;
    }
  }
  return victim;
}

}  // namespace backstep
