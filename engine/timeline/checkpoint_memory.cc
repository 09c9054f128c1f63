// What a checkpoint of the replay holds (HeldSession, checkpoint_store.h):
// a fork of the replayed tree, whose cost is each of its processes'
// proportional set size (/proc/PID/smaps_rollup, Pss: pages shared by k
// processes count 1/k), which adds up, over every process, to what the
// replay tree occupies. CheckpointStore bounds the sum.
#include <unistd.h>

#include <fstream>
#include <string>

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

class HeldReplay final : public HeldSession {
 public:
  explicit HeldReplay(std::unique_ptr<ReplaySession> copy) : copy_(std::move(copy)) {}
  std::unique_ptr<ReplaySession> clone() override { return copy_->clone(); }
  uint64_t memory_kib() const override {
    uint64_t kib = 0;
    for (pid_t pid : copy_->space_pids()) kib += pss_kib(pid);
    return kib;
  }

 private:
  std::unique_ptr<ReplaySession> copy_;
};

}  // namespace

uint64_t default_checkpoint_memory_limit_kib() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long page_size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return UINT64_MAX;  // unknown: no bound beyond the count
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size) / 1024 / kDefaultMemoryShareDivisor;
}

CheckpointStore::Fork fork_of(ReplaySession& from) {
  return [&from] { return std::make_unique<HeldReplay>(from.clone()); };
}

}  // namespace backstep
