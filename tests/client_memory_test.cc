// The debugger's own memory (engine/timeline/client_memory.h): where
// regions go, what reads and writes reach, and how they are listed.
#define BOOST_TEST_MODULE client_memory
#include <boost/test/unit_test.hpp>

#include <sys/mman.h>

#include "engine/core/tool_page.h"
#include "engine/timeline/client_memory.h"

using namespace backstep;

namespace {

MemoryMapping mapping(uint64_t start, uint64_t end) {
  MemoryMapping m;
  m.start = start;
  m.end = end;
  return m;
}

}  // namespace

BOOST_AUTO_TEST_CASE(regions_go_below_the_tool_page_clear_of_every_mapping) {
  ClientMemory memory;
  std::vector<MemoryMapping> taken = {mapping(0x400000, 0x401000), mapping(kToolPageAddr, kToolPageAddr + kToolPageSize)};
  std::optional<uint64_t> a = memory.allocate(100, PROT_READ | PROT_WRITE, taken);
  BOOST_REQUIRE(a);
  BOOST_TEST(*a % 4096 == 0u);
  BOOST_TEST(*a + 4096 < kToolPageAddr);
  // Something of the program just below: the next region goes below it,
  // a page apart; nor does it touch the first.
  taken.push_back(mapping(*a - 0x3000, *a - 0x1000));
  std::optional<uint64_t> b = memory.allocate(8192, PROT_READ, taken);
  BOOST_REQUIRE(b);
  BOOST_TEST(*b + 8192 < *a - 0x3000);
  BOOST_TEST(memory.regions().size() == 2u);
  BOOST_TEST(!memory.allocate(0, PROT_READ, taken));
  // Nothing fits when the whole range is taken.
  ClientMemory full;
  BOOST_TEST(!full.allocate(4096, PROT_READ, {mapping(0, kToolPageAddr)}));
}

BOOST_AUTO_TEST_CASE(reads_and_writes_stay_inside_their_region) {
  ClientMemory memory;
  uint64_t a = *memory.allocate(4096, PROT_READ | PROT_WRITE, {});
  BOOST_TEST(memory.read(a, 4) == (std::vector<uint8_t>{0, 0, 0, 0}), boost::test_tools::per_element());
  BOOST_TEST(memory.write(a + 4094, {1, 2, 3, 4}) == 2u);  // clipped at the end
  BOOST_TEST(memory.read(a + 4094, 10) == (std::vector<uint8_t>{1, 2}), boost::test_tools::per_element());
  BOOST_TEST(memory.read(a + 4096, 1).empty());
  BOOST_TEST(memory.write(a - 1, {9}) == 0u);
  uint64_t start = 0;
  BOOST_TEST(memory.find(a + 100, &start) != nullptr);
  BOOST_TEST(start == a);
  BOOST_TEST(!memory.deallocate(a + 100));  // only a region's start
  BOOST_TEST(memory.deallocate(a));
  BOOST_TEST(memory.find(a) == nullptr);
}

BOOST_AUTO_TEST_CASE(regions_are_listed_among_the_mappings_in_order) {
  ClientMemory memory;
  uint64_t a = *memory.allocate(4096, PROT_READ | PROT_EXEC, {});
  std::vector<MemoryMapping> maps = {mapping(0x400000, 0x401000), mapping(0x7f0000000000, 0x7f0000001000)};
  memory.add_to(maps);
  BOOST_REQUIRE_EQUAL(maps.size(), 3u);
  BOOST_TEST(maps[1].start == a);
  BOOST_TEST(maps[1].end == a + 4096);
  BOOST_TEST(maps[1].readable);
  BOOST_TEST(!maps[1].writable);
  BOOST_TEST(maps[1].executable);
}
