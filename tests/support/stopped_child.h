// A child process for tests of Task and what works through it: stopped
// under ptrace before it does anything. Resumed, it calls `then` (if
// given) and exits with `status`. Killed when the test ends (by ~Task).
#pragma once

#include <signal.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

namespace backstep::testing {

inline pid_t stopped_child(void (*then)() = nullptr, int status = 0) {
  pid_t pid = fork();
  BOOST_REQUIRE(pid >= 0);
  if (pid == 0) {
    ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
    raise(SIGSTOP);
    if (then) then();
    _exit(status);
  }
  return pid;
}

}  // namespace backstep::testing
