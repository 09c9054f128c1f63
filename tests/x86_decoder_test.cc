// engine/core/x86_decoder.h: lengths and placements of the instructions a
// patched syscall site may move, against hand-assembled bytes (GNU as
// encodings).
#define BOOST_TEST_MODULE x86_decoder
#include <sys/mman.h>

#include <boost/test/unit_test.hpp>

#include <cstring>
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
           {0x67, 0xe2, 0xfe},              // loop on ecx
           {0x67, 0xe3, 0x00},              // jecxz
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

// The rcx jumps (loop, loope, loopne, jrcxz) have no rel32 form; their copy
// elsewhere must do what they do. Each runs, original and copy, for every
// rcx in {0, 1, 2} and either ZF: the same branch taken and the same rcx.
BOOST_AUTO_TEST_CASE(a_moved_rcx_jump_does_what_the_original_does) {
  void* mem = mmap(nullptr, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  BOOST_REQUIRE(mem != MAP_FAILED);
  uint8_t* page = static_cast<uint8_t*>(mem);
  const uint64_t base = reinterpret_cast<uint64_t>(page);
  // rcx = rdi; ZF = (esi == 1); the jump; fall through: rax = 2*rcx, at
  // the destination: rax = 2*rcx + 1.
  const std::vector<uint8_t> head = {0x48, 0x89, 0xf9, 0x83, 0xfe, 0x01};
  const std::vector<uint8_t> fall = {0x48, 0x8d, 0x04, 0x09, 0xc3};
  const std::vector<uint8_t> taken = {0x48, 0x8d, 0x44, 0x09, 0x01, 0xc3};
  using Fn = uint64_t (*)(uint64_t, uint64_t);
  for (uint8_t opcode : {0xe0, 0xe1, 0xe2, 0xe3}) {
    std::vector<uint8_t> original = head;
    original.push_back(opcode);
    original.push_back(static_cast<uint8_t>(fall.size()));
    const uint64_t jump_at = base + head.size();
    std::vector<uint8_t> jump = {opcode, static_cast<uint8_t>(fall.size())};
    std::optional<x86::Instruction> insn = x86::decode(jump.data(), jump.size(), jump_at);
    BOOST_REQUIRE(insn);
    BOOST_CHECK(insn->placement == x86::Placement::RelativeJump);
    BOOST_CHECK(insn->conditional);
    BOOST_CHECK_EQUAL(insn->target, jump_at + 2 + fall.size());
    original.insert(original.end(), fall.begin(), fall.end());
    original.insert(original.end(), taken.begin(), taken.end());
    std::memcpy(page, original.data(), original.size());
    // The copy at 512: its jmp goes to the original's destination.
    std::vector<uint8_t> copy = head;
    x86::append_moved(copy, *insn, jump.data(), base + 512 + head.size());
    BOOST_CHECK_EQUAL(copy.size(), head.size() + x86::moved_length(*insn));
    copy.insert(copy.end(), fall.begin(), fall.end());
    std::memcpy(page + 512, copy.data(), copy.size());
    Fn run_original = reinterpret_cast<Fn>(page);
    Fn run_copy = reinterpret_cast<Fn>(page + 512);
    for (uint64_t rcx : {0, 1, 2}) {
      for (uint64_t zf : {0, 1}) {
        BOOST_TEST_CONTEXT("opcode 0x" << std::hex << int(opcode) << std::dec << ", rcx " << rcx << ", ZF " << zf) {
          BOOST_CHECK_EQUAL(run_copy(rcx, zf), run_original(rcx, zf));
        }
      }
    }
  }
  munmap(mem, 4096);
}
