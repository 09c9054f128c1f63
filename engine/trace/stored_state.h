// The memory a process's chain of stored states describes (event.h,
// StoredState): replay reads every Position event in order and lays each
// stored state over the image of the process's previous one, so that it
// holds the whole state of the latest whenever it must put the program
// there (engine/replay/replay_position.cc).
//
// An image never changes once made: the next state makes a new one that
// shares every page that stayed the same, so that the copies a replay
// keeps in its checkpoints cost only the pages that differ.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/trace/event.h"

namespace backstep::trace {

class StateImage {
 public:
  using Page = std::array<uint8_t, kStatePageSize>;
  struct Entry {
    uint64_t addr = 0;
    std::shared_ptr<const Page> page;
  };

  // What applying a stored state gives: the new image, or why there is
  // none (`problem`).
  struct Applied {
    std::shared_ptr<const StateImage> image;
    std::string problem;
  };
  // The image of Position event `position` (number `event`, with a
  // validated stored state), given the image the replay holds for its
  // process (null: none). An incremental state needs the image of its base
  // state; a full one needs nothing.
  static Applied apply(const std::shared_ptr<const StateImage>& held, const Event& position, uint64_t event);

  // The Position event whose state this is.
  uint64_t event() const { return event_; }
  // Every page that is not all zero, in address order.
  const std::vector<Entry>& pages() const { return pages_; }
  std::size_t bytes() const { return pages_.size() * kStatePageSize; }

 private:
  uint64_t event_ = 0;
  std::vector<Entry> pages_;
};

}  // namespace backstep::trace
