// code_sites.h: the sites the recorder patches, found by decoding only
// around the bytes that could start one, from the nearest function start.
#define BOOST_TEST_MODULE code_sites
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/code_sites.h"
#include "engine/core/cpuid_trap.h"

using namespace backstep;

namespace {

// What the three linear scans of whole sections find (the way sites were
// found before code_sites.h).
CodeSites linear_sites(int fd) {
  CodeSites s;
  s.tsc = find_tsc_sites(fd);
  s.cpuid = find_cpuid_sites(fd);
  each_code_section(fd, [&](const uint8_t* code, std::size_t size, uint64_t offset) {
    if (may_hold_random_sites(code, size)) scan_random_sites(code, size, offset, s.random);
  });
  return s;
}

std::set<std::pair<uint64_t, int>> keyed(const CodeSites& s) {
  std::set<std::pair<uint64_t, int>> out;
  for (const TscSite& t : s.tsc) out.insert({t.offset, t.length});
  for (const RandomSite& r : s.random) out.insert({r.offset, 100 + static_cast<int>(r.insn.size())});
  for (uint64_t c : s.cpuid) out.insert({c, 200});
  return out;
}

std::string cc1_path() {
  FILE* p = popen("cc -print-prog-name=cc1 2>/dev/null", "r");
  if (!p) return {};
  char buf[512] = {};
  std::string path = fgets(buf, sizeof buf, p) ? buf : "";
  pclose(p);
  while (!path.empty() && (path.back() == '\n' || path.back() == ' ')) path.pop_back();
  return path;
}

}  // namespace

BOOST_AUTO_TEST_CASE(finds_every_kind_at_boundaries_only) {
  // rdtsc; mov $0xa20f,%eax (0f a2 in an immediate); rdrand %eax (0f c7 f0);
  // 66 48 0f c7 f8 is not written by assemblers (REX after 0x66 is fine:
  // rdseed %rax with an operand-size prefix); cpuid; rdtscp; ret
  std::vector<uint8_t> code = {0x0f, 0x31,                    // 0: rdtsc
                               0xb8, 0x0f, 0xa2, 0x00, 0x00,  // 2: mov (0f a2 inside)
                               0x0f, 0xc7, 0xf0,              // 7: rdrand %eax
                               0x0f, 0xa2,                    // 10: cpuid
                               0x0f, 0x01, 0xf9,              // 12: rdtscp
                               0xc3};
  CodeSites s;
  scan_code_sites(code.data(), code.size(), 0x1000, {}, /*tsc=*/true, /*cpuid=*/true, s);
  BOOST_REQUIRE_EQUAL(s.tsc.size(), 2u);
  BOOST_CHECK_EQUAL(s.tsc[0].offset, 0x1000u);
  BOOST_CHECK_EQUAL(s.tsc[1].offset, 0x100cu);
  BOOST_CHECK_EQUAL(s.tsc[1].length, 3);
  BOOST_REQUIRE_EQUAL(s.random.size(), 1u);
  BOOST_CHECK_EQUAL(s.random[0].offset, 0x1007u);
  BOOST_REQUIRE_EQUAL(s.cpuid.size(), 1u);
  BOOST_CHECK_EQUAL(s.cpuid[0], 0x100au);
  // Kinds not asked for are not reported.
  CodeSites only_random;
  scan_code_sites(code.data(), code.size(), 0x1000, {}, false, false, only_random);
  BOOST_CHECK(only_random.tsc.empty() && only_random.cpuid.empty());
  BOOST_CHECK_EQUAL(only_random.random.size(), 1u);
}

BOOST_AUTO_TEST_CASE(a_function_start_is_a_boundary) {
  // Bytes before the function that a linear decoding reads as the start of
  // a long instruction swallowing the cpuid (48 b8 + 8 bytes: movabs);
  // the function starts at 3, where cpuid is the first instruction.
  std::vector<uint8_t> code = {0x48, 0xb8, 0x00,  // data
                               0x0f, 0xa2,        // 3: cpuid
                               0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0xc3};
  CodeSites linear;
  scan_code_sites(code.data(), code.size(), 0, {}, false, true, linear);
  BOOST_CHECK(linear.cpuid.empty());
  CodeSites from_start;
  scan_code_sites(code.data(), code.size(), 0, {3}, false, true, from_start);
  BOOST_REQUIRE_EQUAL(from_start.cpuid.size(), 1u);
  BOOST_CHECK_EQUAL(from_start.cpuid[0], 3u);
}

BOOST_AUTO_TEST_CASE(real_programs_give_what_the_linear_scans_give) {
  std::vector<std::string> files = {"/lib/x86_64-linux-gnu/libc.so.6", "/lib64/ld-linux-x86-64.so.2", "/bin/bash",
                                    "/proc/self/exe", cc1_path()};
  int compared = 0;
  for (const std::string& path : files) {
    if (path.empty()) continue;
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    CodeSites fast = find_code_sites(fd, true, true);
    CodeSites linear = linear_sites(fd);
    close(fd);
    BOOST_TEST_MESSAGE(path << ": " << fast.tsc.size() << " rdtsc, " << fast.random.size() << " rdrand, "
                            << fast.cpuid.size() << " cpuid");
    BOOST_CHECK_MESSAGE(keyed(fast) == keyed(linear), path << ": the sites differ from the linear scans'");
    ++compared;
  }
  BOOST_CHECK_GE(compared, 3);
}
