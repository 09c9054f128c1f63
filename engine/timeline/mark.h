// A position in a replay, exact without a hardware counter (docs/design.md,
// "Positions without a hardware counter"): an event boundary, then the k-th trap of each
// anchor in turn, then n single-steps. Every operation that moves the replay
// (continue to a breakpoint, a watchpoint hit, stepi, an event) extends a
// mark, and replaying the same mark from any earlier checkpoint on its path
// lands on the same instruction with the same state.
//
// Where a hardware tick counter exists, a tick count can stand in for the
// anchors; the timeline and the server only ever speak of marks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/replay/replay_session.h"

namespace backstep {

// The state of the running thread at one moment in user code: its
// registers (eflags without RF and TF, which debug traps set) and a digest
// of the program's state (engine/core/state_digest.h), as a Position event
// names the place where the recorder stopped the program.
struct StateKey {
  RegBlock regs{};
  uint64_t digest = 0;
  bool operator==(const StateKey&) const = default;
};

// The running thread's state now (after a stop of `session`'s: the
// running thread is the one whose event is next).
StateKey state_here(ReplaySession& session);
// Whether the running thread is in `key`'s state: the registers first, the
// digest (a read of all writable memory) only when they are equal, and
// counted in `*digests`.
bool in_state(ReplaySession& session, const StateKey& key, uint64_t* digests = nullptr);

struct Anchor {
  // State: no trap counts it. The first moment, since the previous anchor
  // (or the steps before this one), at which the running thread's state is
  // `state`: equal state means an equal future, so that moment is as good
  // as the one where the state was taken (shared/notes/counterless-progress.md
  // §4). Made where a debugger's interrupt stopped the program in a loop
  // (engine/timeline/timeline_interrupt.cc); count is always 1.
  enum class Kind : uint8_t { Breakpoint, Watchpoint, State };
  Kind kind = Kind::Breakpoint;
  Watchpoint watch;      // Breakpoint: watch.addr is the breakpoint address; State: the pc
  uint64_t steps_before = 0;  // single-steps between the previous anchor and these hits
  uint64_t count = 1;         // hits since those steps
  StateKey state;             // State only
  uint64_t addr() const { return watch.addr; }
  bool same_trap(const Anchor& o) const { return kind == o.kind && watch == o.watch && state == o.state; }
  bool operator==(const Anchor&) const = default;
};

// One leg of the way from an event boundary to a position: n single-steps,
// or k hits of a trap.
struct Move {
  bool is_trap = false;
  Anchor trap;       // is_trap: which (count ignored)
  uint64_t n = 0;    // steps, or hits
  bool operator==(const Move&) const = default;
};

struct Mark {
  uint64_t event = 0;           // every event before this one has been replayed
  std::vector<Anchor> anchors;  // then these traps, in order
  uint64_t steps = 0;           // then this many instructions
  // Instead of anchors and steps: run on until event `event` is reached,
  // without replaying it (a signal about to be delivered).
  bool at_event = false;
  bool operator==(const Mark&) const = default;

  bool at_boundary() const { return anchors.empty() && steps == 0 && !at_event; }
  // The position after one more trap of `anchor` (count ignored); for a
  // State anchor, the first moment with its state from here.
  Mark after_trap(const Anchor& anchor) const;
  Mark after_step() const;
  // True if `this` lies on the way to `later` (so a session at `this` can
  // reach `later` by replaying forward), and is not `later` itself unless
  // `allow_equal`.
  bool is_prefix_of(const Mark& later, bool allow_equal) const;
  // The legs from the event boundary, in order.
  std::vector<Move> moves() const;
  std::string describe() const;
};

}  // namespace backstep
