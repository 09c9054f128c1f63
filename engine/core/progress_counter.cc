#include "engine/core/progress_counter.h"

#include <cpuid.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace backstep {
namespace {

bool is_amd() {
  unsigned a, b, c, d;
  __cpuid(0, a, b, c, d);
  return b == 0x68747541;  // "Auth"enticAMD
}

}  // namespace

CounterProbe probe_progress_counter() {
  CounterProbe probe;
  perf_event_attr attr{};
  attr.size = sizeof(attr);
  attr.type = PERF_TYPE_RAW;
  // Retired conditional branches: AMD Zen ex_ret_cond, Intel BR_INST_RETIRED.CONDITIONAL.
  attr.config = is_amd() ? 0xd1 : 0x5101c4;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  attr.disabled = 1;
  long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
  if (fd < 0) {
    probe.name = "none";
    probe.detail = std::string("no hardware branch counter (perf_event_open: ") +
                   strerror(errno) + ")";
    return probe;
  }
  close(static_cast<int>(fd));
  probe.mode = CounterMode::HardwareBranches;
  probe.name = is_amd() ? "amd-ex_ret_cond" : "intel-br_inst_retired.conditional";
  probe.detail = "hardware branch counter available (not used yet: positions are counter-less)";
  return probe;
}

}  // namespace backstep
