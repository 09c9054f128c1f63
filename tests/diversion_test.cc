// Diversions on a real recording (engine/timeline/diversion.h): a function
// called by writing registers and memory, the replay unchanged afterwards,
// a call that crashes, a memory write without a call, and the system-call
// policy of the copy.
#define BOOST_TEST_MODULE diversion
#include <boost/test/unit_test.hpp>

#include <errno.h>
#include <linux/audit.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <cstring>
#include <string>

#include "engine/timeline/replay_timeline.h"
#include "tests/support/recording.h"
#include "tests/support/timeline_steps.h"

using namespace backstep;

namespace backstep {
std::ostream& operator<<(std::ostream& os, TargetStop::Kind k) { return os << to_string(k); }
}  // namespace backstep

namespace {

// tests/programs/timeline_target.c: bump(i) adds i to counter, ten times.
struct Recording : testing::Recording {
  Recording() : testing::Recording(TIMELINE_TARGET) {
    BOOST_REQUIRE(result().completed);
    BOOST_REQUIRE_EQUAL(result().exit_status, 55);
  }
};

int32_t read_int(ReplayTimeline& t, uint64_t addr) { return testing::read_value<int32_t>(t, addr); }

std::vector<uint8_t> bytes_of(uint64_t v) {
  std::vector<uint8_t> out(8);
  std::memcpy(out.data(), &v, 8);
  return out;
}

using testing::go;

// At the third call of bump (counter 3), as a debugger calls a function:
// the return address pushed below the red zone, the argument, the pc.
Registers call_setup(ReplayTimeline& t, const Registers& at, uint64_t function, uint64_t arg, uint64_t return_to) {
  Registers regs = at;
  uint64_t sp = ((at.sp() - 256) & ~uint64_t{15}) - 8;
  BOOST_REQUIRE_EQUAL(t.write_memory(sp, bytes_of(return_to)), 8u);
  regs.raw().rsp = sp;
  regs.raw().rdi = arg;
  regs.set_ip(function);
  regs.set_syscallno(static_cast<uint64_t>(-1));
  return regs;
}

struct AtThirdBump {
  Recording rec;
  uint64_t bump = testing::require_symbol(rec.binary(), "bump");
  uint64_t counter = testing::require_symbol(rec.binary(), "counter");
  ReplayTimeline t{rec.trace()};
  Registers at;
  AtThirdBump() {
    t.set_breakpoint(bump, TrapKind::Software);
    for (int i = 0; i < 3; ++i) BOOST_REQUIRE(go(t, RunDirection::Forward).kind == TargetStop::Kind::Breakpoint);
    BOOST_REQUIRE_EQUAL(read_int(t, counter), 3);
    at = t.registers(0);
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_call_runs_in_a_copy_and_the_replay_goes_on_as_recorded) {
  AtThirdBump s;
  ReplayTimeline& t = s.t;
  // A write of what is there already changes nothing: no diversion.
  t.write_registers(0, s.at, {});
  BOOST_TEST(!t.diverted());

  // bump(100), returning to bump's own first instruction (a breakpoint).
  Registers call = call_setup(t, s.at, s.bump, 100, s.bump);
  BOOST_TEST(t.diverted());
  t.write_registers(0, call, {});
  BOOST_TEST(t.in_called_function());
  // The breakpoint at the pc is stepped over (as a resume from one is);
  // the return comes back into it.
  TargetStop stop = go(t, RunDirection::Forward);
  BOOST_REQUIRE(stop.kind == TargetStop::Kind::Breakpoint);
  BOOST_TEST(stop.address == s.bump);
  BOOST_TEST(read_int(t, s.counter) == 103);  // the copy's
  // The registers back: the call is over and the recording shows again.
  t.write_registers(0, s.at, {});
  BOOST_TEST(!t.in_called_function());
  BOOST_TEST(!t.diverted());
  BOOST_TEST(read_int(t, s.counter) == 3);
  BOOST_TEST(Registers::differences(s.at, t.registers(0)).empty());

  // The replay goes on from where it stood, both ways.
  BOOST_REQUIRE(go(t, RunDirection::Forward).kind == TargetStop::Kind::Breakpoint);
  BOOST_TEST(read_int(t, s.counter) == 6);
  BOOST_REQUIRE(go(t, RunDirection::Backward).kind == TargetStop::Kind::Breakpoint);
  BOOST_TEST(read_int(t, s.counter) == 3);
  BOOST_TEST(Registers::differences(s.at, t.registers(0)).empty());
}

BOOST_AUTO_TEST_CASE(a_crash_in_a_call_is_reported_and_dropping_it_leaves_the_replay) {
  AtThirdBump s;
  ReplayTimeline& t = s.t;
  Registers call = call_setup(t, s.at, 0x10, 0, s.bump);  // a jump to nothing
  t.write_registers(0, call, {});
  TargetStop stop = go(t, RunDirection::Forward);
  BOOST_REQUIRE(stop.kind == TargetStop::Kind::Signal);
  BOOST_TEST(stop.signal == SIGSEGV);
  BOOST_TEST(t.in_called_function());
  BOOST_TEST(t.take_note().empty());
  // Delivered, the signal kills the copy: back at the replay's position.
  stop = go(t, RunDirection::Forward, ResumeRequest::How::Continue, SIGSEGV);
  BOOST_TEST(stop.kind == TargetStop::Kind::Step);
  BOOST_TEST(t.take_note().find("killed by SIGSEGV") != std::string::npos);
  BOOST_TEST(!t.diverted());
  BOOST_TEST(Registers::differences(s.at, t.registers(0)).empty());
  BOOST_REQUIRE(go(t, RunDirection::Forward).kind == TargetStop::Kind::Breakpoint);
  BOOST_TEST(read_int(t, s.counter) == 6);
}

BOOST_AUTO_TEST_CASE(a_memory_write_shows_until_the_next_resume) {
  AtThirdBump s;
  ReplayTimeline& t = s.t;
  BOOST_REQUIRE_EQUAL(t.write_memory(s.counter, {77, 0, 0, 0}), 4u);
  BOOST_TEST(read_int(t, s.counter) == 77);
  BOOST_TEST(!t.in_called_function());
  BOOST_REQUIRE(go(t, RunDirection::Forward).kind == TargetStop::Kind::Breakpoint);
  BOOST_TEST(!t.diverted());
  BOOST_TEST(read_int(t, s.counter) == 6);
  // Nothing mapped: nothing written, no diversion.
  BOOST_TEST(t.write_memory(0x10, {1}) == 0u);
  BOOST_TEST(!t.diverted());
}

// lldb's _M: allocated once, used at every later stop, both ways.
BOOST_AUTO_TEST_CASE(memory_allocated_for_a_debugger_stays_at_every_position) {
  AtThirdBump s;
  ReplayTimeline& t = s.t;
  std::optional<uint64_t> block = t.allocate_memory(4096, PROT_READ | PROT_WRITE | PROT_EXEC);
  BOOST_REQUIRE(block);
  BOOST_TEST(!t.diverted());  // kept outside the replay
  bool listed = false;
  for (const MemoryMapping& m : t.memory_map()) listed |= m.start == *block && m.end == *block + 4096 && m.executable;
  BOOST_TEST(listed);
  // A function in it: movabs $block+0x100, %rax; mov %rdi, (%rax); ret.
  std::vector<uint8_t> code = {0x48, 0xb8};
  std::vector<uint8_t> slot = bytes_of(*block + 0x100);
  code.insert(code.end(), slot.begin(), slot.end());
  code.insert(code.end(), {0x48, 0x89, 0x38, 0xc3});
  BOOST_REQUIRE_EQUAL(t.write_memory(*block, code), code.size());
  BOOST_TEST(t.read_memory(*block, code.size()) == code, boost::test_tools::per_element());

  // Called at this stop: its result lands in the block.
  t.write_registers(0, call_setup(t, s.at, *block, 100, s.bump), {});
  BOOST_REQUIRE(go(t, RunDirection::Forward).kind == TargetStop::Kind::Breakpoint);
  BOOST_TEST(read_int(t, *block + 0x100) == 100);
  t.write_registers(0, s.at, {});

  // Later, and earlier: the code and the result are still there, and the
  // replay is as recorded.
  BOOST_REQUIRE(go(t, RunDirection::Forward).kind == TargetStop::Kind::Breakpoint);
  BOOST_TEST(read_int(t, s.counter) == 6);
  BOOST_TEST(read_int(t, *block + 0x100) == 100);
  BOOST_TEST(t.read_memory(*block, code.size()) == code, boost::test_tools::per_element());
  BOOST_REQUIRE(go(t, RunDirection::Backward).kind == TargetStop::Kind::Breakpoint);
  BOOST_REQUIRE(go(t, RunDirection::Backward).kind == TargetStop::Kind::Breakpoint);
  BOOST_TEST(read_int(t, s.counter) == 1);
  BOOST_TEST(read_int(t, *block + 0x100) == 100);
  // Called again there, in a new copy made at that position.
  Registers here = t.registers(0);
  t.write_registers(0, call_setup(t, here, *block, 7, s.bump), {});
  BOOST_REQUIRE(go(t, RunDirection::Forward).kind == TargetStop::Kind::Breakpoint);
  BOOST_TEST(read_int(t, *block + 0x100) == 7);
  t.write_registers(0, here, {});
  BOOST_TEST(!t.diverted());
  BOOST_TEST(read_int(t, *block + 0x100) == 7);
  BOOST_TEST(read_int(t, s.counter) == 1);

  // A write without a diversion, then freed.
  BOOST_REQUIRE_EQUAL(t.write_memory(*block + 0x200, {1, 2, 3, 4}), 4u);
  BOOST_TEST(!t.diverted());
  BOOST_TEST(t.read_memory(*block + 0x200, 4) == (std::vector<uint8_t>{1, 2, 3, 4}), boost::test_tools::per_element());
  BOOST_TEST(!t.deallocate_memory(*block + 0x200));
  BOOST_TEST(t.deallocate_memory(*block));
  BOOST_TEST(!t.deallocate_memory(*block));
  BOOST_TEST(t.read_memory(*block, 4).empty());
}

BOOST_AUTO_TEST_CASE(system_calls_in_a_copy) {
  auto decide = [](long nr, uint64_t a0 = 0, uint64_t a3 = 0, uint32_t arch = AUDIT_ARCH_X86_64) {
    Registers r;
    r.set_syscallno(static_cast<uint64_t>(nr));
    r.set_arg(0, a0);
    r.set_arg(3, a3);
    return diversion_call(r, arch, {4242, 4243});
  };
  using A = DiversionCall::Action;
  BOOST_TEST((decide(SYS_write, 1).action == A::Run));
  BOOST_TEST((decide(SYS_writev, 2).action == A::Run));
  BOOST_TEST((decide(SYS_write, 5).action == A::Answer));
  BOOST_TEST(decide(SYS_write, 5).result == -ENOSYS);
  BOOST_TEST((decide(SYS_mmap, 0, MAP_PRIVATE | MAP_ANONYMOUS).action == A::Run));
  BOOST_TEST(decide(SYS_mmap, 0, MAP_PRIVATE).result == -ENOSYS);
  BOOST_TEST((decide(SYS_brk).action == A::Run));
  BOOST_TEST((decide(SYS_exit_group).action == A::Run));
  BOOST_TEST(decide(SYS_getpid).result == 4242);
  BOOST_TEST(decide(SYS_gettid).result == 4243);
  BOOST_TEST(decide(SYS_openat).result == -ENOSYS);
  BOOST_TEST(decide(SYS_clone).result == -ENOSYS);
  BOOST_TEST(decide(SYS_kill).result == -ENOSYS);
  BOOST_TEST(decide(SYS_kill).refused);
  BOOST_TEST(!decide(SYS_brk).refused);
  BOOST_TEST(!decide(SYS_getpid).refused);
  // int 0x80: numbers of the i386 table, whatever they mean in the 64-bit
  // one (15 is chmod there, rt_sigreturn here; 10 unlink, mprotect; 20
  // getpid, writev), and x32 numbers: all refused.
  for (long nr : {15L, 10L, 14L, 11L, 20L, 1L}) {
    DiversionCall c = decide(nr, 1, 0, AUDIT_ARCH_I386);
    BOOST_TEST((c.action == A::Answer));
    BOOST_TEST(c.result == -ENOSYS);
    BOOST_TEST(c.refused);
  }
  BOOST_TEST(decide(0x40000000L | SYS_write, 1).refused);
  BOOST_TEST(decide(0x40000000L | SYS_getpid).refused);
  Registers chmod32;
  chmod32.set_syscallno(15);
  BOOST_TEST(describe_refused_call(chmod32, AUDIT_ARCH_I386) == "32-bit system call 15 (chmod)");
  Registers open64;
  open64.set_syscallno(SYS_open);
  BOOST_TEST(describe_refused_call(open64, AUDIT_ARCH_X86_64) == "system call 2 (open)");
  // gdb's `checkpoint` calls fork() in the program: a process, not a thread.
  BOOST_TEST(!makes_process(open64, AUDIT_ARCH_X86_64));
  Registers fork;
  fork.set_syscallno(SYS_fork);
  BOOST_TEST(makes_process(fork, AUDIT_ARCH_X86_64));
  Registers clone;
  clone.set_syscallno(SYS_clone);
  clone.raw().rdi = SIGCHLD;  // glibc's fork()
  BOOST_TEST(makes_process(clone, AUDIT_ARCH_X86_64));
  clone.raw().rdi = CLONE_VM | CLONE_THREAD | CLONE_SIGHAND;  // pthread_create
  BOOST_TEST(!makes_process(clone, AUDIT_ARCH_X86_64));
}
