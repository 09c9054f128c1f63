// Unit tests of trace::ProcessList (what `backstep ps` prints), on event
// sequences made here: parents through threads, exits and signals, execs,
// pid reuse, and traces that contradict themselves.
#define BOOST_TEST_MODULE process_list
#include <boost/test/unit_test.hpp>

#include <sys/wait.h>

#include "engine/trace/process_list.h"
#include "engine/trace/trace_error.h"

using namespace backstep::trace;

namespace {

Event exec(uint32_t tid, std::vector<std::string> argv = {}, std::string path = "") {
  Event e;
  e.kind = EventKind::Exec;
  e.tid = tid;
  e.argv = std::move(argv);
  e.message = std::move(path);
  return e;
}

Event started(EventKind kind, uint32_t tid, uint32_t creator) {
  Event e;
  e.kind = kind;
  e.tid = tid;
  e.status = creator;
  return e;
}

Event exited(uint32_t pid, int status) {
  Event e;
  e.kind = EventKind::Exit;
  e.tid = pid;
  e.status = status;
  return e;
}

struct Fixture {
  Header header;
  Fixture() { header.argv = {"/bin/sh", "-c", "a | b"}; }
  std::vector<ProcessInfo> run(const std::vector<Event>& events) {
    ProcessList list(header);
    uint64_t n = 0;
    for (const Event& e : events) list.add(n++, e);
    return list.processes();
  }
};

}  // namespace

BOOST_FIXTURE_TEST_CASE(first_process_takes_the_header_command, Fixture) {
  auto ps = run({exec(100), exited(100, 3 << 8)});
  BOOST_REQUIRE_EQUAL(ps.size(), 1u);
  BOOST_CHECK_EQUAL(ps[0].pid, 100u);
  BOOST_CHECK(!ps[0].ppid);
  BOOST_CHECK_EQUAL(*ps[0].command, "/bin/sh -c a | b");
  BOOST_CHECK(WIFEXITED(*ps[0].status) && WEXITSTATUS(*ps[0].status) == 3);
}

BOOST_FIXTURE_TEST_CASE(parent_is_the_process_of_the_creating_thread, Fixture) {
  // 100 starts thread 101; thread 101 forks 200; 200 forks 300, which
  // execs; 200 never execs and is killed by SIGKILL; 300 never ends.
  auto ps = run({exec(100), started(EventKind::ThreadStart, 101, 100), started(EventKind::ProcessStart, 200, 101),
                 started(EventKind::ProcessStart, 300, 200), exec(300, {"seq", "3"}, "/usr/bin/seq"),
                 exited(200, SIGKILL)});
  BOOST_REQUIRE_EQUAL(ps.size(), 3u);
  BOOST_CHECK_EQUAL(*ps[1].ppid, 100u);
  BOOST_CHECK(!ps[1].command);
  BOOST_CHECK(WIFSIGNALED(*ps[1].status) && WTERMSIG(*ps[1].status) == SIGKILL);
  BOOST_CHECK_EQUAL(*ps[2].ppid, 200u);
  BOOST_CHECK_EQUAL(*ps[2].command, "seq 3");
  BOOST_CHECK(!ps[2].status);
}

BOOST_FIXTURE_TEST_CASE(last_exec_wins_and_an_empty_argv_shows_the_path, Fixture) {
  auto ps = run({exec(100), exec(100, {"sh", "-c", "exec echo"}), exec(100, {}, "/bin/echo")});
  BOOST_REQUIRE_EQUAL(ps.size(), 1u);
  BOOST_CHECK_EQUAL(*ps[0].command, "/bin/echo");
}

BOOST_FIXTURE_TEST_CASE(a_pid_is_reused_after_its_process_ended, Fixture) {
  auto ps = run({exec(100), started(EventKind::ProcessStart, 200, 100), exited(200, 0),
                 started(EventKind::ProcessStart, 200, 100), exited(200, 7 << 8)});
  BOOST_REQUIRE_EQUAL(ps.size(), 3u);
  BOOST_CHECK_EQUAL(WEXITSTATUS(*ps[1].status), 0);
  BOOST_CHECK_EQUAL(WEXITSTATUS(*ps[2].status), 7);
}

BOOST_FIXTURE_TEST_CASE(contradictions_are_trace_errors, Fixture) {
  BOOST_CHECK_THROW(run({exited(100, 0)}), TraceError);  // no Exec first
  BOOST_CHECK_THROW(run({exec(100), started(EventKind::ProcessStart, 200, 999)}), TraceError);
  BOOST_CHECK_THROW(run({exec(100), started(EventKind::ThreadStart, 101, 555)}), TraceError);
  BOOST_CHECK_THROW(run({exec(100), exited(300, 0)}), TraceError);
  BOOST_CHECK_THROW(run({exec(100), exec(101, {"x"})}), TraceError);
  BOOST_CHECK_THROW(run({exec(100), started(EventKind::ProcessStart, 200, 100),
                         started(EventKind::ProcessStart, 200, 100)}),
                    TraceError);
  try {
    run({exec(100), started(EventKind::ProcessStart, 200, 999)});
  } catch (const TraceError& e) {
    BOOST_CHECK_EQUAL(std::string(e.what()), "event 1: thread 999 appears before it is started");
  }
}
