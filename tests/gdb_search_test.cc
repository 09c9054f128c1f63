// Unit tests of qSearch:memory (gdb's `find`, gdbserver/memory_search.h)
// against the fake target: a pattern is found in the mapped parts of a range
// that holds holes, across two adjacent mappings and across the server's
// read chunks; a pattern only in a hole, or running past the range, is not
// found; a malformed packet gets an error and the session goes on.
#define BOOST_TEST_MODULE gdb_search
#include <boost/test/unit_test.hpp>

#include "gdbserver/memory_search.h"
#include "gdbserver/rsp/hex.h"
#include "tests/support/fake_session.h"

using namespace backstep;
using namespace backstep::testing;

namespace {

// Three mappings: two adjacent ones at 0x10000-0x12000 and 0x12000-0x13000,
// a hole, then 0x20000-0x21000 (PROT_NONE, readable by the debugger). The
// second one's last page cannot be read (a file mapped past its end).
FakeTarget target_with_holes() {
  FakeTarget t;
  t.mappings = {{0x10000, 0x12000, true, true, false, ""},
                {0x12000, 0x14000, true, false, false, "/lib/f"},
                {0x20000, 0x21000, false, false, false, ""}};
  t.memory[0x10000] = std::vector<uint8_t>(0x3000, 0);  // up to 0x13000: 0x13000-0x14000 unreadable
  t.memory[0x20000] = std::vector<uint8_t>(0x1000, 0);
  return t;
}

void put(FakeTarget& t, uint64_t addr, const std::string& s) {
  for (auto& [start, block] : t.memory) {
    if (addr >= start && addr + s.size() <= start + block.size()) {
      std::copy(s.begin(), s.end(), block.begin() + static_cast<std::ptrdiff_t>(addr - start));
      return;
    }
  }
  BOOST_FAIL("no block holds the address");
}

std::string search(uint64_t addr, uint64_t length, const std::string& pattern) {
  return "qSearch:memory:" + rsp::hex_number(addr) + ";" + rsp::hex_number(length) + ";" + pattern;
}

}  // namespace

BOOST_AUTO_TEST_CASE(found_past_the_holes_of_the_range) {
  FakeTarget t = target_with_holes();
  put(t, 0x20800, "needle");
  Client c(t);
  // From below the first mapping to far above the last: the holes are skipped.
  BOOST_TEST(c.ask(search(0x1000, 0x100000, "needle")) == "1,20800");
  BOOST_TEST(c.ask(search(0x20801, 0x1000, "needle")) == "0");
  // The range must hold the whole match.
  BOOST_TEST(c.ask(search(0x20000, 0x805, "needle")) == "0");
  BOOST_TEST(c.ask(search(0x20000, 0x806, "needle")) == "1,20800");
}

BOOST_AUTO_TEST_CASE(the_lowest_match_wins_and_matches_straddle_mappings) {
  FakeTarget t = target_with_holes();
  put(t, 0x11ffd, "needle");  // across the two adjacent mappings
  put(t, 0x20010, "needle");
  Client c(t);
  BOOST_TEST(c.ask(search(0x10000, 0x20000, "needle")) == "1,11ffd");
  BOOST_TEST(c.ask(search(0x11ffe, 0x20000, "needle")) == "1,20010");
}

BOOST_AUTO_TEST_CASE(matches_across_read_chunks_and_after_an_unreadable_page) {
  FakeTarget t = target_with_holes();
  put(t, 0x10ffe, "abcdef");
  put(t, 0x20ffa, "abcdef");
  auto read = [&t](uint64_t addr, std::size_t len) { return t.read_memory(addr, len); };
  std::vector<uint8_t> pattern{'a', 'b', 'c', 'd', 'e', 'f'};
  // 4 KiB reads: the first match spans two of them.
  BOOST_TEST(gdb::search_memory(t.mappings, read, 0x10000, 0x20000, pattern, 0x1000).value() == 0x10ffe);
  // From past it: the unreadable page at 0x13000 ends that run, the search
  // goes on in the next mapping.
  BOOST_TEST(gdb::search_memory(t.mappings, read, 0x10fff, 0x20000, pattern, 0x1000).value() == 0x20ffa);
  BOOST_TEST(!gdb::search_memory(t.mappings, read, 0x10fff, 0x1000, pattern, 0x1000));
  // Nothing is read outside the mappings: three runs at most, a few chunks each.
  t.reads = 0;
  BOOST_TEST(!gdb::search_memory(t.mappings, read, 0, UINT64_MAX, {'z', 'z'}, 0x1000));
  BOOST_TEST(t.reads <= 6u);
}

BOOST_AUTO_TEST_CASE(a_malformed_search_is_an_error_and_the_session_goes_on) {
  FakeTarget t = target_with_holes();
  Client c(t);
  BOOST_TEST(c.ask("qSearch:memory:10000;100;") == "E16");  // no pattern
  BOOST_TEST(c.ask("qSearch:memory:10000;100") == "E16");
  BOOST_TEST(c.ask("qSearch:memory:zz;100;ab") == "E16");
  BOOST_TEST(c.ask(search(0x10000, 0x100, "\x01")) == "0");
}
