// 32-bit system calls (int 0x80): which are recorded, as which 64-bit call,
// with which arguments; and how a recorded event says so.
#define BOOST_TEST_MODULE compat_syscalls
#include <boost/test/unit_test.hpp>

#include <sys/syscall.h>

#include "engine/core/compat_syscalls.h"
#include "engine/trace/event.h"

using namespace backstep;

namespace {

// A 32-bit call as ptrace shows it: number in orig_rax, arguments in
// ebx, ecx, edx, esi, edi, ebp; the 64-bit argument registers hold junk.
Registers int80(uint64_t nr, uint64_t a0, uint64_t a1, uint64_t a2) {
  Registers r;
  r.raw().orig_rax = nr;
  r.raw().rbx = a0;
  r.raw().rcx = a1;
  r.raw().rdx = a2;
  r.raw().rsi = 0xfeedface00000004;
  r.raw().rdi = 0x1111;
  r.raw().rbp = 0x2222;
  r.raw().r10 = r.raw().r8 = r.raw().r9 = 0x9999;
  r.raw().rax = static_cast<uint64_t>(-38);
  r.raw().rip = 0x401000;
  return r;
}

}  // namespace

BOOST_AUTO_TEST_CASE(numbers_of_the_i386_table_map_to_their_twins_not_to_the_same_64_bit_number) {
  BOOST_TEST(*native_twin(4) == SYS_write);  // 4 is stat in the 64-bit table
  BOOST_TEST(*native_twin(1) == SYS_exit);   // 1 is write there
  BOOST_TEST(*native_twin(3) == SYS_read);
  BOOST_TEST(*native_twin(20) == SYS_getpid);
  BOOST_TEST(*native_twin(252) == SYS_exit_group);
  BOOST_TEST(*native_twin(199) == SYS_getuid);  // getuid32, not the 16-bit getuid (24)
  for (uint64_t nr : {0, 2, 5, 11, 24, 39, 45, 90, 106, 119, 146, 173, 192, 500}) {
    BOOST_TEST(!native_twin(nr), "32-bit call " << nr << " has no twin");
  }
  BOOST_TEST(std::string(compat_syscall_name(106)) == "stat");
  BOOST_TEST(std::string(compat_syscall_name(4)) == "write");
  BOOST_TEST(compat_syscall_name(9999) == nullptr);
  BOOST_TEST(compat_calls_with_twins().find("exit, read, write, close, getpid") == 0u);
  // The kernel reads eax: bits above it in orig_rax do not change the call.
  BOOST_TEST(*native_twin(0xdeadbeef00000004) == SYS_write);
  BOOST_TEST(std::string(compat_syscall_name(0x100000027)) == "mkdir");
}

BOOST_AUTO_TEST_CASE(arguments_move_to_the_64_bit_registers_zero_extended) {
  Registers native = as_native_call(int80(4, 0xffffffff00000001, 0x40000000, 16));
  BOOST_TEST(native.syscallno() == static_cast<uint64_t>(SYS_write));
  BOOST_TEST(native.arg(0) == 1u);  // the kernel reads ebx only
  BOOST_TEST(native.arg(1) == 0x40000000u);
  BOOST_TEST(native.arg(2) == 16u);
  BOOST_TEST(native.arg(3) == 4u);  // esi
  BOOST_TEST(native.arg(4) == 0x1111u);
  BOOST_TEST(native.arg(5) == 0x2222u);
  BOOST_TEST(native.syscall_result() == -38);  // rax and rip untouched
  BOOST_TEST(native.ip() == 0x401000u);
}

BOOST_AUTO_TEST_CASE(an_event_status_names_the_abi) {
  trace::Event e;
  e.kind = trace::EventKind::Syscall;
  BOOST_TEST(!native_call_of(e.regs, e.status));  // no registers
  e.regs = int80(4, 2, 0x1000, 3).to_block();
  BOOST_TEST(native_call_of(e.regs, e.status)->syscallno() == 4u);  // status 0: a 64-bit stat
  e.status = kAuditArchI386;
  BOOST_TEST(native_call_of(e.regs, e.status)->syscallno() == static_cast<uint64_t>(SYS_write));
  BOOST_TEST(native_call_of(e.regs, e.status)->arg(0) == 2u);
  e.status = 12345;  // damaged or newer trace
  BOOST_TEST(!native_call_of(e.regs, e.status));
  e.status = kAuditArchI386;
  e.regs = int80(106, 0, 0, 0).to_block();  // a 32-bit call backstep never records
  BOOST_TEST(!native_call_of(e.regs, e.status));
}
