// Which calls may wait (engine/record/blocking_calls.h), as the spec's
// `blocks` column says: always, never, or for some operations only.
#define BOOST_TEST_MODULE blocking_calls
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <linux/futex.h>
#include <sys/syscall.h>

#include <cstdint>

#include "engine/record/blocking_calls.h"

namespace {

backstep::Registers call(long nr, uint64_t arg1 = 0) {
  backstep::Registers regs;
  regs.set_syscallno(static_cast<uint64_t>(nr));
  regs.set_arg(1, arg1);
  return regs;
}

}  // namespace

BOOST_AUTO_TEST_CASE(whole_calls) {
  BOOST_TEST(backstep::may_block(call(SYS_read)));
  BOOST_TEST(backstep::may_block(call(SYS_wait4)));
  BOOST_TEST(backstep::may_block(call(SYS_restart_syscall)));
  BOOST_TEST(!backstep::may_block(call(SYS_getpid)));
  BOOST_TEST(!backstep::may_block(call(SYS_mmap)));
  // Numbers the spec does not list.
  BOOST_TEST(!backstep::may_block(call(-1)));
  BOOST_TEST(!backstep::may_block(call(400)));
  BOOST_TEST(!backstep::may_block(call(100000)));
}

// futex waits, whatever its private and clock flags; its wakes return at once.
BOOST_AUTO_TEST_CASE(futex_operations) {
  for (int op : {FUTEX_WAIT, FUTEX_WAIT_PRIVATE, FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME, FUTEX_LOCK_PI,
                 FUTEX_LOCK_PI2_PRIVATE, FUTEX_WAIT_REQUEUE_PI}) {
    BOOST_TEST(backstep::may_block(call(SYS_futex, static_cast<uint32_t>(op))), "op " << op);
  }
  for (int op : {FUTEX_WAKE, FUTEX_WAKE_PRIVATE, FUTEX_WAKE_BITSET, FUTEX_CMP_REQUEUE, FUTEX_UNLOCK_PI,
                 FUTEX_TRYLOCK_PI, FUTEX_WAKE_OP}) {
    BOOST_TEST(!backstep::may_block(call(SYS_futex, static_cast<uint32_t>(op))), "op " << op);
  }
  BOOST_TEST(backstep::blocks_on_pi_futex(call(SYS_futex, FUTEX_LOCK_PI_PRIVATE)));
  BOOST_TEST(!backstep::blocks_on_pi_futex(call(SYS_futex, FUTEX_WAIT)));
  BOOST_TEST(!backstep::blocks_on_pi_futex(call(SYS_read, FUTEX_LOCK_PI)));
}

// fcntl waits for a lock only in its W commands.
BOOST_AUTO_TEST_CASE(fcntl_commands) {
  BOOST_TEST(backstep::may_block(call(SYS_fcntl, F_SETLKW)));
  BOOST_TEST(backstep::may_block(call(SYS_fcntl, F_OFD_SETLKW)));
  for (int cmd : {F_GETFD, F_SETFD, F_GETFL, F_SETLK, F_GETLK, F_OFD_SETLK, F_DUPFD}) {
    BOOST_TEST(!backstep::may_block(call(SYS_fcntl, static_cast<uint32_t>(cmd))), "cmd " << cmd);
  }
}
