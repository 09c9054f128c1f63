// Loading a seccomp filter into the calling process: backstep's own, in a
// child between fork and exec (the recorded program's, the replayed
// process's). Async-signal-safe.
#pragma once

#include <linux/filter.h>

namespace backstep {

// SECCOMP_SET_MODE_FILTER; without CAP_SYS_ADMIN the kernel wants
// no_new_privs first, which is then set. Returns false (errno set) when the
// kernel refuses.
bool load_seccomp_filter(const sock_fprog& prog);

}  // namespace backstep
