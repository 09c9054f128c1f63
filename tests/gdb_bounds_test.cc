// Unit tests of the bounds the gdb server puts on one request (docs/protocol.md,
// "Bounds on requests"), against a fake target: no length a client writes
// reaches the target or an allocation unbounded, a watchpoint or breakpoint
// the target could not serve is refused when it arrives, with an error
// reply, and the session goes on.
#define BOOST_TEST_MODULE gdb_bounds
#include <boost/test/unit_test.hpp>

#include "tests/support/fake_session.h"

using namespace backstep;
using namespace backstep::testing;

namespace {

// Memory that reads as zeros, and a record of what the session asked for.
class CountingTarget : public FakeTarget {
 public:
  std::size_t longest_read = 0;
  int watchpoints_set = 0;
  int breakpoints_set = 0;
  bool breakpoints_full = false;

  std::vector<uint8_t> read_memory(uint64_t, std::size_t len) override {
    longest_read = std::max(longest_read, len);
    return std::vector<uint8_t>(len, 0);
  }
  bool set_watchpoint(uint64_t, uint64_t, WatchKind) override {
    ++watchpoints_set;
    return true;
  }
  bool set_breakpoint(uint64_t, TrapKind) override {
    if (breakpoints_full) return false;
    ++breakpoints_set;
    return true;
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(watchpoints_the_debug_registers_cannot_hold_are_refused_at_once) {
  CountingTarget target;
  Client c(target);
  for (const char* packet : {"Z2,1,ffffffff", "Z2,1000,ffffffffffffffff", "Z4,1000,21", "Z2,1000,0"}) {
    BOOST_TEST(c.ask(packet) == "E16", packet);
  }
  BOOST_TEST(target.watchpoints_set == 0);
  BOOST_TEST(c.ask("Z2,1000,20") == "OK");  // 32 bytes: four 8-byte registers
  BOOST_TEST(c.ask("Z4,1001,4") == "OK");
  BOOST_TEST(target.watchpoints_set == 2);
}

BOOST_AUTO_TEST_CASE(traps_outside_user_space_are_refused_at_once) {
  CountingTarget target;
  Client c(target);
  for (const char* packet : {"Z2,8000000000000000,8", "Z4,ffffffffff600000,8", "Z2,7ffffffff000,8",
                             "Z2,7fffffffeffc,8", "Z2,fffffffffffffffc,8", "Z1,8000000000000000,1",
                             "Z0,ffffffffffffffff,1", "Z1,7ffffffff000,1"}) {
    BOOST_TEST(c.ask(packet) == "E16", packet);
  }
  BOOST_TEST(target.watchpoints_set == 0);
  BOOST_TEST(target.breakpoints_set == 0);
  BOOST_TEST(c.ask("Z2,7fffffffeff8,8") == "OK");  // the last 8 bytes below the end
  BOOST_TEST(c.ask("Z1,7fffffffefff,1") == "OK");
  // The session goes on: a resume still stops.
  BOOST_TEST(c.ask("c").rfind("T05", 0) == 0);
}

BOOST_AUTO_TEST_CASE(breakpoints_past_the_targets_bound_get_an_error) {
  CountingTarget target;
  Client c(target);
  BOOST_TEST(c.ask("Z0,401000,1") == "OK");
  target.breakpoints_full = true;
  BOOST_TEST(c.ask("Z0,401001,1") == "E18");
  BOOST_TEST(c.ask("Z1,401002,1") == "E18");
  BOOST_TEST(c.ask("z0,401000,1") == "OK");
}

BOOST_AUTO_TEST_CASE(replies_fit_the_packet_size) {
  CountingTarget target;
  Client c(target);
  BOOST_TEST(c.ask("qSupported").find("PacketSize=20000;") != std::string::npos);
  // m of 4 GiB: the target is asked for what fits, the reply is that much.
  std::string m = c.ask("m401000,100000000");
  BOOST_TEST(target.longest_read == gdb::GdbSession::kMaxMemoryRead);
  BOOST_TEST(m.size() == 2 * gdb::GdbSession::kMaxMemoryRead);
  BOOST_TEST(m.size() < gdb::GdbSession::kPacketSize);
  // qXfer: the window is cut to what fits; 'm' says more follows.
  std::string xml = c.ask("qXfer:features:read:target.xml:0,ffffffffffffffff");
  BOOST_TEST(xml.size() <= gdb::GdbSession::kMaxXferRead + 1);
  BOOST_TEST((xml[0] == 'l' || xml.size() == gdb::GdbSession::kMaxXferRead + 1));
}

BOOST_AUTO_TEST_CASE(saved_register_states_are_bounded) {
  CountingTarget target;
  Client c(target);
  for (std::size_t i = 0; i < gdb::GdbSession::kMaxSavedRegisterStates; ++i) {
    BOOST_REQUIRE(c.ask("QSaveRegisterState") == std::to_string(i + 1));
  }
  BOOST_TEST(c.ask("QSaveRegisterState") == "E18");
  BOOST_TEST(c.ask("qC") == "QCp64.64");
}
