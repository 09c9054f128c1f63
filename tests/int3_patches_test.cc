// Int3Patches on a real stopped child: the int3s it writes, the bytes it
// keeps and puts back, and reads that hide them.
#define BOOST_TEST_MODULE int3_patches
#include <boost/test/unit_test.hpp>

#include <signal.h>
#include <sys/ptrace.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

#include "engine/core/int3_patches.h"
#include "engine/core/task.h"
#include "tests/support/stopped_child.h"

using namespace backstep;

namespace {

// Bytes at the same address in the forked child.
uint8_t g_bytes[8] = {0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17};

// A function the child calls once it is let go: a nop and a ret, at the
// same address in the child.
extern "C" void int3_patches_test_target();
__asm__(".text\n.globl int3_patches_test_target\nint3_patches_test_target:\n  nop\n  ret\n");

// A child stopped under ptrace; resumed, it calls the target and exits
// with 5. Killed when the test ends (by ~Task).
pid_t stopped_child() { return testing::stopped_child(int3_patches_test_target, 5); }

uint64_t address_of(const void* p) { return reinterpret_cast<uint64_t>(p); }

std::vector<uint8_t> raw(Task& task, uint64_t addr, std::size_t len) {
  std::vector<uint8_t> out(len);
  out.resize(task.read_some(remote_ptr<void>(addr), out.data(), len));
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(int3s_go_in_reads_hide_them_and_removal_restores_the_bytes) {
  Task task(stopped_child());
  WaitStatus ws = task.wait();
  BOOST_REQUIRE(ws.is_signal() && ws.signal == SIGSTOP);
  const uint64_t base = address_of(g_bytes);
  const std::vector<uint8_t> original(g_bytes, g_bytes + sizeof g_bytes);

  Int3Patches int3s;
  BOOST_TEST(int3s.empty());
  BOOST_TEST(int3s.insert(task, base + 2));
  BOOST_TEST(int3s.insert(task, base + 5));
  // A second insert at one address keeps the program's byte, not the 0xcc.
  BOOST_TEST(int3s.insert(task, base + 2));
  BOOST_TEST(int3s.contains(base + 2));
  BOOST_TEST(int3s.contains(base + 5));
  BOOST_TEST(!int3s.contains(base + 3));
  BOOST_TEST(int3s.originals().size() == 2u);
  BOOST_TEST(int3s.originals().at(base + 2) == 0x12);

  std::vector<uint8_t> with_int3s = original;
  with_int3s[2] = 0xcc;
  with_int3s[5] = 0xcc;
  std::vector<uint8_t> bytes = raw(task, base, sizeof g_bytes);
  BOOST_TEST(bytes == with_int3s);
  int3s.hide(base, bytes);
  BOOST_TEST(bytes == original);
  // A read that covers only some of them, starting after the first.
  std::vector<uint8_t> tail = raw(task, base + 3, 4);
  int3s.hide(base + 3, tail);
  BOOST_TEST(tail == std::vector<uint8_t>(original.begin() + 3, original.begin() + 7));
  // One that covers none of them is left as read.
  std::vector<uint8_t> none = raw(task, base + 6, 2);
  int3s.hide(base + 6, none);
  BOOST_TEST(none == std::vector<uint8_t>(original.begin() + 6, original.end()));

  // Removing one puts its byte back and leaves the other in.
  BOOST_TEST(int3s.remove(task, base + 2));
  BOOST_TEST(!int3s.remove(task, base + 2));  // already out
  BOOST_TEST(!int3s.contains(base + 2));
  with_int3s[2] = original[2];
  BOOST_TEST(raw(task, base, sizeof g_bytes) == with_int3s);

  int3s.remove_all(task);
  BOOST_TEST(int3s.empty());
  BOOST_TEST(raw(task, base, sizeof g_bytes) == original);
}

BOOST_AUTO_TEST_CASE(an_unmapped_address_gets_none) {
  Task task(stopped_child());
  WaitStatus ws = task.wait();
  BOOST_REQUIRE(ws.is_signal() && ws.signal == SIGSTOP);
  Int3Patches int3s;
  BOOST_TEST(!int3s.insert(task, 8));  // the first page is never mapped
  BOOST_TEST(int3s.empty());
  int3s.remove_all(task);  // nothing to write
}

BOOST_AUTO_TEST_CASE(forget_all_writes_nothing) {
  Task task(stopped_child());
  WaitStatus ws = task.wait();
  BOOST_REQUIRE(ws.is_signal() && ws.signal == SIGSTOP);
  const uint64_t base = address_of(g_bytes);
  Int3Patches int3s;
  BOOST_TEST(int3s.insert(task, base));
  int3s.forget_all();
  BOOST_TEST(int3s.empty());
  BOOST_TEST(raw(task, base, 1) == std::vector<uint8_t>{0xcc});
}

BOOST_AUTO_TEST_CASE(the_child_stops_at_an_int3_and_runs_on_once_it_is_out) {
  Task task(stopped_child());
  WaitStatus ws = task.wait();
  BOOST_REQUIRE(ws.is_signal() && ws.signal == SIGSTOP);
  const uint64_t target = address_of(reinterpret_cast<const void*>(&int3_patches_test_target));
  Int3Patches int3s;
  BOOST_REQUIRE(int3s.insert(task, target));
  task.resume(ResumeHow::Continue);
  ws = task.wait();
  BOOST_REQUIRE(ws.is_signal() && ws.signal == SIGTRAP);
  Registers regs = task.regs();
  BOOST_TEST(regs.ip() == target + 1);  // just past the int3
  // As a breakpoint stop is handled: the byte back, the pc on it, run on.
  int3s.remove_all(task);
  regs.set_ip(target);
  task.set_regs(regs);
  task.resume(ResumeHow::Continue);
  ws = task.wait();
  BOOST_TEST(ws.describe() == "exited with status 5");
}
