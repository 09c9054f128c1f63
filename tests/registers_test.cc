#define BOOST_TEST_MODULE registers
#include <boost/test/unit_test.hpp>

#include <cstddef>

#include "engine/core/proc_maps.h"
#include "engine/core/cpuid_trap.h"
#include "values/registers.h"

using backstep::Registers;

namespace {

Registers sample() {
  user_regs_struct r{};
  r.rax = 1;
  r.rip = 0x401000;
  r.rsp = 0x7ffffffde000;
  r.eflags = 0x246;
  r.orig_rax = 0;
  r.fs_base = 0x7ffff7d50740;
  return Registers(r);
}

}  // namespace

BOOST_AUTO_TEST_CASE(block_round_trip_keeps_kernel_order) {
  Registers r = sample();
  auto block = r.to_block();
  BOOST_TEST(block[offsetof(user_regs_struct, rip) / 8] == 0x401000u);
  BOOST_TEST(Registers::word_name(offsetof(user_regs_struct, orig_rax) / 8) == std::string("orig_rax"));
  BOOST_TEST(Registers::from_block(block).raw().fs_base == 0x7ffff7d50740u);
}

BOOST_AUTO_TEST_CASE(equal_registers_have_no_differences) {
  BOOST_TEST(Registers::differences(sample(), sample()).empty());
}

BOOST_AUTO_TEST_CASE(trap_flags_are_not_differences) {
  Registers a = sample(), b = sample();
  b.raw().eflags |= (1u << 8) | (1u << 16);  // TF and RF
  BOOST_TEST(Registers::differences(a, b).empty());
  b.raw().eflags |= 1u;  // CF is the program's
  BOOST_TEST(Registers::differences(a, b) == "eflags recorded 0x246 live 0x247");
}

BOOST_AUTO_TEST_CASE(differences_name_every_word) {
  Registers a = sample(), b = sample();
  b.raw().rip = 0x401002;
  b.raw().r9 = 7;
  BOOST_TEST(Registers::differences(a, b) ==
             "r9 recorded 0x0 live 0x7, rip recorded 0x401000 live 0x401002");
}

BOOST_AUTO_TEST_CASE(changes_round_trip) {
  Registers before = sample(), after = sample();
  after.raw().rax = static_cast<uint64_t>(-4);
  after.raw().rcx = 0x401002;
  auto changes = after.changes_since(before);
  BOOST_TEST(changes.size() == 2u);
  Registers rebuilt = before;
  rebuilt.apply(changes);
  BOOST_TEST(Registers::differences(after, rebuilt).empty());
  BOOST_TEST(rebuilt.syscall_result() == -4);
}

BOOST_AUTO_TEST_CASE(syscall_arguments_follow_the_abi) {
  Registers r;
  for (int i = 0; i < 6; ++i) r.set_arg(i, 100 + i);
  BOOST_TEST(r.raw().rdi == 100u);
  BOOST_TEST(r.raw().r10 == 103u);
  BOOST_TEST(r.raw().r9 == 105u);
  BOOST_TEST(r.arg(4) == 104u);
}

BOOST_AUTO_TEST_CASE(proc_maps_lines_parse) {
  auto maps = backstep::parse_proc_maps(
      "555555554000-555555556000 r--p 00000000 fe:00 247134                     /usr/bin/cat\n"
      "7ffff7fc8000-7ffff7fca000 r-xp 00000000 00:00 0                          [vdso]\n"
      "7ffff7fb8000-7ffff7fbf000 r--s 00001000 fe:00 332280   /path with spaces/x\n"
      "7ffff7d50000-7ffff7d72000 rw-p 00000000 00:00 0 \n");
  BOOST_TEST(maps.size() == 4u);
  BOOST_TEST(maps[0].is_file());
  BOOST_TEST(maps[1].name == "[vdso]");
  BOOST_TEST(!maps[1].is_file());
  BOOST_TEST(maps[2].shared);
  BOOST_TEST(maps[2].offset == 0x1000u);
  BOOST_TEST(maps[2].name == "/path with spaces/x");
  BOOST_TEST(maps[3].name.empty());
  BOOST_TEST(maps[3].end - maps[3].start == 0x22000u);
}

BOOST_AUTO_TEST_CASE(smaps_fork_flags_parse) {
  auto diffs = backstep::parse_fork_differences(
      "555555554000-555555556000 r--p 00000000 fe:00 247134                     /usr/bin/cat\n"
      "Size:                  8 kB\n"
      "VmFlags: rd mr mw me dw\n"
      "7ffff7d50000-7ffff7d51000 rw-p 00000000 00:00 0 \n"
      "Rss:                   4 kB\n"
      "VmFlags: rd wr mr mw me ac wf\n"
      "7ffff7d60000-7ffff7d62000 rw-p 00000000 00:00 0 \n"
      "VmFlags: rd wr mr mw me dc ac\n"
      "7ffff7d70000-7ffff7d71000 rw-p 00000000 00:00 0 \n"
      "VmFlags: rd wr mr mw me ac\n");
  BOOST_TEST(diffs.size() == 2u);
  BOOST_TEST(diffs[0].start == 0x7ffff7d50000u);
  BOOST_TEST(diffs[0].end == 0x7ffff7d51000u);
  BOOST_TEST(!diffs[0].dropped);
  BOOST_TEST(diffs[1].start == 0x7ffff7d60000u);
  BOOST_TEST(diffs[1].end == 0x7ffff7d62000u);
  BOOST_TEST(diffs[1].dropped);
}

// CPUID faulting's answers hide RDRAND (leaf 1 ecx bit 30), RDSEED, HLE and
// RTM (leaf 7.0 ebx bits 18, 4, 11), and nothing else.
BOOST_AUTO_TEST_CASE(cpuid_answers_hide_unreplayable_features) {
  uint32_t eax = 0xffffffff, ebx = 0xffffffff, ecx = 0xffffffff, edx = 0xffffffff;
  backstep::mask_cpuid_leaf(1, 0, eax, ebx, ecx, edx);
  BOOST_TEST(ecx == (0xffffffffu & ~(1u << 30)));
  BOOST_TEST((eax == 0xffffffffu && ebx == 0xffffffffu && edx == 0xffffffffu));
  eax = ebx = ecx = edx = 0xffffffff;
  backstep::mask_cpuid_leaf(7, 0, eax, ebx, ecx, edx);
  BOOST_TEST(ebx == (0xffffffffu & ~((1u << 18) | (1u << 4) | (1u << 11))));
  BOOST_TEST((eax == 0xffffffffu && ecx == 0xffffffffu && edx == 0xffffffffu));
  eax = ebx = ecx = edx = 0xffffffff;
  backstep::mask_cpuid_leaf(7, 1, eax, ebx, ecx, edx);  // another subleaf: untouched
  backstep::mask_cpuid_leaf(0, 0, eax, ebx, ecx, edx);
  BOOST_TEST((eax == 0xffffffffu && ebx == 0xffffffffu && ecx == 0xffffffffu && edx == 0xffffffffu));
}
