// Task's register access on a real stopped child.
#define BOOST_TEST_MODULE task
#include <boost/test/unit_test.hpp>

#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine/core/task.h"
#include "tests/support/stopped_child.h"

using namespace backstep;

namespace {

using testing::stopped_child;

volatile int g_done;  // the spinning child's flag, at the same address in the child

// A child that spins in user code until g_done is set, then exits with 7.
pid_t spinning_child() {
  pid_t pid = fork();
  BOOST_REQUIRE(pid >= 0);
  if (pid == 0) {
    ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
    raise(SIGSTOP);
    while (!g_done) {
    }
    _exit(7);
  }
  return pid;
}

// A child that makes a few system calls, then exits with 7.
pid_t calling_child() {
  pid_t pid = fork();
  BOOST_REQUIRE(pid >= 0);
  if (pid == 0) {
    ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
    raise(SIGSTOP);
    for (int i = 0; i < 4; ++i) syscall(SYS_getppid);
    _exit(7);
  }
  return pid;
}

// A `syscall` instruction for remote calls, at the same address in a
// forked child.
extern "C" void task_test_syscall_insn();
__asm__(".text\n.globl task_test_syscall_insn\ntask_test_syscall_insn:\n  syscall\n  int3\n");

}  // namespace

BOOST_AUTO_TEST_CASE(request_stop_stops_user_code_and_the_signal_never_arrives) {
  Task task(spinning_child());
  WaitStatus ws = task.wait();
  BOOST_REQUIRE(ws.is_signal() && ws.signal == SIGSTOP);
  BOOST_TEST(!ws.requested);  // the child's own raise()
  task.open_memory();
  task.resume(ResumeHow::Continue);
  task.request_stop();  // it spins until told otherwise: it is running
  ws = task.wait();
  BOOST_REQUIRE(ws.is_signal() && ws.signal == SIGSTOP);
  BOOST_TEST(ws.requested);
  int one = 1;
  task.write_bytes(remote_ptr<void>(reinterpret_cast<uint64_t>(&g_done)), &one, sizeof(one));
  // Resumed without the signal: a SIGSTOP delivered would stop the child
  // (a group stop, reported here) instead of letting it exit.
  task.resume(ResumeHow::Continue);
  ws = task.wait();
  BOOST_TEST(ws.describe() == "exited with status 7");
}

BOOST_AUTO_TEST_CASE(a_stop_request_that_another_stop_crossed_is_dropped) {
  Task task(calling_child());
  WaitStatus ws = task.wait();
  BOOST_REQUIRE(ws.is_signal() && ws.signal == SIGSTOP);
  task.set_options(PTRACE_O_TRACESYSGOOD);
  task.resume(ResumeHow::Syscall);
  ws = task.wait();
  BOOST_REQUIRE(ws.is_syscall());
  // The child stopped on its own before the request: the SIGSTOP stays
  // pending, and comes when the child is resumed.
  task.request_stop();
  int syscall_stops = 1;
  for (;;) {
    task.resume(ResumeHow::Syscall);
    ws = task.wait();
    if (!ws.is_syscall()) break;
    ++syscall_stops;
  }
  // Every stop after it was a system call's; the signal did not reach the
  // child, which ran to its end.
  BOOST_TEST(ws.describe() == "exited with status 7");
  BOOST_TEST(syscall_stops >= 9);  // entry and exit of 4 getppid, entry of exit_group
}

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

// A signal sent to a stopped task is pending: resumed for a remote call, it
// stops first at the signal's delivery. With `held`, that siginfo is kept
// for the caller and the call still runs; without, the call is reported as
// interrupted.
BOOST_AUTO_TEST_CASE(a_remote_syscall_holds_back_a_signal_that_arrives_on_its_way) {
  pid_t pid = stopped_child();
  Task task(pid);
  WaitStatus ws = task.wait();
  BOOST_REQUIRE(ws.is_signal() && ws.signal == SIGSTOP);
  task.open_memory();
  remote_ptr<void> insn(reinterpret_cast<uint64_t>(&task_test_syscall_insn));
  task.set_options(PTRACE_O_TRACESYSGOOD);
  Registers before = task.regs();
  BOOST_TEST(task.remote_syscall(insn, SYS_getpid, {}) == pid);

  BOOST_REQUIRE(kill(pid, SIGUSR1) == 0);
  std::vector<siginfo_t> held;
  int64_t r = task.remote_syscall(insn, SYS_getpid, {}, &held);
  BOOST_TEST(r == pid);
  BOOST_REQUIRE(held.size() == 1u);
  BOOST_TEST(held[0].si_signo == SIGUSR1);
  BOOST_TEST(held[0].si_pid == getpid());
  BOOST_TEST(task.regs().ip() == before.ip());  // restored

  // Nothing pending now: a second call holds nothing.
  r = task.remote_syscall(insn, SYS_gettid, {}, &held);
  BOOST_TEST(r == pid);
  BOOST_TEST(held.size() == 1u);

  BOOST_REQUIRE(kill(pid, SIGUSR2) == 0);
  BOOST_CHECK_THROW(task.remote_syscall(insn, SYS_getpid, {}), TaskGone);
}
