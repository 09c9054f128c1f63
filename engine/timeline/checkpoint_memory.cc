// The bound on the memory automatic checkpoints hold. A checkpoint costs
// the pages the replay has written since its fork (copy-on-write), so a
// count bound alone lets a program that rewrites a large heap between
// checkpoints hold up to the limit times its size. The measure is each
// checkpoint process's proportional set size (/proc/PID/smaps_rollup, Pss:
// pages shared by k processes count 1/k), which adds up, over every
// process, to what the replay tree occupies. Over the limit, checkpoints go
// in the order eviction_victim() gives (spread evenly, the pinned and the
// user's kept), measuring again after each, until the rest fit.
#include <unistd.h>

#include <fstream>
#include <stdexcept>
#include <string>

#include "values/log.h"
#include "engine/timeline/checkpoint_policy.h"
#include "engine/timeline/replay_timeline.h"

namespace backstep {

using namespace checkpoint_policy;

namespace {

// Pss of process `pid` in KiB; 0 where the kernel has no smaps_rollup
// (before Linux 4.14) or the process is gone.
uint64_t pss_kib(pid_t pid) {
  // A header line (the range it sums), then "Key:   value kB" lines.
  std::ifstream in("/proc/" + std::to_string(pid) + "/smaps_rollup");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Pss:", 0) == 0) return std::stoull(line.substr(4));
  }
  return 0;
}

}  // namespace

uint64_t default_checkpoint_memory_limit_kib() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long page_size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return UINT64_MAX;  // unknown: no bound beyond the count
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size) / 1024 / kDefaultMemoryShareDivisor;
}

uint64_t ReplayTimeline::checkpoint_memory_kib(std::size_t index) const {
  uint64_t kib = 0;
  for (pid_t pid : checkpoints_[index].session->space_pids()) kib += pss_kib(pid);
  return kib;
}

void ReplayTimeline::enforce_memory_limit() {
  made_since_memory_check_ = 0;
  // Measured again after each eviction: the pages the evicted one shared
  // now count more to the others.
  for (;;) {
    uint64_t total = 0;
    for (std::size_t i = 1; i < checkpoints_.size(); ++i) {
      if (checkpoints_[i].id <= 0) total += checkpoint_memory_kib(i);
    }
    if (total <= memory_limit_kib_) return;
    std::size_t automatic = automatic_checkpoints();
    std::optional<std::size_t> victim = automatic ? eviction_victim(automatic - 1) : std::nullopt;
    if (!victim) return;  // only the pinned one is left
    BS_LOG(Replay, "checkpoints hold " << total << " KiB, over " << memory_limit_kib_ << " KiB");
    evict(*victim);
    ++evicted_for_memory_;
  }
}

void ReplayTimeline::set_checkpoint_memory_limit(uint64_t kib) {
  if (kib < 1024) throw std::invalid_argument("the checkpoint memory limit must be at least 1 MiB");
  memory_limit_kib_ = kib;
  enforce_memory_limit();
}

}  // namespace backstep
