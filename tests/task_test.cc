// Task's register access on a real stopped child.
#define BOOST_TEST_MODULE task
#include <boost/test/unit_test.hpp>

#include <signal.h>
#include <sys/ptrace.h>
#include <unistd.h>

#include "engine/core/task.h"

using namespace backstep;

namespace {

// A child stopped under ptrace, killed when the test ends (by ~Task).
pid_t stopped_child() {
  pid_t pid = fork();
  BOOST_REQUIRE(pid >= 0);
  if (pid == 0) {
    ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
    raise(SIGSTOP);
    _exit(0);
  }
  return pid;
}

}  // namespace

BOOST_AUTO_TEST_CASE(set_regs_up_to_ip_leaves_the_rest) {
  Task task(stopped_child());
  WaitStatus ws = task.wait();
  BOOST_REQUIRE(ws.is_signal() && ws.signal == SIGSTOP);
  Registers before = task.regs();
  Registers wanted = before;
  wanted.raw().rax = 0x1122334455667788;
  wanted.raw().rdx = 0x55;
  wanted.raw().rcx = 0x66;
  wanted.raw().r15 = 0x77;
  wanted.set_ip(before.ip() + 2);
  // Past rip: must stay as they were.
  wanted.raw().rsp = before.raw().rsp - 64;
  wanted.raw().eflags = before.raw().eflags ^ (1u << 10);  // DF
  wanted.raw().fs_base = before.raw().fs_base + 4096;
  task.set_regs_up_to_ip(wanted);

  Registers after = task.regs();
  BOOST_TEST(after.raw().rax == wanted.raw().rax);
  BOOST_TEST(after.raw().rdx == wanted.raw().rdx);
  BOOST_TEST(after.raw().rcx == wanted.raw().rcx);
  BOOST_TEST(after.raw().r15 == wanted.raw().r15);
  BOOST_TEST(after.ip() == wanted.ip());
  BOOST_TEST(after.raw().rsp == before.raw().rsp);
  BOOST_TEST(after.raw().eflags == before.raw().eflags);
  BOOST_TEST(after.raw().fs_base == before.raw().fs_base);
}
