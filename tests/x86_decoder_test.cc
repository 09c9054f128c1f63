// engine/core/x86_decoder.h: lengths and placements of the instructions a
// patched syscall site may move, against hand-assembled bytes (GNU as
// encodings).
#define BOOST_TEST_MODULE x86_decoder
#include <boost/test/unit_test.hpp>

#include <vector>

#include "engine/core/x86_decoder.h"

namespace x86 = backstep::x86;

namespace {

constexpr uint64_t kAt = 0x401000;

x86::Instruction decode(std::vector<uint8_t> code) {
  std::optional<x86::Instruction> insn = x86::decode(code.data(), code.size(), kAt);
  BOOST_REQUIRE(insn);
  return *insn;
}

}  // namespace

BOOST_AUTO_TEST_CASE(plain_instructions_run_anywhere) {
  struct Case {
    std::vector<uint8_t> code;
    uint8_t length;
  };
  for (const Case& c : std::vector<Case>{
           {{0x48, 0x3d, 0x00, 0xf0, 0xff, 0xff}, 6},              // cmp $-4096,%rax
           {{0x3d, 0x00, 0xf0, 0xff, 0xff}, 5},                    // cmp $0xfffff000,%eax
           {{0x89, 0xc2}, 2},                                      // mov %eax,%edx
           {{0x48, 0x8b, 0x44, 0x24, 0x08}, 5},                    // mov 8(%rsp),%rax
           {{0x83, 0x8b, 0x0c, 0x03, 0x00, 0x00, 0x20}, 7},        // orl $0x20,0x30c(%rbx)
           {{0xf7, 0xd8}, 2},                                      // neg %eax
       }) {
    x86::Instruction insn = decode(c.code);
    BOOST_CHECK_EQUAL(insn.length, c.length);
    BOOST_CHECK(insn.placement == x86::Placement::Anywhere);
    BOOST_CHECK(!insn.padding);
  }
}

BOOST_AUTO_TEST_CASE(rip_relative_operands_name_their_address) {
  // mov 0x1aea50(%rip),%eax
  x86::Instruction insn = decode({0x8b, 0x05, 0x50, 0xea, 0x1a, 0x00});
  BOOST_CHECK(insn.placement == x86::Placement::RipRelative);
  BOOST_CHECK_EQUAL(insn.length, 6);
  BOOST_CHECK_EQUAL(insn.displacement_at, 2);
  BOOST_CHECK_EQUAL(insn.target, kAt + 6 + 0x1aea50);
  // lea -0x93a(%rip),%rdx
  insn = decode({0x48, 0x8d, 0x15, 0xc6, 0xf6, 0xff, 0xff});
  BOOST_CHECK(insn.placement == x86::Placement::RipRelative);
  BOOST_CHECK_EQUAL(insn.target, kAt + 7 - 0x93a);
  // cmpl $0,0x10(%rip): an immediate after the displacement stays put.
  insn = decode({0x83, 0x3d, 0x10, 0x00, 0x00, 0x00, 0x00});
  BOOST_CHECK(insn.placement == x86::Placement::FixedControlFlow);
}

BOOST_AUTO_TEST_CASE(direct_jumps_name_their_destination) {
  x86::Instruction insn = decode({0x77, 0x10});  // ja +0x10
  BOOST_CHECK(insn.placement == x86::Placement::RelativeJump);
  BOOST_CHECK(insn.conditional);
  BOOST_CHECK_EQUAL(insn.condition, 7);
  BOOST_CHECK_EQUAL(insn.target, kAt + 2 + 0x10);
  insn = decode({0x0f, 0x8c, 0x00, 0x01, 0x00, 0x00});  // jl +0x100
  BOOST_CHECK(insn.conditional);
  BOOST_CHECK_EQUAL(insn.condition, 0xc);
  BOOST_CHECK_EQUAL(insn.target, kAt + 6 + 0x100);
  insn = decode({0xeb, 0xf8});  // jmp -8
  BOOST_CHECK(insn.placement == x86::Placement::RelativeJump);
  BOOST_CHECK(!insn.conditional);
  BOOST_CHECK_EQUAL(insn.target, kAt + 2 - 8);
}

BOOST_AUTO_TEST_CASE(what_reads_or_changes_rip_stays_put) {
  for (const std::vector<uint8_t>& code : std::vector<std::vector<uint8_t>>{
           {0xc3},                          // ret
           {0xe8, 0x00, 0x00, 0x00, 0x00},  // call
           {0xff, 0xe0},                    // jmp *%rax
           {0x0f, 0x05},                    // syscall
           {0xcd, 0x80},                    // int $0x80
           {0xe2, 0xfe},                    // loop
           {0xe3, 0x00},                    // jrcxz
           {0x0f, 0x31},                    // rdtsc
           {0x0f, 0xa2},                    // cpuid
       }) {
    BOOST_CHECK(decode(code).placement == x86::Placement::FixedControlFlow);
  }
}

BOOST_AUTO_TEST_CASE(padding_is_marked_and_garbage_refused) {
  BOOST_CHECK(decode({0x90}).padding);
  BOOST_CHECK(decode({0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00}).padding);  // cs nopw
  BOOST_CHECK(decode({0xcc}).padding);
  BOOST_CHECK(!decode({0x48, 0x89, 0xe5}).padding);  // mov %rsp,%rbp
  std::vector<uint8_t> cut = {0x48, 0x3d, 0x00};     // cmp cut short
  BOOST_CHECK(!x86::decode(cut.data(), cut.size(), kAt));
  std::vector<uint8_t> ud2 = {0x0f, 0x0b};  // an instruction, that traps
  BOOST_CHECK(x86::decode(ud2.data(), ud2.size(), kAt)->placement == x86::Placement::FixedControlFlow);
  std::vector<uint8_t> invalid = {0x06};  // push %es: not in 64-bit mode
  BOOST_CHECK(!x86::decode(invalid.data(), invalid.size(), kAt));
}
