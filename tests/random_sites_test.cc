// random_sites.h: finding RDRAND and RDSEED in code, the patch that
// replaces each, and reading back what a patched site asks for.
#define BOOST_TEST_MODULE random_sites
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <vector>

#include "engine/core/random_sites.h"

using namespace backstep;

namespace {

std::vector<RandomSite> sites_in(const std::vector<uint8_t>& code) {
  std::vector<RandomSite> found;
  BOOST_REQUIRE(may_hold_random_sites(code.data(), code.size()));
  scan_random_sites(code.data(), code.size(), 0x1000, found);
  return found;
}

RandomRequest request_of(const std::vector<uint8_t>& insn) {
  std::vector<uint8_t> patch = random_site_patch(insn);
  BOOST_REQUIRE_EQUAL(patch.size(), insn.size());
  std::optional<RandomRequest> r = patched_random_site(patch.data(), patch.size());
  BOOST_REQUIRE(r);
  BOOST_CHECK_EQUAL(r->length, static_cast<int>(insn.size()));
  return *r;
}

}  // namespace

BOOST_AUTO_TEST_CASE(finds_the_instructions_among_others) {
  // mov %rdi,%rax; rdrand %r9; xor %eax,%eax; rdseed %ecx; rdrand %ax; ret
  std::vector<uint8_t> code = {0x48, 0x89, 0xf8, 0x49, 0x0f, 0xc7, 0xf1, 0x31, 0xc0,
                               0x0f, 0xc7, 0xf9, 0x66, 0x0f, 0xc7, 0xf0, 0xc3};
  std::vector<RandomSite> found = sites_in(code);
  BOOST_REQUIRE_EQUAL(found.size(), 3u);
  BOOST_CHECK_EQUAL(found[0].offset, 0x1003u);
  BOOST_CHECK_EQUAL(found[0].insn.size(), 4u);
  BOOST_CHECK_EQUAL(found[1].offset, 0x1009u);
  BOOST_CHECK_EQUAL(found[1].insn.size(), 3u);
  BOOST_CHECK_EQUAL(found[2].offset, 0x100cu);
  BOOST_CHECK_EQUAL(found[2].insn.size(), 4u);
}

BOOST_AUTO_TEST_CASE(skips_the_bytes_inside_other_instructions) {
  // movabs $0x00f0c70f00000000,%rax: the pattern 0f c7 f0 is an immediate.
  std::vector<uint8_t> code = {0x48, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x0f, 0xc7, 0xf0, 0x00, 0xc3};
  std::vector<RandomSite> found;
  scan_random_sites(code.data(), code.size(), 0, found);
  BOOST_CHECK(found.empty());
  // cmpxchg16b (%rdi) is 0f c7 /1 with a memory operand: not a site.
  std::vector<uint8_t> cmpxchg = {0x48, 0x0f, 0xc7, 0x0f, 0xc3};
  BOOST_CHECK(!may_hold_random_sites(cmpxchg.data(), cmpxchg.size()));
}

BOOST_AUTO_TEST_CASE(a_patch_says_the_register_width_and_kind) {
  RandomRequest r9 = request_of({0x49, 0x0f, 0xc7, 0xf1});  // rdrand %r9
  BOOST_CHECK_EQUAL(r9.reg, 9);
  BOOST_CHECK_EQUAL(r9.width, 64);
  BOOST_CHECK(!r9.seed);
  RandomRequest ecx = request_of({0x0f, 0xc7, 0xf9});  // rdseed %ecx
  BOOST_CHECK_EQUAL(ecx.reg, 1);
  BOOST_CHECK_EQUAL(ecx.width, 32);
  BOOST_CHECK(ecx.seed);
  RandomRequest ax = request_of({0x66, 0x0f, 0xc7, 0xf0});  // rdrand %ax
  BOOST_CHECK_EQUAL(ax.reg, 0);
  BOOST_CHECK_EQUAL(ax.width, 16);
  RandomRequest r12w = request_of({0x66, 0x41, 0x0f, 0xc7, 0xf4});  // rdrand %r12w
  BOOST_CHECK_EQUAL(r12w.reg, 12);
  BOOST_CHECK_EQUAL(r12w.width, 16);
}

BOOST_AUTO_TEST_CASE(other_int_instructions_are_not_patched_sites) {
  std::vector<uint8_t> rdtsc_patch = {0xcd, 0x2e, 0x90};
  BOOST_CHECK(!patched_random_site(rdtsc_patch.data(), rdtsc_patch.size()));
  std::vector<uint8_t> syscall_gate = {0xcd, 0x80, 0x90};
  BOOST_CHECK(!patched_random_site(syscall_gate.data(), syscall_gate.size()));
  // The vector says 4 bytes, but the byte after the ModRM is no prefix.
  std::vector<uint8_t> bad = {0xcd, 0x2b, 0xf1, 0x90};
  BOOST_CHECK(!patched_random_site(bad.data(), bad.size()));
}
