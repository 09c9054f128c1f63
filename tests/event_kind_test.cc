// Unit tests of trace::kind_traits(): each question about a kind of event,
// answered for every kind, against what the kind means (event.h), against
// what the decoder accepts, and against the other answers.
#define BOOST_TEST_MODULE event_kind
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <initializer_list>
#include <string>
#include <vector>

#include "engine/trace/encoding.h"

using namespace backstep::trace;

namespace {

// Every kind. The test `every_kind_is_listed` fails when a kind is added to
// the enum and not here.
const std::vector<EventKind> kAllKinds = {
    EventKind::Exec,          EventKind::Syscall,     EventKind::Rdtsc,      EventKind::Signal,
    EventKind::FatalSignal,   EventKind::Exit,        EventKind::Abort,      EventKind::Position,
    EventKind::SyscallEntered, EventKind::ThreadStart, EventKind::ThreadExit, EventKind::ProcessStart,
    EventKind::BufferFlush,   EventKind::TraceeChange,
};

// Checks that `field` is true for the kinds in `expected` and false for the
// others.
void expect_exactly(bool EventKindTraits::*field, const char* name, std::initializer_list<EventKind> expected) {
  for (EventKind kind : kAllKinds) {
    bool want = std::find(expected.begin(), expected.end(), kind) != expected.end();
    bool got = kind_traits(kind).*field;
    BOOST_TEST(got == want, name << " of " << to_string(kind) << " should be " << want);
  }
}

// An event of `kind` the decoder accepts, registers included.
Event valid_event(EventKind kind) {
  Event e{kind, 4242, RegBlock{}};
  if (kind_traits(kind).delivers_signal) e.status = 11;
  if (kind == EventKind::Exit) e.status = 0x8b;  // killed by SIGSEGV, core dumped
  if (kind == EventKind::ThreadStart || kind == EventKind::ProcessStart) e.status = 4241;  // the creator
  if (kind == EventKind::Position) e.position = ForcedPosition{0x1234, true};
  return e;
}

bool accepted(const Event& e) {
  try {
    validate_event(e);
    return true;
  } catch (const FormatError&) {
    return false;
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_kind_is_listed) {
  // The kinds are numbered from 1 with no gap; the number after the last has
  // no name.
  for (std::size_t i = 0; i < kAllKinds.size(); ++i) BOOST_TEST(static_cast<std::size_t>(kAllKinds[i]) == i + 1);
  BOOST_TEST(std::string(to_string(static_cast<EventKind>(kAllKinds.size() + 1))) == "unknown");
}

// Each property, written out as the kinds it holds for and why.
BOOST_AUTO_TEST_CASE(answers_per_kind) {
  // Registers at the event (a call, an rdtsc, a signal, a position), the new
  // program's (exec), or a new thread's first instruction.
  expect_exactly(&EventKindTraits::requires_registers, "requires_registers",
                 {EventKind::Exec, EventKind::Syscall, EventKind::Rdtsc, EventKind::Signal, EventKind::Position,
                  EventKind::SyscallEntered, EventKind::ThreadStart, EventKind::ProcessStart});
  // The thread's own registers at the event: not a new thread's, an exec's,
  // nor events that record none.
  expect_exactly(&EventKindTraits::replay_checks_registers, "replay_checks_registers",
                 {EventKind::Syscall, EventKind::Rdtsc, EventKind::Signal, EventKind::FatalSignal, EventKind::Abort,
                  EventKind::Position, EventKind::SyscallEntered});
  // Threads and processes starting or ending, flushes, and a tracer's
  // changes happen where the previous event left off.
  expect_exactly(&EventKindTraits::reached_without_running, "reached_without_running",
                 {EventKind::Exit, EventKind::ThreadStart, EventKind::ThreadExit, EventKind::ProcessStart,
                  EventKind::BufferFlush, EventKind::TraceeChange});
  // A call's entry or return, an exec (a call too), a refused call.
  expect_exactly(&EventKindTraits::reached_at_syscall, "reached_at_syscall",
                 {EventKind::Exec, EventKind::Syscall, EventKind::Abort, EventKind::SyscallEntered});
  expect_exactly(&EventKindTraits::runs_no_instruction, "runs_no_instruction",
                 {EventKind::Exit, EventKind::Position, EventKind::SyscallEntered, EventKind::ThreadStart,
                  EventKind::ThreadExit, EventKind::ProcessStart, EventKind::BufferFlush, EventKind::TraceeChange});
  expect_exactly(&EventKindTraits::delivers_signal, "delivers_signal", {EventKind::Signal, EventKind::FatalSignal});
  expect_exactly(&EventKindTraits::creates_thread, "creates_thread", {EventKind::ThreadStart, EventKind::ProcessStart});
  expect_exactly(&EventKindTraits::starts_or_ends_thread, "starts_or_ends_thread",
                 {EventKind::ThreadStart, EventKind::ThreadExit});
  expect_exactly(&EventKindTraits::can_close_trace, "can_close_trace", {EventKind::Exit, EventKind::Abort});
  // The thread's own events; not its start, an exec, a process's end or the
  // flush itself.
  expect_exactly(&EventKindTraits::follows_buffer_flush, "follows_buffer_flush",
                 {EventKind::Syscall, EventKind::SyscallEntered, EventKind::Rdtsc, EventKind::Signal,
                  EventKind::FatalSignal, EventKind::Position, EventKind::ThreadExit, EventKind::Abort,
                  EventKind::TraceeChange});
}

// requires_registers is what the decoder (and the writer) enforce.
BOOST_AUTO_TEST_CASE(requires_registers_is_what_the_decoder_refuses) {
  for (EventKind kind : kAllKinds) {
    Event e = valid_event(kind);
    BOOST_TEST(accepted(e), to_string(kind) << " with registers");
    e.regs.reset();
    BOOST_TEST(accepted(e) == !kind_traits(kind).requires_registers, to_string(kind) << " without registers");
  }
}

// delivers_signal: `status` is a signal number, which the decoder checks.
BOOST_AUTO_TEST_CASE(a_signal_kind_needs_a_signal_number) {
  for (EventKind kind : kAllKinds) {
    if (!kind_traits(kind).delivers_signal) continue;
    Event e = valid_event(kind);
    e.status = 0;
    BOOST_TEST(!accepted(e), to_string(kind) << " with status 0");
  }
}

// What follows from the meanings.
BOOST_AUTO_TEST_CASE(answers_agree_with_each_other) {
  for (EventKind kind : kAllKinds) {
    EventKindTraits t = kind_traits(kind);
    std::string name = to_string(kind);
    // A new thread's registers are where it starts, recorded with it, not
    // where a thread is when replay gets there; and it is not run to.
    if (t.creates_thread) {
      BOOST_TEST(t.requires_registers, name);
      BOOST_TEST(!t.replay_checks_registers, name);
      BOOST_TEST(t.reached_without_running, name);
    }
    // Reached without running: no call is stopped at, no instruction runs.
    if (t.reached_without_running) {
      BOOST_TEST(!t.reached_at_syscall, name);
      BOOST_TEST(t.runs_no_instruction, name);
    }
    if (t.starts_or_ends_thread) BOOST_TEST(t.reached_without_running, name);
    // A step stops at a signal's handler (or the process ends).
    if (t.delivers_signal) BOOST_TEST(!t.runs_no_instruction, name);
    // A signal's registers are the thread's own, before the delivery.
    if (t.delivers_signal) BOOST_TEST(t.replay_checks_registers, name);
  }
}
