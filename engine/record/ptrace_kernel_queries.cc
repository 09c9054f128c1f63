// ptrace requests that ask the kernel about a stopped tracee's seccomp
// filters and rseq registration, for the emulation (ptrace_syscalls.cc has
// the table). The recorder asks the kernel about the real tracee, which it
// holds in a ptrace stop, and hides what backstep added to it: its own
// seccomp filters (each recognisable by the SECCOMP_RET_DATA of its
// SECCOMP_RET_TRACE, seccomp_filter.h) are left out of the numbering, so a
// program sees the filters it and its environment installed, numbered from
// the oldest as the kernel numbers them. The answers are recorded as the
// call's output.
//
// The kernel lets only a tracer with CAP_SYS_ADMIN that is not itself
// under seccomp read filters; the recorder checks the same of the calling
// program (its effective capabilities, and whether it installed a filter
// or strict mode of its own), since its own call would pass where the
// program's would not.
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/ptrace.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <vector>

#include "engine/core/seccomp_filter.h"
#include "engine/core/signals.h"
#include "engine/record/ptrace_call.h"
#include "engine/record/record_session.h"

#ifndef PTRACE_SECCOMP_GET_FILTER
#define PTRACE_SECCOMP_GET_FILTER 0x420c
#endif
#ifndef PTRACE_SECCOMP_GET_METADATA
#define PTRACE_SECCOMP_GET_METADATA 0x420d
#endif
#ifndef PTRACE_GET_RSEQ_CONFIGURATION
#define PTRACE_GET_RSEQ_CONFIGURATION 0x420f
#endif

namespace backstep {
namespace ptrace_calls {
namespace {

constexpr uint64_t kCapSysAdmin = uint64_t{1} << 21;

// struct seccomp_metadata (<linux/ptrace.h>, which clashes with glibc's).
struct FilterMetadata {
  uint64_t filter_off;
  uint64_t flags;  // SECCOMP_FILTER_FLAG_LOG
};

// The real filter `real` (0: the oldest) of `tid`: its instructions in
// `out`, and their number, or -errno.
long real_filter(pid_t tid, uint64_t real, std::vector<sock_filter>& out) {
  long n = kernel_ptrace(PTRACE_SECCOMP_GET_FILTER, tid, real, nullptr);
  if (n < 0) return n;
  out.resize(static_cast<std::size_t>(n));
  n = kernel_ptrace(PTRACE_SECCOMP_GET_FILTER, tid, real, out.data());
  if (n >= 0) out.resize(static_cast<std::size_t>(n));
  return n;
}

bool is_recorders(const std::vector<sock_filter>& filter) {
  return std::any_of(filter.begin(), filter.end(), [](const sock_filter& insn) {
    return insn.code == (BPF_RET | BPF_K) && insn.k == (SECCOMP_RET_TRACE | kRecorderTraceData);
  });
}

// The real number of the program's filter `wanted` with backstep's left
// out, its instructions in `filter`; or -EINVAL where the program has no
// filter at all (natively: seccomp is off), -ENOENT past its last.
int64_t real_index(pid_t tid, uint64_t wanted, std::vector<sock_filter>& filter) {
  uint64_t program = 0;
  for (uint64_t real = 0;; ++real) {
    long n = real_filter(tid, real, filter);
    if (n == -ENOENT || n == -EINVAL) return program == 0 ? -EINVAL : -ENOENT;
    if (n < 0) return n;
    if (is_recorders(filter)) continue;
    if (program++ == wanted) return static_cast<int64_t>(real);
  }
}

// 0, or the kernel's -EACCES for a caller that may not read filters.
int64_t may_read_filters(PtraceCall& c) {
  const RecordProcess& caller = *c.caller.process;
  if (!(proc_status_mask(c.caller.tid(), "CapEff") & kCapSysAdmin) || caller.own_filter || caller.strict) {
    return -EACCES;
  }
  return 0;
}

}  // namespace

int64_t seccomp_get_filter(PtraceCall& c) {
  if (int64_t refused = may_read_filters(c)) return refused;
  refuse_in_kernel(c, "PTRACE_SECCOMP_GET_FILTER");
  if (c.target->process->strict) return -EINVAL;  // strict mode has no filters
  std::vector<sock_filter> filter;
  int64_t real = real_index(c.target->task.tid(), c.addr, filter);
  if (real < 0) return real;
  // Without a buffer, only the count (as the kernel answers).
  if (c.data && !filter.empty() && !put(c, c.data, filter.data(), filter.size() * sizeof(sock_filter))) {
    return -EFAULT;
  }
  return static_cast<int64_t>(filter.size());
}

int64_t seccomp_get_metadata(PtraceCall& c) {
  if (int64_t refused = may_read_filters(c)) return refused;
  FilterMetadata md{};
  const std::size_t size = std::min<uint64_t>(c.addr, sizeof(md));
  if (size < sizeof(md.filter_off)) return -EINVAL;
  if (c.ctx.task.read_some(remote_ptr<void>(c.data), &md.filter_off, sizeof(md.filter_off)) != sizeof(md.filter_off)) {
    return -EFAULT;
  }
  refuse_in_kernel(c, "PTRACE_SECCOMP_GET_METADATA");
  if (c.target->process->strict) return -EINVAL;
  std::vector<sock_filter> filter;
  int64_t real = real_index(c.target->task.tid(), md.filter_off, filter);
  if (real < 0) return real;
  FilterMetadata kernel_md{static_cast<uint64_t>(real), 0};
  if (long r = kernel_ptrace(PTRACE_SECCOMP_GET_METADATA, c.target->task.tid(), sizeof(kernel_md), &kernel_md); r < 0) {
    return r;
  }
  md.flags = kernel_md.flags;
  return put_result(c, c.data, &md, size) == 0 ? static_cast<int64_t>(size) : -EFAULT;
}

int64_t get_rseq_configuration(PtraceCall& c) {
  // The program's rseq registration: none, since the recorder answers
  // rseq() with ENOSYS (replay could not repeat the kernel's restarts).
  struct {
    uint64_t rseq_abi_pointer;
    uint32_t rseq_abi_size, signature, flags, pad;
  } conf{};
  refuse_in_kernel(c, "PTRACE_GET_RSEQ_CONFIGURATION");
  if (long r = kernel_ptrace(PTRACE_GET_RSEQ_CONFIGURATION, c.target->task.tid(), sizeof(conf), &conf); r < 0) {
    return r;
  }
  const std::size_t len = std::min<uint64_t>(c.addr, sizeof(conf));
  if (len && !put(c, c.data, &conf, len)) return -EFAULT;
  return sizeof(conf);
}

}  // namespace ptrace_calls
}  // namespace backstep
