// Which system call numbers outside the table the recorder lets the kernel
// answer (with -ENOSYS), and which it refuses before they run.
#define BOOST_TEST_MODULE unknown_syscall
#include <boost/test/unit_test.hpp>

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include "engine/core/syscalls/syscall_table.h"
#include "engine/record/syscall_context.h"
#include "engine/record/unknown_syscall.h"

namespace {

using backstep::RecordingRefused;
using backstep::check_unknown_syscall_entry;

constexpr uint64_t kX32Bit = 0x40000000;

std::string refusal(uint64_t orig_rax) {
  try {
    check_unknown_syscall_entry(orig_rax, 7);
  } catch (const RecordingRefused& e) {
    return e.what();
  }
  return "";
}

bool kernel_runs_x32() { return syscall(kX32Bit | SYS_getpid) == getpid(); }

}  // namespace

BOOST_AUTO_TEST_CASE(numbers_the_kernel_answers_enosys_are_let_through) {
  BOOST_TEST(refusal(static_cast<uint64_t>(-1)) == "");
  BOOST_TEST(refusal(1008) == "");
  BOOST_TEST(refusal(400) == "");  // the never-used 335..423
  BOOST_TEST(refusal(512) == "");  // x32-only numbers, without the x32 bit
  BOOST_TEST(refusal(static_cast<uint64_t>(-2000000)) == "");
}

BOOST_AUTO_TEST_CASE(upper_bits_are_refused) {
  // The kernel looks at the low 32 bits only: this would run getpid.
  BOOST_TEST(refusal(0x100000000 | SYS_getpid).find("upper bits") != std::string::npos);
  BOOST_TEST(refusal(0x7fffffff00000000).find("upper bits") != std::string::npos);
  // -1 in the low 32 bits only: not how the kernel's own -1 looks.
  BOOST_TEST(refusal(0xffffffff).find("upper bits") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(numbers_a_newer_kernel_may_implement_are_refused) {
  const long last = backstep::sys::all_syscalls().back().nr;
  BOOST_TEST(refusal(static_cast<uint64_t>(last + 1)).find("newer than backstep's syscall table") !=
             std::string::npos);
  BOOST_TEST(refusal(511).find("newer") != std::string::npos);
  BOOST_TEST(refusal(511).find("event 7") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(x32_numbers_follow_the_kernel) {
  const std::string r = refusal(kX32Bit | SYS_getpid);
  if (kernel_runs_x32()) {
    BOOST_TEST(r.find("x32") != std::string::npos);
  } else {
    BOOST_TEST(r == "");
  }
}
