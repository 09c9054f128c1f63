#include "engine/timeline/mark.h"

#include <sstream>

namespace backstep {

Mark Mark::after_trap(const Anchor& anchor) const {
  Mark m = *this;
  if (m.steps == 0 && !m.anchors.empty() && m.anchors.back().same_trap(anchor)) {
    ++m.anchors.back().count;
  } else {
    Anchor a = anchor;
    a.count = 1;
    m.anchors.push_back(a);
    m.steps = 0;
  }
  return m;
}

Mark Mark::after_step() const {
  Mark m = *this;
  ++m.steps;
  return m;
}

bool Mark::is_prefix_of(const Mark& later, bool allow_equal) const {
  if (*this == later) return allow_equal;
  if (event != later.event) return event < later.event && at_boundary();
  if (anchors.size() > later.anchors.size()) return false;
  for (std::size_t i = 0; i < anchors.size(); ++i) {
    const Anchor& a = anchors[i];
    const Anchor& b = later.anchors[i];
    if (!a.same_trap(b)) return false;
    bool last = i + 1 == anchors.size();
    if (!last && a.count != b.count) return false;
    if (last) {
      if (a.count > b.count) return false;
      if (a.count < b.count) return steps == 0;
      // Same count: `later` continues with more anchors or more steps.
      if (anchors.size() == later.anchors.size()) return steps <= later.steps;
      return steps == 0;
    }
  }
  // All of our anchors match `later`'s first ones (or we have none).
  return anchors.size() == later.anchors.size() ? steps <= later.steps : steps == 0;
}

std::string Mark::describe() const {
  std::ostringstream os;
  os << "event " << event;
  for (const Anchor& a : anchors) {
    os << (a.kind == Anchor::Kind::Breakpoint ? " +bp 0x" : " +watch 0x") << std::hex << a.addr() << std::dec
       << "x" << a.count;
  }
  if (steps) os << " +" << steps << " steps";
  return os.str();
}

}  // namespace backstep
