// The timeline's view of threads on a real recording (two workers, one
// after the other): which threads exist where, their names and registers,
// the thread each stop belongs to, in both directions, and stepping a
// thread whose turn has not come.
#define BOOST_TEST_MODULE timeline_threads
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cerrno>

#include "engine/timeline/replay_timeline.h"
#include "engine/trace/reader.h"
#include "tests/support/recording.h"

using namespace backstep;

namespace backstep {
std::ostream& operator<<(std::ostream& os, TargetStop::Kind k) { return os << to_string(k); }
}  // namespace backstep

namespace {

struct Recording : testing::Recording {
  Recording() : testing::Recording(THREADS_TARGET) {
    BOOST_REQUIRE(result().completed);
    BOOST_REQUIRE_EQUAL(result().exit_status, 33);
  }
};

TargetStop go(ReplayTimeline& t, RunDirection dir, ResumeRequest::How how = ResumeRequest::How::Continue,
              pid_t thread = 0) {
  ResumeRequest r;
  r.direction = dir;
  r.how = how;
  r.thread = thread;
  return t.resume(r, nullptr);
}

bool has(const std::vector<pid_t>& tids, pid_t tid) { return std::find(tids.begin(), tids.end(), tid) != tids.end(); }

}  // namespace

BOOST_AUTO_TEST_CASE(stops_name_their_thread_both_ways) {
  Recording rec;
  ReplayTimeline t(rec.trace());
  pid_t pid = t.process_id();
  BOOST_TEST(t.thread_ids() == std::vector<pid_t>{pid});
  BOOST_TEST(t.thread_name(pid) == "threads_target");
  uint64_t work = testing::symbol_address(THREADS_TARGET, "work");
  BOOST_REQUIRE(work);
  t.set_breakpoint(work, TrapKind::Software);

  TargetStop first = go(t, RunDirection::Forward);
  BOOST_REQUIRE_EQUAL(first.kind, TargetStop::Kind::Breakpoint);
  pid_t w1 = first.tid;
  BOOST_TEST(w1 != pid);
  BOOST_TEST(t.thread_ids() == (std::vector<pid_t>{pid, w1}));  // creation order
  BOOST_TEST(t.thread_name(w1) == "worker-1");
  BOOST_TEST(t.thread_name(pid) == "threads_target");
  BOOST_TEST(t.registers(w1).ip() == work);
  BOOST_TEST(t.registers(pid).ip() != work);  // main waits in pthread_join
  BOOST_TEST(t.registers(0).ip() == work);    // 0: the thread of the stop

  TargetStop second = go(t, RunDirection::Forward);
  BOOST_REQUIRE_EQUAL(second.kind, TargetStop::Kind::Breakpoint);
  pid_t w2 = second.tid;
  BOOST_TEST(w2 != pid);
  BOOST_TEST(w2 != w1);
  BOOST_TEST(!has(t.thread_ids(), w1));  // ended
  BOOST_TEST(t.thread_name(w2) == "worker-2");
  BOOST_TEST(t.registers(w2).arg(0) == 2u);
  BOOST_CHECK_THROW(t.registers(w1), std::exception);

  // Back to the first worker's hit: it exists again, with its name.
  TargetStop back = go(t, RunDirection::Backward);
  BOOST_REQUIRE_EQUAL(back.kind, TargetStop::Kind::Breakpoint);
  BOOST_TEST(back.tid == w1);
  BOOST_TEST(has(t.thread_ids(), w1));
  BOOST_TEST(!has(t.thread_ids(), w2));  // not created yet
  BOOST_TEST(t.thread_name(w1) == "worker-1");
  BOOST_TEST(t.registers(w1).arg(0) == 1u);
}

BOOST_AUTO_TEST_CASE(a_watchpoint_hit_names_the_writing_thread) {
  Recording rec;
  ReplayTimeline t(rec.trace());
  uint64_t slots = testing::symbol_address(THREADS_TARGET, "slots");
  BOOST_REQUIRE(slots);
  BOOST_REQUIRE(t.set_watchpoint(slots + 2 * 4, 4, WatchKind::Write));
  TargetStop hit = go(t, RunDirection::Forward);
  BOOST_REQUIRE_EQUAL(hit.kind, TargetStop::Kind::Watchpoint);
  BOOST_TEST(hit.tid != t.process_id());
  BOOST_TEST(t.thread_name(hit.tid) == "worker-2");
  // From the end, backwards: the same thread.
  TargetStop end = go(t, RunDirection::Forward);
  BOOST_TEST(end.kind == TargetStop::Kind::HistoryEnd);
  TargetStop again = go(t, RunDirection::Backward);
  BOOST_REQUIRE_EQUAL(again.kind, TargetStop::Kind::Watchpoint);
  BOOST_TEST(again.tid == hit.tid);
}

BOOST_AUTO_TEST_CASE(stepping_a_waiting_thread_runs_the_others_to_its_turn) {
  Recording rec;
  ReplayTimeline t(rec.trace());
  pid_t pid = t.process_id();
  uint64_t work = testing::symbol_address(THREADS_TARGET, "work");
  t.set_breakpoint(work, TrapKind::Software);
  TargetStop hit = go(t, RunDirection::Forward);
  BOOST_REQUIRE_EQUAL(hit.kind, TargetStop::Kind::Breakpoint);
  pid_t w1 = hit.tid;
  t.remove_breakpoint(work, TrapKind::Software);
  // main waits in pthread_join (or, if the recorder switched at its clone
  // call, has just returned from it): stepping it lets the worker finish.
  Registers before = t.registers(pid);
  bool in_call = before.syscall_result() == -ENOSYS;  // parked at a call's entry
  TargetStop step = go(t, RunDirection::Forward, ResumeRequest::How::Step, pid);
  BOOST_REQUIRE_EQUAL(step.kind, TargetStop::Kind::Step);
  BOOST_TEST(step.tid == pid);
  BOOST_TEST(!has(t.thread_ids(), w1));
  // And back: main's previous instruction, before the worker ran to its end.
  TargetStop back = go(t, RunDirection::Backward, ResumeRequest::How::Step, pid);
  BOOST_REQUIRE_EQUAL(back.kind, TargetStop::Kind::Step);
  BOOST_TEST(back.tid == pid);
  BOOST_TEST_MESSAGE("main was " << (in_call ? "in pthread_join's wait" : "between calls") << " at the hit");
  if (in_call) {
    // Its syscall instruction, many events back: the worker exists there.
    BOOST_TEST(t.registers(pid).ip() == before.ip() - 2);
    BOOST_TEST(has(t.thread_ids(), w1));
  } else {
    // The instruction it stepped, which ran after the worker had ended.
    BOOST_TEST(Registers::differences(before, t.registers(pid)).empty());
  }
}

// A step back of main over its wait in pthread_join, while the worker
// called work(): it stops at the worker's hit, as reverse-continue would
// (and as the step forward over the wait stops at it).
BOOST_AUTO_TEST_CASE(stepping_a_thread_back_stops_at_the_others_last_hit) {
  Recording rec;
  ReplayTimeline t(rec.trace());
  pid_t pid = t.process_id();
  uint64_t work = testing::symbol_address(THREADS_TARGET, "work");
  t.set_breakpoint(work, TrapKind::Software);
  TargetStop hit = go(t, RunDirection::Forward);
  BOOST_REQUIRE_EQUAL(hit.kind, TargetStop::Kind::Breakpoint);
  pid_t w1 = hit.tid;
  t.remove_breakpoint(work, TrapKind::Software);
  bool in_call = t.registers(pid).syscall_result() == -ENOSYS;  // parked at a call's entry
  BOOST_REQUIRE_EQUAL(go(t, RunDirection::Forward, ResumeRequest::How::Step, pid).kind, TargetStop::Kind::Step);
  t.set_breakpoint(work, TrapKind::Software);
  TargetStop back = go(t, RunDirection::Backward, ResumeRequest::How::Step, pid);
  BOOST_TEST_MESSAGE("main was " << (in_call ? "in pthread_join's wait" : "between calls") << " at the hit");
  if (in_call) {
    BOOST_REQUIRE_EQUAL(back.kind, TargetStop::Kind::Breakpoint);
    BOOST_TEST(back.tid == w1);
    BOOST_TEST(t.registers(w1).ip() == work);
  } else {
    // The instruction main stepped ran after the worker ended: nothing crossed.
    BOOST_TEST(back.kind == TargetStop::Kind::Step);
  }
}

// Right after a thread's ThreadExit event the session has no current
// thread (the next event names the one that goes on). A checkpoint made
// there (by the user, or an automatic one that falls due by time at that
// boundary under load) must fork a live thread, not the one that just
// ended: that made `continue` fail with "ptrace(GETREGS) ... No such
// process" in a CI run of gdb.threads_break.
BOOST_AUTO_TEST_CASE(a_checkpoint_right_after_a_thread_ends) {
  Recording rec;
  uint64_t exit_event = 0;
  {
    trace::TraceReader reader(rec.trace());
    uint64_t n = 0;
    bool found = false;
    for (std::optional<trace::Event> e; (e = reader.next()); ++n) {
      if (e->kind == trace::EventKind::ThreadExit) {
        exit_event = n;
        found = true;
        break;
      }
    }
    BOOST_REQUIRE(found);
  }
  uint64_t work = testing::symbol_address(THREADS_TARGET, "work");
  uint64_t slots = testing::symbol_address(THREADS_TARGET, "slots");
  BOOST_REQUIRE(work && slots);

  ReplayTimeline t(rec.trace());
  pid_t pid = t.process_id();
  t.restart(exit_event + 1);  // the boundary right after worker-1 ended
  BOOST_REQUIRE_EQUAL(t.current_event(), exit_event + 1);
  BOOST_TEST(t.thread_ids() == std::vector<pid_t>{pid});
  // Memory is still the program's (worker-1 wrote its slot).
  std::vector<uint8_t> slot = t.read_memory(slots + 4, 4);
  BOOST_REQUIRE_EQUAL(slot.size(), 4u);
  BOOST_TEST(slot[0] == 11);

  int id = t.create_checkpoint();
  t.set_breakpoint(work, TrapKind::Software);
  TargetStop w2 = go(t, RunDirection::Forward);
  BOOST_REQUIRE_EQUAL(w2.kind, TargetStop::Kind::Breakpoint);
  BOOST_TEST(t.thread_name(w2.tid) == "worker-2");
  BOOST_TEST(t.registers(w2.tid).arg(0) == 2u);

  // The checkpoint replays as the original did: to the same hit, and back
  // from it (the search starts at the checkpoint) to worker-1's.
  BOOST_REQUIRE(t.restart_checkpoint(id));
  BOOST_TEST(t.thread_ids() == std::vector<pid_t>{pid});
  TargetStop again = go(t, RunDirection::Forward);
  BOOST_REQUIRE_EQUAL(again.kind, TargetStop::Kind::Breakpoint);
  BOOST_TEST(again.tid == w2.tid);
  BOOST_TEST(t.registers(again.tid).arg(0) == 2u);
  TargetStop back = go(t, RunDirection::Backward);
  BOOST_REQUIRE_EQUAL(back.kind, TargetStop::Kind::Breakpoint);
  BOOST_TEST(t.thread_name(back.tid) == "worker-1");
  BOOST_TEST(t.registers(back.tid).arg(0) == 1u);
}
