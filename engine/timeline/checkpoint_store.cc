// The checkpoint list (checkpoint_store.h): adding, choosing, and keeping
// the automatic ones within their bounds. Which one goes when one must is
// decided in checkpoint_bound.cc.
//
// The memory bound: a checkpoint costs the pages the replay has written
// since its fork (copy-on-write), so a count bound alone lets a program that
// rewrites a large heap between checkpoints hold up to the limit times its
// size. Each checkpoint says what its processes hold (HeldSession::
// memory_kib(): their proportional share, which adds up over every process
// to what the replay tree occupies). Over the limit, checkpoints go in the
// order eviction_victim() gives (spread evenly, the pinned and the user's
// kept), measuring again after each, until the rest fit.
#include "engine/timeline/checkpoint_store.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "values/log.h"

namespace backstep {

using namespace checkpoint_policy;

namespace {

// The replay time that makes an automatic checkpoint due: kTimePerCheckpoint,
// or BACKSTEP_CHECKPOINT_MS. Where the checkpoints fall then depends on how
// fast the machine is; the tests set 0 (one at every new event boundary) so
// that any boundary a loaded machine might pick is exercised every time.
std::chrono::milliseconds time_per_checkpoint() {
  static const std::chrono::milliseconds interval = [] {
    const char* text = std::getenv("BACKSTEP_CHECKPOINT_MS");
    char* end = nullptr;
    long ms = text && *text ? std::strtol(text, &end, 10) : -1;
    return ms >= 0 && end && *end == '\0' ? std::chrono::milliseconds(ms) : kTimePerCheckpoint;
  }();
  return interval;
}

}  // namespace

CheckpointStore::CheckpointStore(uint64_t memory_limit_kib, std::function<std::size_t()> held_elsewhere)
    : held_elsewhere_(std::move(held_elsewhere)), memory_limit_kib_(memory_limit_kib) {}

void CheckpointStore::add_start(const Mark& mark, const Fork& fork) {
  add(Kind::Automatic, mark, fork);
  last_automatic_time_ = Clock::now();
}

int CheckpointStore::add(Kind kind, const Mark& mark, const Fork& fork) {
  bool automatic = kind != Kind::User;
  int id = automatic ? next_automatic_id_-- : next_user_id_++;
  if (automatic && !list_.empty()) {
    // Room first, so that the fork below never makes one too many.
    while (std::optional<std::size_t> victim = eviction_victim(limit_ - 1)) evict(*victim);
  }
  Checkpoint cp;
  cp.id = id;
  cp.mark = mark;
  cp.session = fork();
  cp.holds_state = kind == Kind::AtState;
  list_.push_back(std::move(cp));
  BS_LOG(Replay, "checkpoint " << id << " at " << mark.describe());
  if (automatic) {
    thin();
    note_peak();
    if (++made_since_memory_check_ >= kCheckpointsPerMemoryCheck) enforce_memory_limit();
  }
  return id;
}

bool CheckpointStore::add_if_due(const Mark& here, const Fork& fork, Pace pace) {
  if (!here.at_boundary()) return false;
  uint64_t newest = 0;
  for (const Checkpoint& cp : list_) newest = std::max(newest, cp.mark.event);
  bool due = here.event >= newest + kEventsPerCheckpoint ||
             (here.event > newest &&
              (pace == Pace::EveryBoundary || Clock::now() - last_automatic_time_ >= time_per_checkpoint()));
  if (!due) return false;
  add(Kind::Automatic, here, fork);
  last_automatic_time_ = Clock::now();
  thin();
  return true;
}

const CheckpointStore::Checkpoint* CheckpointStore::best_before(const Mark& target, Bound bound, Where where) const {
  const Checkpoint* best = nullptr;
  for (const Checkpoint& cp : list_) {
    if (where == Where::AtBoundary && !cp.mark.at_boundary()) continue;
    if (!cp.mark.is_prefix_of(target, bound == Bound::Inclusive)) continue;
    if (!best || best->mark.is_prefix_of(cp.mark, false)) best = &cp;
  }
  return best;
}

bool CheckpointStore::has_at(const Mark& mark) const {
  const Checkpoint* near = best_before(mark, Bound::Inclusive);
  return near && near->mark == mark;
}

const CheckpointStore::Checkpoint* CheckpointStore::find_user(int id) const {
  if (id <= 0) return nullptr;
  for (const Checkpoint& cp : list_) {
    if (cp.id == id) return &cp;
  }
  return nullptr;
}

bool CheckpointStore::remove_user(int id) {
  if (id <= 0) return false;
  auto it = std::find_if(list_.begin(), list_.end(), [&](const Checkpoint& c) { return c.id == id; });
  if (it == list_.end()) return false;
  list_.erase(it);
  return true;
}

void CheckpointStore::evict_id(int id) {
  auto it = std::find_if(list_.begin(), list_.end(), [&](const Checkpoint& c) { return c.id == id; });
  if (it != list_.end()) evict(static_cast<std::size_t>(it - list_.begin()));
}

void CheckpointStore::cap_states(std::size_t keep) {
  auto holds_state = [](const Checkpoint& c) { return c.holds_state; };
  if (static_cast<std::size_t>(std::count_if(list_.begin(), list_.end(), holds_state)) <= keep) return;
  auto oldest = std::find_if(list_.begin(), list_.end(), holds_state);
  evict(static_cast<std::size_t>(oldest - list_.begin()));
}

void CheckpointStore::thin() {
  while (std::optional<std::size_t> victim = eviction_victim(limit_)) evict(*victim);
}

void CheckpointStore::make_room() {
  while (std::optional<std::size_t> victim = eviction_victim(limit_ - 1)) evict(*victim);
}

void CheckpointStore::note_peak() { peak_automatic_ = std::max(peak_automatic_, automatic()); }

void CheckpointStore::evict(std::size_t index) {
  BS_LOG(Replay, "evicting checkpoint " << list_[index].id << " at " << list_[index].mark.describe());
  list_.erase(list_.begin() + static_cast<long>(index));
  ++evicted_;
}

std::size_t CheckpointStore::automatic() const {
  // [0] is the start of history: not counted.
  return static_cast<std::size_t>(std::count_if(list_.begin() + (list_.empty() ? 0 : 1), list_.end(),
                                                [](const Checkpoint& c) { return c.id <= 0; })) +
         held_elsewhere();
}

uint64_t CheckpointStore::automatic_memory_kib() const {
  uint64_t kib = 0;
  for (std::size_t i = 1; i < list_.size(); ++i) {
    if (list_[i].id <= 0) kib += list_[i].session->memory_kib();
  }
  return kib;
}

void CheckpointStore::enforce_memory_limit() {
  made_since_memory_check_ = 0;
  // Measured again after each eviction: the pages the evicted one shared
  // now count more to the others.
  for (;;) {
    uint64_t total = automatic_memory_kib();
    if (total <= memory_limit_kib_) return;
    std::size_t live = automatic();
    std::optional<std::size_t> victim = live ? eviction_victim(live - 1) : std::nullopt;
    if (!victim) return;  // only the pinned one is left
    BS_LOG(Replay, "checkpoints hold " << total << " KiB, over " << memory_limit_kib_ << " KiB");
    evict(*victim);
    ++evicted_for_memory_;
  }
}

CheckpointStats CheckpointStore::stats() const {
  CheckpointStats s;
  s.limit = limit_;
  s.automatic = automatic();
  s.peak = peak_automatic_;
  s.user = static_cast<std::size_t>(
      std::count_if(list_.begin(), list_.end(), [](const Checkpoint& c) { return c.id > 0; }));
  s.evicted = evicted_;
  s.memory_limit_kib = memory_limit_kib_;
  s.memory_kib = automatic_memory_kib();
  s.evicted_for_memory = evicted_for_memory_;
  return s;
}

void CheckpointStore::set_limit(std::size_t limit) {
  if (limit < kMinMaxCheckpoints || limit > kMaxMaxCheckpoints) {
    throw std::invalid_argument("the checkpoint limit must be from " + std::to_string(kMinMaxCheckpoints) + " to " +
                                std::to_string(kMaxMaxCheckpoints));
  }
  limit_ = limit;
  thin();
}

void CheckpointStore::set_memory_limit(uint64_t kib) {
  if (kib < 1024) throw std::invalid_argument("the checkpoint memory limit must be at least 1 MiB");
  memory_limit_kib_ = kib;
  enforce_memory_limit();
}

}  // namespace backstep
