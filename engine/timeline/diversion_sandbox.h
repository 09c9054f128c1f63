// The kernel-enforced sandbox of a diversion (diversion.h): a seccomp-bpf
// filter installed in every process of the copy before any of the
// program's code runs there, so that a function the debugger calls can
// only act inside that process, whatever the tracer's own check
// (diversion_syscalls.cc) decides and whatever a client asks.
//
// One allow-list (diversion_sandbox.cc) is the owner of the policy: the
// filter is compiled from it, and the tracer asks it (sandbox_allows) to
// say which calls it saw refused. Only x86-64 calls pass: `int 0x80` (i386
// numbers), x32 numbers and every call not listed fail with ENOSYS.
#pragma once

#include <linux/filter.h>
#include <linux/seccomp.h>

#include <cerrno>
#include <cstdint>
#include <vector>

namespace backstep {

class Task;

// The errno a refused call gets: the called function sees a call this
// kernel does not have, an error every caller handles.
inline constexpr int kSandboxErrno = ENOSYS;

// Whether the filter lets a call reach the kernel.
bool sandbox_allows(const seccomp_data& call);

// The filter program, as the kernel takes it.
std::vector<sock_filter> sandbox_filter();

// Installs the filter in `task`'s process, all its threads at once
// (SECCOMP_FILTER_FLAG_TSYNC), with calls run from backstep's tool page.
// Throws std::runtime_error when the kernel refuses: no diversion runs
// without its sandbox.
void install_sandbox(Task& task);

}  // namespace backstep
