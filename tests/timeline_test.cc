// The timeline on a real recording: breakpoints and watchpoints forwards
// and backwards (at any address and length), stepping both ways, the ends
// of history, checkpoints, $_siginfo, a signal's delivery met by steps.
#define BOOST_TEST_MODULE timeline
#include <boost/test/unit_test.hpp>


#include <signal.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "engine/core/hit_counter.h"
#include "engine/timeline/replay_timeline.h"
#include "tests/support/recording.h"
#include "tests/support/timeline_steps.h"

using namespace backstep;

namespace backstep {
std::ostream& operator<<(std::ostream& os, TargetStop::Kind k) { return os << to_string(k); }
}  // namespace backstep

namespace {

// The timeline target, recorded; it exits with 55.
struct Recording : testing::Recording {
  Recording() : testing::Recording(TIMELINE_TARGET) {
    BOOST_REQUIRE(result().completed);
    BOOST_REQUIRE_EQUAL(result().exit_status, 55);
  }
};

int32_t read_int(ReplayTimeline& t, uint64_t addr) { return testing::read_value<int32_t>(t, addr); }
uint64_t symbol_address(const std::string& path, const std::string& name) { return testing::require_symbol(path, name); }
using testing::go;

constexpr auto kFwd = RunDirection::Forward;
constexpr auto kBack = RunDirection::Backward;

}  // namespace

BOOST_AUTO_TEST_CASE(breakpoint_hits_forwards_and_backwards) {
  Recording rec;
  uint64_t bump = symbol_address(rec.binary(), "bump");
  uint64_t counter = symbol_address(rec.binary(), "counter");
  ReplayTimeline t(rec.trace());
  t.set_breakpoint(bump, TrapKind::Software);

  std::vector<int32_t> seen;
  for (int i = 0; i < 5; ++i) {
    TargetStop s = go(t, kFwd);
    BOOST_REQUIRE(s.kind == TargetStop::Kind::Breakpoint);
    BOOST_TEST(s.address == bump);
    BOOST_TEST(t.registers(0).ip() == bump);
    seen.push_back(read_int(t, counter));
  }
  BOOST_TEST(seen == (std::vector<int32_t>{0, 1, 3, 6, 10}), boost::test_tools::per_element());
  Registers at_fifth = t.registers(0);

  // Backwards through the earlier hits, down to the first.
  for (int expected : {6, 3, 1, 0}) {
    TargetStop s = go(t, kBack);
    BOOST_REQUIRE(s.kind == TargetStop::Kind::Breakpoint);
    BOOST_TEST(t.registers(0).ip() == bump);
    BOOST_TEST(read_int(t, counter) == expected);
  }
  BOOST_TEST(go(t, kBack).kind == TargetStop::Kind::HistoryStart);
  BOOST_TEST(go(t, kBack).kind == TargetStop::Kind::HistoryStart);

  // Forward again lands on exactly the same states.
  for (int expected : {0, 1, 3, 6, 10}) {
    BOOST_REQUIRE(go(t, kFwd).kind == TargetStop::Kind::Breakpoint);
    BOOST_TEST(read_int(t, counter) == expected);
  }
  BOOST_TEST(Registers::differences(at_fifth, t.registers(0)).empty());

  // Run off the end, then back.
  t.remove_breakpoint(bump, TrapKind::Software);
  BOOST_TEST(go(t, kFwd).kind == TargetStop::Kind::HistoryEnd);
  t.set_breakpoint(bump, TrapKind::Software);
  BOOST_REQUIRE(go(t, kBack).kind == TargetStop::Kind::Breakpoint);
  BOOST_TEST(read_int(t, counter) == 45);  // the tenth call, before it adds 10
  t.remove_breakpoint(bump, TrapKind::Software);
  BOOST_TEST(go(t, kFwd).kind == TargetStop::Kind::HistoryEnd);
  TargetStop exit = go(t, kFwd);
  BOOST_REQUIRE(exit.kind == TargetStop::Kind::Exited);
  BOOST_TEST(exit.exit_code == 55);
}

BOOST_AUTO_TEST_CASE(stepping_backwards_retraces_forward_steps) {
  Recording rec;
  uint64_t bump = symbol_address(rec.binary(), "bump");
  ReplayTimeline t(rec.trace());
  t.set_breakpoint(bump, TrapKind::Software);
  BOOST_REQUIRE(go(t, kFwd).kind == TargetStop::Kind::Breakpoint);
  BOOST_REQUIRE(go(t, kFwd).kind == TargetStop::Kind::Breakpoint);  // second call
  t.remove_breakpoint(bump, TrapKind::Software);

  std::vector<Registers> states{t.registers(0)};
  for (int i = 0; i < 12; ++i) {
    BOOST_REQUIRE(go(t, kFwd, ResumeRequest::How::Step).kind == TargetStop::Kind::Step);
    states.push_back(t.registers(0));
  }
  for (int i = 11; i >= 0; --i) {
    BOOST_REQUIRE(go(t, kBack, ResumeRequest::How::Step).kind == TargetStop::Kind::Step);
    BOOST_TEST(Registers::differences(states[static_cast<size_t>(i)], t.registers(0)).empty(),
               "after reverse step to " << i << ": " << Registers::differences(states[static_cast<size_t>(i)], t.registers(0)));
  }
  // And further back than where we started stepping: across the first
  // call's return and into main's loop, then forward to the same place.
  std::vector<Registers> back;
  for (int i = 0; i < 30; ++i) {
    BOOST_REQUIRE(go(t, kBack, ResumeRequest::How::Step).kind == TargetStop::Kind::Step);
    back.push_back(t.registers(0));
  }
  for (int i = 28; i >= 0; --i) {
    BOOST_REQUIRE(go(t, kFwd, ResumeRequest::How::Step).kind == TargetStop::Kind::Step);
    BOOST_TEST(Registers::differences(back[static_cast<size_t>(i)], t.registers(0)).empty());
  }
  BOOST_REQUIRE(go(t, kFwd, ResumeRequest::How::Step).kind == TargetStop::Kind::Step);
  BOOST_TEST(Registers::differences(states[0], t.registers(0)).empty());
}

BOOST_AUTO_TEST_CASE(watchpoint_old_and_new_values_both_ways) {
  Recording rec;
  uint64_t counter = symbol_address(rec.binary(), "counter");
  ReplayTimeline t(rec.trace());
  BOOST_REQUIRE(t.set_watchpoint(counter, 4, WatchKind::Write));
  std::vector<int32_t> forward;
  for (int i = 0; i < 4; ++i) {
    TargetStop s = go(t, kFwd);
    BOOST_REQUIRE(s.kind == TargetStop::Kind::Watchpoint);
    BOOST_TEST(s.address == counter);
    forward.push_back(read_int(t, counter));
  }
  BOOST_TEST(forward == (std::vector<int32_t>{1, 3, 6, 10}), boost::test_tools::per_element());
  // Backwards, each stop is before the write: the value it is about to change.
  for (int expected : {6, 3, 1, 0}) {
    TargetStop s = go(t, kBack);
    BOOST_REQUIRE(s.kind == TargetStop::Kind::Watchpoint);
    BOOST_TEST(read_int(t, counter) == expected);
  }
  BOOST_TEST(go(t, kBack).kind == TargetStop::Kind::HistoryStart);
}

BOOST_AUTO_TEST_CASE(read_watchpoint_reports_reads_both_ways) {
  // bump() reads counter twice (`counter += i` loads it, then `values[..] =
  // counter`) and writes it once in between: a read watchpoint stops after
  // each read, never at the write (it changed the value: rr's rule), with
  // or without debug registers that fire.
  Recording rec;
  uint64_t counter = symbol_address(rec.binary(), "counter");
  ReplayTimeline t(rec.trace());
  BOOST_REQUIRE(t.set_watchpoint(counter, 4, WatchKind::Read));
  std::vector<int32_t> forward;
  std::vector<uint64_t> pcs;
  for (int i = 0; i < 4; ++i) {
    TargetStop s = go(t, kFwd);
    BOOST_REQUIRE(s.kind == TargetStop::Kind::Watchpoint);
    BOOST_TEST(s.address == counter);
    BOOST_TEST((s.watch_kind == WatchKind::Read));
    forward.push_back(read_int(t, counter));
    pcs.push_back(t.registers(0).ip());
  }
  BOOST_TEST(forward == (std::vector<int32_t>{0, 1, 1, 3}), boost::test_tools::per_element());
  BOOST_TEST(pcs[0] == pcs[2]);  // the same load, one call later
  BOOST_TEST(pcs[1] == pcs[3]);
  // Backwards, each stop is before the read: the same values, the last
  // read first.
  for (int expected : {3, 1, 1, 0}) {
    TargetStop s = go(t, kBack);
    BOOST_REQUIRE(s.kind == TargetStop::Kind::Watchpoint);
    BOOST_TEST((s.watch_kind == WatchKind::Read));
    BOOST_TEST(read_int(t, counter) == expected);
  }
  BOOST_TEST(go(t, kBack).kind == TargetStop::Kind::HistoryStart);
}

BOOST_AUTO_TEST_CASE(access_watchpoint_reports_reads_and_writes) {
  Recording rec;
  uint64_t counter = symbol_address(rec.binary(), "counter");
  ReplayTimeline t(rec.trace());
  BOOST_REQUIRE(t.set_watchpoint(counter, 4, WatchKind::Access));
  // bump(1): read 0, write 1, read 1; bump(2): read 1, write 3.
  std::vector<int32_t> forward;
  for (int i = 0; i < 5; ++i) {
    TargetStop s = go(t, kFwd);
    BOOST_REQUIRE(s.kind == TargetStop::Kind::Watchpoint);
    BOOST_TEST((s.watch_kind == WatchKind::Access));
    forward.push_back(read_int(t, counter));
  }
  BOOST_TEST(forward == (std::vector<int32_t>{0, 1, 1, 1, 3}), boost::test_tools::per_element());
  for (int expected : {1, 1, 1, 0, 0}) {
    BOOST_REQUIRE(go(t, kBack).kind == TargetStop::Kind::Watchpoint);
    BOOST_TEST(read_int(t, counter) == expected);
  }
}

BOOST_AUTO_TEST_CASE(checkpoints_and_restart) {
  Recording rec;
  uint64_t bump = symbol_address(rec.binary(), "bump");
  uint64_t counter = symbol_address(rec.binary(), "counter");
  ReplayTimeline t(rec.trace());
  t.set_breakpoint(bump, TrapKind::Software);
  for (int i = 0; i < 3; ++i) BOOST_REQUIRE(go(t, kFwd).kind == TargetStop::Kind::Breakpoint);
  int id = t.create_checkpoint();
  BOOST_TEST(t.checkpoints().size() == 1u);
  BOOST_REQUIRE(go(t, kFwd).kind == TargetStop::Kind::Breakpoint);
  BOOST_TEST(read_int(t, counter) == 6);
  BOOST_REQUIRE(t.restart_checkpoint(id));
  BOOST_TEST(read_int(t, counter) == 3);
  t.restart(std::nullopt);
  BOOST_REQUIRE(go(t, kFwd).kind == TargetStop::Kind::Breakpoint);
  BOOST_TEST(read_int(t, counter) == 0);
  BOOST_TEST(t.delete_checkpoint(id));
  BOOST_TEST(!t.delete_checkpoint(id));
}

BOOST_AUTO_TEST_CASE(a_thousand_reverse_steps_are_deterministic) {
  Recording rec;
  uint64_t bump = symbol_address(rec.binary(), "bump");
  ReplayTimeline t(rec.trace());
  t.set_breakpoint(bump, TrapKind::Software);
  for (int i = 0; i < 8; ++i) BOOST_REQUIRE(go(t, kFwd).kind == TargetStop::Kind::Breakpoint);
  t.remove_breakpoint(bump, TrapKind::Software);
  Registers start = t.registers(0);

  // 1000 instructions back (across system calls and earlier calls of bump),
  // then forward again: every state must be the same both ways.
  std::vector<Registers> back;
  for (int i = 0; i < 1000; ++i) {
    BOOST_REQUIRE(go(t, kBack, ResumeRequest::How::Step).kind == TargetStop::Kind::Step);
    back.push_back(t.registers(0));
  }
  for (int i = 998; i >= 0; --i) {
    BOOST_REQUIRE(go(t, kFwd, ResumeRequest::How::Step).kind == TargetStop::Kind::Step);
    BOOST_REQUIRE_MESSAGE(Registers::differences(back[static_cast<size_t>(i)], t.registers(0)).empty(),
                          "state " << i << ": " << Registers::differences(back[static_cast<size_t>(i)], t.registers(0)));
  }
  BOOST_REQUIRE(go(t, kFwd, ResumeRequest::How::Step).kind == TargetStop::Kind::Step);
  BOOST_TEST(Registers::differences(start, t.registers(0)).empty());

  // And back once more, to the same state 1000 steps back.
  for (int i = 0; i < 1000; ++i) go(t, kBack, ResumeRequest::How::Step);
  BOOST_TEST(Registers::differences(back.back(), t.registers(0)).empty());
}

BOOST_AUTO_TEST_CASE(watch_ranges_split_into_aligned_slots) {
  auto slots = [](uint64_t addr, uint64_t len) {
    std::vector<std::pair<uint64_t, uint64_t>> out;
    for (const WatchSlot& s : watch_slots({addr, len, WatchKind::Write})) out.emplace_back(s.addr, s.len);
    return out;
  };
  using V = std::vector<std::pair<uint64_t, uint64_t>>;
  BOOST_TEST((slots(0x1000, 8) == V{{0x1000, 8}}));
  BOOST_TEST((slots(0x1001, 4) == V{{0x1001, 1}, {0x1002, 2}, {0x1004, 1}}));        // int at an odd address
  BOOST_TEST((slots(0x1004, 8) == V{{0x1004, 4}, {0x1008, 4}}));                     // 8 bytes aligned to 4
  BOOST_TEST((slots(0x1001, 8) == V{{0x1001, 1}, {0x1002, 2}, {0x1004, 4}, {0x1008, 1}}));  // packed member
  BOOST_TEST((slots(0x1006, 3) == V{{0x1006, 2}, {0x1008, 1}}));
  BOOST_TEST((slots(0x1000, 16) == V{{0x1000, 8}, {0x1008, 8}}));
}

BOOST_AUTO_TEST_CASE(watchpoints_are_refused_only_when_debug_registers_run_out) {
  Recording rec;
  uint64_t values = symbol_address(rec.binary(), "values");
  ReplayTimeline t(rec.trace());
  BOOST_REQUIRE(values % 8 == 0);
  BOOST_TEST(t.set_watchpoint(values + 1, 4, WatchKind::Write));   // three slots
  BOOST_TEST(!t.set_watchpoint(values + 4, 8, WatchKind::Write));  // two more would not fit
  BOOST_TEST(t.set_watchpoint(values + 8, 4, WatchKind::Write));   // the fourth
  BOOST_TEST(!t.set_watchpoint(values + 12, 1, WatchKind::Write));
  BOOST_TEST(!t.set_watchpoint(values, 0, WatchKind::Write));
  BOOST_TEST(t.remove_watchpoint(values + 1, 4, WatchKind::Write));
  BOOST_TEST(t.set_watchpoint(values + 12, 1, WatchKind::Write));
}

// A write to a watched byte that leaves it as it was is a hit for the debug
// registers only: where they never fire, watchpoints see changed values.
boost::test_tools::assertion_result debug_registers_fire(boost::unit_test::test_unit_id) {
  boost::test_tools::assertion_result fire(HitCounter::debug_registers_work());
  fire.message() << "this machine's debug registers never fire (watchpoints are emulated by single steps)";
  return fire;
}

BOOST_AUTO_TEST_CASE(unaligned_watchpoint_stops_at_each_write_both_ways,
                     *boost::unit_test::precondition(debug_registers_fire)) {
  Recording rec;
  uint64_t values = symbol_address(rec.binary(), "values");
  // Bytes 2..5 of values[2..3]: the upper half of one int, the lower half of
  // the next, at an address aligned to 2 only. bump(2) and bump(3) write them.
  uint64_t addr = values + 2 * sizeof(int32_t) + 2;
  ReplayTimeline t(rec.trace());
  BOOST_REQUIRE(t.set_watchpoint(addr, 4, WatchKind::Write));
  std::vector<int32_t> seen;
  for (int i = 0; i < 2; ++i) {
    TargetStop s = go(t, kFwd);
    BOOST_REQUIRE(s.kind == TargetStop::Kind::Watchpoint);
    BOOST_TEST(s.address == addr);
    seen.push_back(read_int(t, values + 2 * sizeof(int32_t)) + read_int(t, values + 3 * sizeof(int32_t)));
  }
  BOOST_TEST(seen == (std::vector<int32_t>{3, 9}), boost::test_tools::per_element());  // 3, then 3 + 6
  BOOST_TEST(go(t, kFwd).kind == TargetStop::Kind::HistoryEnd);
  for (int expected : {3, 0}) {  // before each write, going back
    BOOST_REQUIRE(go(t, kBack).kind == TargetStop::Kind::Watchpoint);
    BOOST_TEST(read_int(t, values + 2 * sizeof(int32_t)) + read_int(t, values + 3 * sizeof(int32_t)) == expected);
  }
  BOOST_TEST(go(t, kBack).kind == TargetStop::Kind::HistoryStart);
}

BOOST_AUTO_TEST_CASE(stepping_over_a_watched_write_reports_it_both_ways) {
  Recording rec;
  uint64_t bump = symbol_address(rec.binary(), "bump");
  uint64_t counter = symbol_address(rec.binary(), "counter");
  ReplayTimeline t(rec.trace());
  t.set_breakpoint(bump, TrapKind::Software);
  BOOST_REQUIRE(go(t, kFwd).kind == TargetStop::Kind::Breakpoint);
  t.remove_breakpoint(bump, TrapKind::Software);
  BOOST_REQUIRE(t.set_watchpoint(counter, 4, WatchKind::Write));

  // Forward, one instruction at a time, until the write to counter.
  int steps = 0;
  TargetStop s;
  do {
    s = go(t, kFwd, ResumeRequest::How::Step);
    BOOST_REQUIRE(++steps < 50);
  } while (s.kind == TargetStop::Kind::Step);
  BOOST_REQUIRE(s.kind == TargetStop::Kind::Watchpoint);
  BOOST_TEST(s.address == counter);
  BOOST_TEST(read_int(t, counter) == 1);
  // Back over the same instruction: reported again, before the write.
  s = go(t, kBack, ResumeRequest::How::Step);
  BOOST_REQUIRE(s.kind == TargetStop::Kind::Watchpoint);
  BOOST_TEST(s.address == counter);
  BOOST_TEST(read_int(t, counter) == 0);
  // One more back is a plain step.
  BOOST_TEST(go(t, kBack, ResumeRequest::How::Step).kind == TargetStop::Kind::Step);
}

BOOST_AUTO_TEST_CASE(a_breakpoint_reached_by_a_step_is_hit_by_the_next_continue) {
  Recording rec;
  uint64_t bump = symbol_address(rec.binary(), "bump");
  ReplayTimeline t(rec.trace());
  t.set_breakpoint(bump, TrapKind::Software);
  BOOST_REQUIRE(go(t, kFwd).kind == TargetStop::Kind::Breakpoint);
  t.remove_breakpoint(bump, TrapKind::Software);
  for (int i = 0; i < 3; ++i) BOOST_REQUIRE(go(t, kFwd, ResumeRequest::How::Step).kind == TargetStop::Kind::Step);
  // A breakpoint set where a step stopped: its int3 runs first, as on a
  // live process (gdb steps over it itself when it means to).
  uint64_t here = t.registers(0).ip();
  Registers before = t.registers(0);
  t.set_breakpoint(here, TrapKind::Software);
  TargetStop s = go(t, kFwd);
  BOOST_REQUIRE(s.kind == TargetStop::Kind::Breakpoint);
  BOOST_TEST(s.address == here);
  BOOST_TEST(Registers::differences(before, t.registers(0)).empty());
  // The hit was reported: the next continue goes on to the next one, and
  // one reverse-stepi from there and one back forward agree.
  BOOST_REQUIRE(go(t, kFwd).kind == TargetStop::Kind::Breakpoint);
  BOOST_TEST(t.registers(0).ip() == here);
  t.remove_breakpoint(here, TrapKind::Software);
  BOOST_REQUIRE(go(t, kBack, ResumeRequest::How::Step).kind == TargetStop::Kind::Step);
  BOOST_TEST(t.registers(0).ip() != here);
  BOOST_REQUIRE(go(t, kFwd, ResumeRequest::How::Step).kind == TargetStop::Kind::Step);
  BOOST_TEST(t.registers(0).ip() == here);
}

BOOST_AUTO_TEST_CASE(siginfo_describes_the_stop_at_hand) {
  Recording rec;
  uint64_t bump = symbol_address(rec.binary(), "bump");
  ReplayTimeline t(rec.trace());
  BOOST_TEST(t.siginfo().empty());
  t.set_breakpoint(bump, TrapKind::Software);
  BOOST_REQUIRE(go(t, kFwd).kind == TargetStop::Kind::Breakpoint);
  std::vector<uint8_t> info = t.siginfo();
  BOOST_REQUIRE_EQUAL(info.size(), sizeof(siginfo_t));
  siginfo_t si;
  std::memcpy(&si, info.data(), sizeof(si));
  BOOST_TEST(si.si_signo == SIGTRAP);
  BOOST_TEST(si.si_code == SI_KERNEL);
  BOOST_REQUIRE(go(t, kFwd, ResumeRequest::How::Step).kind == TargetStop::Kind::Step);
  std::memcpy(&si, t.siginfo().data(), sizeof(si));
  BOOST_TEST(si.si_code == TRAP_TRACE);
  BOOST_TEST(reinterpret_cast<uint64_t>(si.si_addr) == t.registers(0).ip());
  t.remove_breakpoint(bump, TrapKind::Software);
  BOOST_REQUIRE(go(t, kFwd).kind == TargetStop::Kind::HistoryEnd);
  BOOST_TEST(t.siginfo().empty());
}

BOOST_AUTO_TEST_CASE(state_anchors_order_like_traps_and_never_merge) {
  Anchor bp;
  bp.watch.addr = 0x1000;
  Anchor state;
  state.kind = Anchor::Kind::State;
  state.watch.addr = 0x2000;
  state.state.digest = 42;
  state.state.regs[0] = 7;
  Mark boundary{5, {}, 0};
  Mark hit = boundary.after_trap(bp);
  Mark at_state = hit.after_trap(state);
  BOOST_TEST(at_state.anchors.size() == 2u);
  BOOST_TEST(at_state.anchors.back().count == 1u);
  // The same state again is another moment, not a second hit.
  BOOST_TEST(at_state.after_trap(state).anchors.size() == 3u);
  BOOST_TEST(at_state.describe() == "event 5 +bp 0x1000x1 +state 0x2000/2a");

  Mark later = at_state.after_step().after_step();
  BOOST_TEST(boundary.is_prefix_of(later, false));
  BOOST_TEST(hit.is_prefix_of(later, false));
  BOOST_TEST(at_state.is_prefix_of(later, false));
  BOOST_TEST(!later.is_prefix_of(at_state, true));
  // Another state (registers or digest) is another way.
  Anchor other = state;
  other.state.digest = 43;
  BOOST_TEST(!hit.after_trap(other).is_prefix_of(later, true));
  other = state;
  other.state.regs[3] = 1;
  BOOST_TEST(!hit.after_trap(other).is_prefix_of(later, true));
  std::vector<Move> legs = later.moves();
  BOOST_REQUIRE_EQUAL(legs.size(), 3u);
  BOOST_TEST((legs[1].is_trap && legs[1].trap.kind == Anchor::Kind::State && legs[1].n == 1u));
  BOOST_TEST((!legs[2].is_trap && legs[2].n == 2u));
}

BOOST_AUTO_TEST_CASE(reverse_catch_syscall_sees_a_return_at_a_checkpoint) {
  // A checkpoint right at a syscall's return: going back from the next
  // syscall's entry, the search from that checkpoint sees nothing, and the
  // one from the checkpoint before must still report the return (it once
  // stopped at the entry instead, depending on where checkpoints fell).
  Recording rec;
  ReplayTimeline t(rec.trace());
  t.set_catch_syscalls(std::vector<int>{1});  // write
  TargetStop entry = go(t, kFwd);
  BOOST_REQUIRE(entry.kind == TargetStop::Kind::Syscall);
  BOOST_REQUIRE(!entry.syscall_return);
  TargetStop ret = go(t, kFwd);
  BOOST_REQUIRE(ret.kind == TargetStop::Kind::Syscall);
  BOOST_REQUIRE(ret.syscall_return);
  uint64_t returned_at = t.current_event();
  t.create_checkpoint();
  TargetStop next = go(t, kFwd);
  BOOST_REQUIRE(next.kind == TargetStop::Kind::Syscall);
  BOOST_REQUIRE(!next.syscall_return);
  TargetStop back = go(t, kBack);
  BOOST_TEST(back.kind == TargetStop::Kind::Syscall);
  BOOST_TEST(back.syscall_return);
  BOOST_TEST(t.current_event() == returned_at);
}

// Steps meet a signal's delivery as a debugger's steps do natively: the
// step over the syscall that raised it ends after the call, the next
// reports the signal there, the next enters the handler. Back from the
// handler, the signal is reported at the same place, then the syscall
// instruction comes. A passed signal stops neither way.
BOOST_AUTO_TEST_CASE(steps_report_a_signal_delivery_both_ways) {
  testing::Recording rec(SIGNAL_TARGET);
  BOOST_REQUIRE(rec.result().completed);
  BOOST_REQUIRE_EQUAL(rec.result().exit_status, SIGUSR1);
  uint64_t kill_insn = symbol_address(rec.binary(), "kill_insn");
  uint64_t handler = symbol_address(rec.binary(), "on_usr1");
  const uint64_t after = kill_insn + 2;  // `syscall` is two bytes
  ReplayTimeline t(rec.trace());
  auto ip = [&] { return t.registers(0).ip(); };
  constexpr auto kStep = ResumeRequest::How::Step;
  BOOST_REQUIRE(t.set_breakpoint(kill_insn, TrapKind::Software));
  BOOST_REQUIRE_EQUAL(go(t, kFwd).kind, TargetStop::Kind::Breakpoint);
  BOOST_REQUIRE(t.remove_breakpoint(kill_insn, TrapKind::Software));

  BOOST_REQUIRE_EQUAL(go(t, kFwd, kStep).kind, TargetStop::Kind::Step);
  BOOST_TEST(ip() == after);
  TargetStop sig = go(t, kFwd, kStep);
  BOOST_REQUIRE_EQUAL(sig.kind, TargetStop::Kind::Signal);
  BOOST_TEST(sig.signal == SIGUSR1);
  BOOST_TEST(ip() == after);
  BOOST_REQUIRE_EQUAL(go(t, kFwd, kStep).kind, TargetStop::Kind::Step);
  BOOST_TEST(ip() == handler);

  sig = go(t, kBack, kStep);
  BOOST_REQUIRE_EQUAL(sig.kind, TargetStop::Kind::Signal);
  BOOST_TEST(sig.signal == SIGUSR1);
  BOOST_TEST(ip() == after);
  siginfo_t si;
  std::memcpy(&si, t.siginfo().data(), sizeof(si));
  BOOST_TEST(si.si_signo == SIGUSR1);
  BOOST_REQUIRE_EQUAL(go(t, kBack, kStep).kind, TargetStop::Kind::Step);
  BOOST_TEST(ip() == kill_insn);

  t.set_pass_signals({SIGUSR1});
  BOOST_REQUIRE_EQUAL(go(t, kFwd, kStep).kind, TargetStop::Kind::Step);
  BOOST_TEST(ip() == after);
  BOOST_REQUIRE_EQUAL(go(t, kFwd, kStep).kind, TargetStop::Kind::Step);
  BOOST_TEST(ip() == handler);
  BOOST_REQUIRE_EQUAL(go(t, kBack, kStep).kind, TargetStop::Kind::Step);
  BOOST_TEST(ip() == kill_insn);
}
