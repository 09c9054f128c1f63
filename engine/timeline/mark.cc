#include "engine/timeline/mark.h"

#include <sstream>

#include "engine/core/state_digest.h"

namespace backstep {
namespace {

RegBlock masked_registers(ReplaySession& s) {
  return without_trap_flags(s.task().regs()).to_block();
}

uint64_t digest_here(ReplaySession& s) { return state_digest(s.task(), s.task().xstate()).combined(); }

}  // namespace

StateKey state_here(ReplaySession& session) {
  StateKey key;
  key.regs = masked_registers(session);
  key.digest = digest_here(session);
  return key;
}

bool in_state(ReplaySession& session, const StateKey& key, uint64_t* digests) {
  if (masked_registers(session) != key.regs) return false;
  if (digests) ++*digests;
  return digest_here(session) == key.digest;
}

Mark Mark::after_trap(const Anchor& anchor) const {
  Mark m = *this;
  if (anchor.kind != Anchor::Kind::State && m.steps == 0 && !m.anchors.empty() && m.anchors.back().same_trap(anchor)) {
    ++m.anchors.back().count;
  } else {
    Anchor a = anchor;
    a.count = 1;
    a.steps_before = m.steps;
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

std::vector<Move> Mark::moves() const {
  std::vector<Move> out;
  for (const Anchor& a : anchors) {
    if (a.steps_before) out.push_back({false, Anchor{}, a.steps_before});
    Anchor trap = a;
    trap.count = 1;
    trap.steps_before = 0;
    out.push_back({true, trap, a.count});
  }
  if (steps) out.push_back({false, Anchor{}, steps});
  return out;
}

bool Mark::is_prefix_of(const Mark& later, bool allow_equal) const {
  if (*this == later) return allow_equal;
  // Reaching an event comes after every trap and step before it.
  if (at_event) return event < later.event;
  if (later.at_event) return event == later.event || (event < later.event && at_boundary());
  if (event != later.event) return event < later.event && at_boundary();
  std::vector<Move> mine = moves(), theirs = later.moves();
  if (mine.size() > theirs.size()) return false;
  for (std::size_t i = 0; i < mine.size(); ++i) {
    const Move& a = mine[i];
    const Move& b = theirs[i];
    if (a.is_trap != b.is_trap || (a.is_trap && !a.trap.same_trap(b.trap))) return false;
    if (i + 1 < mine.size() ? a.n != b.n : a.n > b.n) return false;
  }
  return true;
}

std::string Mark::describe() const {
  std::ostringstream os;
  os << "event " << event;
  for (const Anchor& a : anchors) {
    if (a.steps_before) os << " +" << a.steps_before << " steps";
    if (a.kind == Anchor::Kind::State) {
      os << " +state 0x" << std::hex << a.addr() << "/" << a.state.digest << std::dec;
      continue;
    }
    os << (a.kind == Anchor::Kind::Breakpoint ? " +bp 0x" : " +watch 0x") << std::hex << a.addr() << std::dec
       << "x" << a.count;
  }
  if (steps) os << " +" << steps << " steps";
  if (at_event) os << " (reached, not replayed)";
  return os.str();
}

}  // namespace backstep
