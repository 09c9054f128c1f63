// engine/core/x86_memory_access.h: the ranges an instruction reads and
// writes, against hand-assembled bytes (GNU as encodings) and made-up
// registers.
#define BOOST_TEST_MODULE x86_memory_access
#include <boost/test/unit_test.hpp>

#include <vector>

#include "engine/core/x86_memory_access.h"

namespace x86 = backstep::x86;
using backstep::Registers;
using x86::MemoryAccess;

namespace backstep::x86 {
std::ostream& operator<<(std::ostream& os, const MemoryAccess& a) {
  return os << "{0x" << std::hex << a.addr << std::dec << ", " << a.len << (a.read ? ", r" : "") << (a.write ? ", w" : "")
            << "}";
}
}  // namespace backstep::x86

namespace {

constexpr uint64_t kAt = 0x401000;

Registers registers() {
  Registers r;
  r.raw().rip = kAt;
  r.raw().rax = 0x1000;
  r.raw().rbx = 0x2000;
  r.raw().rcx = 3;
  r.raw().rsi = 0x5000;
  r.raw().rdi = 0x6000;
  r.raw().rsp = 0x7ffc0000;
  r.raw().rbp = 0x7ffc0100;
  r.raw().r12 = 0x10;
  r.raw().fs_base = 0x7f0000001000;
  r.raw().gs_base = 0x7f0000002000;
  return r;
}

std::vector<MemoryAccess> accesses(std::vector<uint8_t> code, const Registers& regs = registers()) {
  std::optional<std::vector<MemoryAccess>> a = x86::memory_accesses(code.data(), code.size(), regs);
  BOOST_REQUIRE(a);
  return *a;
}

void check(std::vector<uint8_t> code, std::vector<MemoryAccess> expected, const Registers& regs = registers()) {
  std::vector<MemoryAccess> got = accesses(code, regs);
  BOOST_TEST(got == expected, boost::test_tools::per_element());
}

}  // namespace

BOOST_AUTO_TEST_CASE(register_operands_touch_no_memory) {
  check({0x89, 0xc2}, {});                          // mov %eax,%edx
  check({0x48, 0x8d, 0x44, 0x24, 0x08}, {});        // lea 8(%rsp),%rax
  check({0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00}, {});  // nopw 0(%rax,%rax)
}

BOOST_AUTO_TEST_CASE(loads_stores_and_their_sizes) {
  check({0x8b, 0x03}, {{0x2000, 4, true, false}});                    // mov (%rbx),%eax
  check({0x48, 0x8b, 0x43, 0x10}, {{0x2010, 8, true, false}});        // mov 0x10(%rbx),%rax
  check({0x89, 0x43, 0xfc}, {{0x1ffc, 4, false, true}});              // mov %eax,-4(%rbx)
  check({0x0f, 0xb6, 0x03}, {{0x2000, 1, true, false}});              // movzbl (%rbx),%eax
  check({0x66, 0x89, 0x03}, {{0x2000, 2, false, true}});              // mov %ax,(%rbx)
  check({0x01, 0x03}, {{0x2000, 4, true, true}});                     // add %eax,(%rbx): read and write
  check({0x83, 0x3b, 0x05}, {{0x2000, 4, true, false}});              // cmpl $5,(%rbx)
  check({0x0f, 0x10, 0x03}, {{0x2000, 16, true, false}});             // movups (%rbx),%xmm0
  check({0xc5, 0xfc, 0x11, 0x03}, {{0x2000, 32, false, true}});       // vmovups %ymm0,(%rbx)
}

BOOST_AUTO_TEST_CASE(sib_operands) {
  // mov 0x8(%rbx,%rcx,4),%edx: 0x2000 + 3 * 4 + 8
  check({0x8b, 0x54, 0x8b, 0x08}, {{0x2014, 4, true, false}});
  // mov (%rax,%r12,8),%rdx: 0x1000 + 0x10 * 8
  check({0x4a, 0x8b, 0x14, 0xe0}, {{0x1080, 8, true, false}});
  // mov -0x10(,%rcx,8),%rax: no base
  check({0x48, 0x8b, 0x04, 0xcd, 0xf0, 0xff, 0xff, 0xff}, {{3 * 8 - 0x10, 8, true, false}});
}

BOOST_AUTO_TEST_CASE(rip_relative_operands_count_from_the_next_instruction) {
  check({0x8b, 0x05, 0x50, 0xea, 0x1a, 0x00}, {{kAt + 6 + 0x1aea50, 4, true, false}});  // mov 0x1aea50(%rip),%eax
  // movl $1,0x10(%rip): the immediate follows the displacement
  check({0xc7, 0x05, 0x10, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00}, {{kAt + 10 + 0x10, 4, false, true}});
}

BOOST_AUTO_TEST_CASE(fs_and_gs_relative_operands_add_the_segment_base) {
  Registers r = registers();
  check({0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00}, {{r.raw().fs_base + 0x28, 8, true, false}});  // mov %fs:0x28,%rax
  check({0x65, 0x89, 0x03}, {{r.raw().gs_base + 0x2000, 4, false, true}});  // mov %eax,%gs:(%rbx)
}

BOOST_AUTO_TEST_CASE(address_size_prefix_truncates) {
  Registers r = registers();
  r.raw().rbx = 0x1'0000'2000;
  check({0x67, 0x8b, 0x03}, {{0x2000, 4, true, false}}, r);  // mov (%ebx),%eax
}

BOOST_AUTO_TEST_CASE(stack_instructions) {
  const uint64_t sp = registers().raw().rsp;
  check({0x55}, {{sp - 8, 8, false, true}});                                  // push %rbp
  check({0x5d}, {{sp, 8, true, false}});                                      // pop %rbp
  check({0x6a, 0x01}, {{sp - 8, 8, false, true}});                            // push $1
  check({0xff, 0x33}, {{sp - 8, 8, false, true}, {0x2000, 8, true, false}});  // push (%rbx)
  check({0x8f, 0x03}, {{sp, 8, true, false}, {0x2000, 8, false, true}});      // pop (%rbx)
  check({0xe8, 0x00, 0x00, 0x00, 0x00}, {{sp - 8, 8, false, true}});          // call .+5
  check({0xff, 0x13}, {{sp - 8, 8, false, true}, {0x2000, 8, true, false}});  // call *(%rbx)
  check({0xc3}, {{sp, 8, true, false}});                                      // ret
  check({0xc9}, {{registers().raw().rbp, 8, true, false}});                   // leave
  check({0x9c}, {{sp - 8, 8, false, true}});                                  // pushf
}

BOOST_AUTO_TEST_CASE(string_instructions_touch_one_element) {
  check({0xa4}, {{0x5000, 1, true, false}, {0x6000, 1, false, true}});              // movsb
  check({0x48, 0xa5}, {{0x5000, 8, true, false}, {0x6000, 8, false, true}});        // movsq
  check({0xf3, 0xa5}, {{0x5000, 4, true, false}, {0x6000, 4, false, true}});        // rep movsl
  check({0xf3, 0xa6}, {{0x5000, 1, true, false}, {0x6000, 1, true, false}});        // repz cmpsb
  check({0xac}, {{0x5000, 1, true, false}});                                         // lodsb
  check({0xf2, 0xae}, {{0x6000, 1, true, false}});                                   // repnz scasb
  check({0xf3, 0x48, 0xab}, {{0x6000, 8, false, true}});                            // rep stos %rax
  check({0x64, 0xa4}, {{registers().raw().fs_base + 0x5000, 1, true, false}, {0x6000, 1, false, true}});  // movsb %fs:(%rsi)
  Registers done = registers();
  done.raw().rcx = 0;
  check({0xf3, 0xa4}, {}, done);  // rep movsb with rcx 0: no iteration
}

BOOST_AUTO_TEST_CASE(reads_range_overlaps) {
  std::vector<MemoryAccess> a{{0x1000, 4, true, false}, {0x2000, 8, false, true}};
  BOOST_TEST(x86::reads_range(a, 0x1003, 4));
  BOOST_TEST(x86::reads_range(a, 0xffd, 4));
  BOOST_TEST(!x86::reads_range(a, 0xffc, 4));
  BOOST_TEST(!x86::reads_range(a, 0x1004, 4));
  BOOST_TEST(!x86::reads_range(a, 0x2000, 8));  // written, not read
}

BOOST_AUTO_TEST_CASE(unknown_bytes_are_nullopt) {
  std::vector<uint8_t> code{0x0f, 0x0b + 0x30};  // 0f 3b: no such instruction
  BOOST_TEST(!x86::memory_accesses(code.data(), code.size(), registers()));
}
