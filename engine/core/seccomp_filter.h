// Loading a seccomp filter into the calling process: backstep's own, in a
// child between fork and exec (the recorded program's, the replayed
// process's). Async-signal-safe.
#pragma once

#include <linux/filter.h>

namespace backstep {

// The SECCOMP_RET_DATA of backstep's own filters' SECCOMP_RET_TRACE: a
// seccomp stop whose event message has other data came from a filter of
// the recorded program's (the most recent filter's data wins between two
// that return SECCOMP_RET_TRACE).
constexpr unsigned kRecorderTraceData = 0x5b5;

// SECCOMP_SET_MODE_FILTER; without CAP_SYS_ADMIN the kernel wants
// no_new_privs first, which is then set. Returns false (errno set) when the
// kernel refuses.
bool load_seccomp_filter(const sock_fprog& prog);

}  // namespace backstep
