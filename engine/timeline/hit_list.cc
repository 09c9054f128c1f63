// The last backward search's list of hits (hit_list.h): which listed hit a
// reverse-continue lands on, and where the user stepped off one.
#include "engine/timeline/hit_list.h"

#include <utility>

namespace backstep {

void HitList::replace(TrapConfig traps, std::deque<Candidate> hits) {
  List list{std::move(traps), std::move(hits)};
  list.at = list.hits.size() - 1;  // the hit returned is the last listed
  list_ = std::move(list);
}

std::optional<std::size_t> HitList::index_before(const TrapConfig& traps, const Mark& at,
                                                 const std::function<uint64_t()>& pc_at) const {
  if (!list_ || list_->traps != traps) return std::nullopt;
  const List& list = *list_;
  std::size_t k = list.at;
  if (k == 0 || k >= list.hits.size()) return std::nullopt;
  const Candidate& here = list.hits[k];
  const Candidate& before = list.hits[k - 1];
  if (here.stop.kind != TargetStop::Kind::Breakpoint || before.stop.kind != TargetStop::Kind::Breakpoint) {
    return std::nullopt;
  }
  // Standing at the listed hit itself: the one before it is the answer.
  if (at == here.mark) return k - 1;
  // gdb first steps back off the breakpoint it stands on, then continues
  // backwards: from the instruction just before the hit, the answer is the
  // hit before it, unless that hit is this very instruction (the same pc:
  // then a search decides).
  if (list.stepped_off && at == *list.stepped_off && before.stop.address != pc_at()) return k - 1;
  return std::nullopt;
}

const Candidate* HitList::take_before(const TrapConfig& traps, const Mark& at,
                                      const std::function<uint64_t()>& pc_at) {
  std::optional<std::size_t> k = index_before(traps, at, pc_at);
  if (!k) return nullptr;
  ++served_;
  list_->at = *k;
  list_->stepped_off.reset();
  return &list_->hits[*k];
}

void HitList::note_step_back(const Mark& from, const Mark& landed) {
  if (!list_) return;
  List& list = *list_;
  list.stepped_off.reset();
  if (list.at < list.hits.size() && list.hits[list.at].mark == from) list.stepped_off = landed;
}

void HitList::forget_step_off() {
  if (list_) list_->stepped_off.reset();
}

}  // namespace backstep
