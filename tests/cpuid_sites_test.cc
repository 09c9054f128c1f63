// cpuid_trap.h, without CPUID faulting: finding the cpuid instructions of
// code by decoding it, and the patch that makes each trap.
#define BOOST_TEST_MODULE cpuid_sites
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <vector>

#include "engine/core/cpuid_trap.h"

using namespace backstep;

BOOST_AUTO_TEST_CASE(finds_each_cpuid_among_other_instructions) {
  // mov $1,%eax; cpuid; mov %ebx,(%rdi); xor %ecx,%ecx; cpuid; ret
  std::vector<uint8_t> code = {0xb8, 0x01, 0x00, 0x00, 0x00, 0x0f, 0xa2, 0x89, 0x1f, 0x31, 0xc9, 0x0f, 0xa2, 0xc3};
  std::vector<uint64_t> found;
  scan_cpuid_sites(code.data(), code.size(), 0x2000, found);
  BOOST_REQUIRE_EQUAL(found.size(), 2u);
  BOOST_CHECK_EQUAL(found[0], 0x2005u);
  BOOST_CHECK_EQUAL(found[1], 0x200bu);
}

BOOST_AUTO_TEST_CASE(leaves_the_bytes_inside_other_instructions) {
  // mov $0xa20f,%eax and movabs $0x0fa2...,%rax: 0f a2 is part of an
  // immediate; `add %cl,0xa20f(%rip)`: of a displacement.
  std::vector<uint8_t> code = {0xb8, 0x0f, 0xa2, 0x00, 0x00,                                // mov
                               0x48, 0xb8, 0x00, 0x0f, 0xa2, 0x00, 0x00, 0x00, 0x00, 0x00,  // movabs
                               0x00, 0x0d, 0x0f, 0xa2, 0x00, 0x00, 0xc3};
  std::vector<uint64_t> found;
  scan_cpuid_sites(code.data(), code.size(), 0, found);
  BOOST_CHECK(found.empty());
}

BOOST_AUTO_TEST_CASE(the_patch_is_as_long_and_reads_back_as_cpuid) {
  std::vector<uint8_t> patch = cpuid_site_patch();
  BOOST_REQUIRE_EQUAL(patch.size(), 2u);
  BOOST_CHECK_EQUAL(patch[0], 0xcd);  // int imm8: a general-protection fault in user mode
  BOOST_CHECK(is_cpuid(patch.data(), patch.size(), /*patched=*/true));
  BOOST_CHECK(!is_cpuid(patch.data(), patch.size(), /*patched=*/false));
  const uint8_t native[] = {0x0f, 0xa2};
  BOOST_CHECK(is_cpuid(native, 2, false));
  BOOST_CHECK(!is_cpuid(native, 1, false));
  // The other patches' vectors are not cpuid's (tsc_sites.cc, random_sites.cc).
  for (uint8_t vector : {0x2a, 0x2b, 0x2c, 0x2e, 0x2f, 0x80}) {
    const uint8_t other[] = {0xcd, vector};
    BOOST_CHECK(!is_cpuid(other, 2, true));
  }
}
