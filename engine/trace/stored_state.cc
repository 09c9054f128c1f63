#include "engine/trace/stored_state.h"

#include <cstring>

namespace backstep::trace {
namespace {

// Walks a list of ranges in address order alongside addresses that only
// grow: whether each address lies in one.
class RangeCursor {
 public:
  explicit RangeCursor(const std::vector<PageRange>& ranges) : ranges_(ranges) {}
  bool contains(uint64_t addr) {
    while (i_ < ranges_.size() && ranges_[i_].end <= addr) ++i_;
    return i_ < ranges_.size() && ranges_[i_].start <= addr;
  }

 private:
  const std::vector<PageRange>& ranges_;
  std::size_t i_ = 0;
};

}  // namespace

StateImage::Applied StateImage::apply(const std::shared_ptr<const StateImage>& held, const Event& position,
                                      uint64_t event) {
  const StoredState& state = *position.stored_state;
  const bool incremental = state.kind == StoredState::Kind::Incremental;
  if (incremental && !held) {
    return {nullptr, "an incremental state on event " + std::to_string(state.base) +
                         ", and no stored state of the process is held"};
  }
  if (incremental && held->event() != state.base) {
    return {nullptr, "an incremental state on event " + std::to_string(state.base) + ", and the state held is event " +
                         std::to_string(held->event()) + "'s"};
  }
  // The pages the event holds, one by one (validated: whole pages in
  // address order).
  std::vector<Entry> fresh;
  for (const MemoryWrite& w : position.writes) {
    for (std::size_t off = 0; off < w.data.size(); off += kStatePageSize) {
      auto page = std::make_shared_for_overwrite<Page>();
      std::memcpy(page->data(), w.data.data() + off, kStatePageSize);
      fresh.push_back({w.addr + off, std::move(page)});
    }
  }
  auto image = std::make_shared<StateImage>();
  image->event_ = event;
  if (!incremental) {
    image->pages_ = std::move(fresh);
    return {std::move(image), {}};
  }
  // The base's pages that are still there, merged with the fresh ones,
  // which replace any at the same address.
  RangeCursor kept(state.ranges), zeroed(state.zeroed);
  std::vector<Entry>& out = image->pages_;
  out.reserve(held->pages_.size() + fresh.size());
  std::size_t f = 0;
  for (const Entry& old : held->pages_) {
    while (f < fresh.size() && fresh[f].addr < old.addr) out.push_back(std::move(fresh[f++]));
    if (f < fresh.size() && fresh[f].addr == old.addr) {
      out.push_back(std::move(fresh[f++]));
      continue;
    }
    if (kept.contains(old.addr) && !zeroed.contains(old.addr)) out.push_back(old);
  }
  while (f < fresh.size()) out.push_back(std::move(fresh[f++]));
  return {std::move(image), {}};
}

}  // namespace backstep::trace
