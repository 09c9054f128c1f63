// The bound on automatic checkpoints. Each checkpoint is a fork of the
// replayed tree: left unbounded, a reverse-continue across a million trap
// hits (a walk leaves one every kHitsPerWalkCheckpoint) would fork tens of
// thousands of processes and run out of pids. So at most checkpoint_limit_
// automatic ones live at once: room is made before each fork, and eviction
// keeps the survivors spread evenly over what has been explored, so that a
// search anywhere replays at most about (explored span)/limit from the
// checkpoint before it. Never evicted: the start of history, the user's own
// checkpoints, and the one the current walk started from (pinned_). An
// evicted checkpoint's processes are killed and reaped at once (~Task).
#include <algorithm>
#include <climits>
#include <stdexcept>

#include "values/log.h"
#include "engine/timeline/checkpoint_policy.h"
#include "engine/timeline/replay_timeline.h"

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

void ReplayTimeline::add_checkpoint(int id, const Mark& mark, ReplaySession& from, Hold hold) {
  bool automatic = id <= 0;
  if (automatic && !checkpoints_.empty()) {
    // Room first, so that the fork below never makes one too many.
    while (std::optional<std::size_t> victim = eviction_victim(checkpoint_limit_ - 1)) evict(*victim);
  }
  Checkpoint cp;
  cp.id = id;
  cp.mark = mark;
  cp.session = from.clone();
  cp.holds_state = hold == Hold::AtState;
  checkpoints_.push_back(std::move(cp));
  BS_LOG(Replay, "checkpoint " << id << " at " << mark.describe());
  if (automatic) {
    thin_checkpoints();
    peak_automatic_ = std::max(peak_automatic_, automatic_checkpoints());
    if (++made_since_memory_check_ >= kCheckpointsPerMemoryCheck) enforce_memory_limit();
  }
}

void ReplayTimeline::thin_checkpoints() {
  while (std::optional<std::size_t> victim = eviction_victim(checkpoint_limit_)) evict(*victim);
}

void ReplayTimeline::evict(std::size_t index) {
  BS_LOG(Replay, "evicting checkpoint " << checkpoints_[index].id << " at " << checkpoints_[index].mark.describe());
  checkpoints_.erase(checkpoints_.begin() + static_cast<long>(index));
  ++evicted_;
}

std::size_t ReplayTimeline::automatic_checkpoints() const {
  // [0] is the start of history: not counted. A forward continue's copy in
  // a stretch is (timeline_stretch.cc).
  return static_cast<std::size_t>(
             std::count_if(checkpoints_.begin() + (checkpoints_.empty() ? 0 : 1), checkpoints_.end(),
                           [](const Checkpoint& c) { return c.id <= 0; })) +
         (stretch_.copy ? 1 : 0);
}

std::optional<std::size_t> ReplayTimeline::eviction_victim(std::size_t allowed) const {
  std::vector<std::size_t> boundary, inner, state;  // the evictable ones, by kind
  std::size_t automatic = stretch_.copy ? 1 : 0;  // a stretch's copy (timeline_stretch.cc) counts
  for (std::size_t i = 1; i < checkpoints_.size(); ++i) {
    const Checkpoint& cp = checkpoints_[i];
    if (cp.id > 0) continue;
    ++automatic;
    if (pinned_ && cp.mark == *pinned_) continue;
    (cp.holds_state ? state : cp.mark.at_boundary() ? boundary : inner).push_back(i);
  }
  auto oldest_made = [&](const std::vector<std::size_t>& of) {  // ids count down
    return *std::max_element(of.begin(), of.end(),
                             [&](std::size_t a, std::size_t b) { return checkpoints_[a].id < checkpoints_[b].id; });
  };
  // Boundary checkpoints over their share: the one whose neighbours (by
  // event) are closest goes, so that the rest stay spread over the trace.
  if (boundary.size() > std::max<std::size_t>(1, checkpoint_limit_ / kBoundaryShareDivisor)) {
    return spread_victim(boundary);
  }
  if (automatic <= allowed) return std::nullopt;

  // Inside intervals: the most recently made few are kept (the next step
  // back starts from one of them); the others in the interval being worked
  // on are spread evenly by depth; other intervals' go first.
  std::size_t recent = std::max<std::size_t>(1, checkpoint_limit_ / kRecentShareDivisor);
  std::vector<std::size_t> by_age = inner;
  std::sort(by_age.begin(), by_age.end(),
            [&](std::size_t a, std::size_t b) { return checkpoints_[a].id < checkpoints_[b].id; });
  // No search per checkpoint (the limit may be thousands): the recent ones
  // are those made at or after the recent-th newest (ids count down).
  int recent_from = by_age.empty() ? INT_MIN : checkpoints_[by_age[std::min(recent, by_age.size()) - 1]].id;
  std::vector<bool> is_inner(checkpoints_.size(), false);
  for (std::size_t i : inner) is_inner[i] = true;
  auto is_recent = [&](std::size_t i) { return is_inner[i] && checkpoints_[i].id <= recent_from; };
  if (!by_age.empty()) {
    uint64_t working = checkpoints_[by_age.front()].mark.event;
    std::vector<std::size_t> stale;
    for (std::size_t i : inner) {
      if (checkpoints_[i].mark.event != working && !is_recent(i)) stale.push_back(i);
    }
    if (!stale.empty()) return oldest_made(stale);
    // Every checkpoint inside this interval, evictable or not, by depth.
    std::vector<std::pair<uint64_t, std::size_t>> along;
    for (std::size_t i = 1; i < checkpoints_.size(); ++i) {
      const Mark& m = checkpoints_[i].mark;
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

std::size_t ReplayTimeline::spread_victim(const std::vector<std::size_t>& candidates) const {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < checkpoints_.size(); ++i) {
    if (checkpoints_[i].mark.at_boundary()) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return checkpoints_[a].mark.event < checkpoints_[b].mark.event;
  });
  std::vector<bool> candidate(checkpoints_.size(), false);
  for (std::size_t i : candidates) candidate[i] = true;
  std::size_t victim = candidates.front();
  uint64_t best_gap = UINT64_MAX;
  // The first (the start) and the last (the newest reach) are kept.
  for (std::size_t k = 1; k + 1 < order.size(); ++k) {
    std::size_t i = order[k];
    if (!candidate[i]) continue;
    uint64_t gap = checkpoints_[order[k + 1]].mark.event - checkpoints_[order[k - 1]].mark.event;
    if (gap < best_gap) {
      best_gap = gap;
      victim = i;
    }
  }
  return victim;
}

CheckpointStats ReplayTimeline::checkpoint_stats() const {
  CheckpointStats s;
  s.limit = checkpoint_limit_;
  s.automatic = automatic_checkpoints();
  s.peak = peak_automatic_;
  s.user = static_cast<std::size_t>(
      std::count_if(checkpoints_.begin(), checkpoints_.end(), [](const Checkpoint& c) { return c.id > 0; }));
  s.evicted = evicted_;
  s.memory_limit_kib = memory_limit_kib_;
  for (std::size_t i = 1; i < checkpoints_.size(); ++i) {
    if (checkpoints_[i].id <= 0) s.memory_kib += checkpoint_memory_kib(i);
  }
  s.evicted_for_memory = evicted_for_memory_;
  return s;
}

void ReplayTimeline::set_checkpoint_limit(std::size_t limit) {
  if (limit < kMinMaxCheckpoints || limit > kMaxMaxCheckpoints) {
    throw std::invalid_argument("the checkpoint limit must be from " + std::to_string(kMinMaxCheckpoints) + " to " +
                                std::to_string(kMaxMaxCheckpoints));
  }
  checkpoint_limit_ = limit;
  thin_checkpoints();
}

}  // namespace backstep
