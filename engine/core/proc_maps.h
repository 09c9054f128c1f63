// /proc/PID/maps, parsed.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace backstep {

struct MapsEntry {
  uint64_t start = 0, end = 0;
  uint32_t prot = 0;       // PROT_*
  bool shared = false;     // 's' in the permissions column
  uint64_t offset = 0;
  uint64_t inode = 0;
  std::string dev;         // "fe:00"
  std::string name;        // path, "[stack]", "[vdso]", "" for anonymous
  bool is_file() const { return inode != 0 && !name.empty() && name[0] == '/'; }
};

// Throws std::runtime_error if the file cannot be read.
std::vector<MapsEntry> read_proc_maps(pid_t pid);
// Parses the text of a maps file (exposed for tests).
std::vector<MapsEntry> parse_proc_maps(const std::string& text);

// A mapping a fork's child does not get as a plain copy, from the VmFlags
// of /proc/PID/smaps: `wf` (MADV_WIPEONFORK: the child's is zero-filled) or
// `dc` (MADV_DONTFORK: the child has none).
struct ForkDifference {
  uint64_t start = 0, end = 0;
  bool dropped = false;  // dc; otherwise wf
};
// Throws std::runtime_error if the file cannot be read.
std::vector<ForkDifference> read_fork_differences(pid_t pid);
// Parses the text of an smaps file (exposed for tests).
std::vector<ForkDifference> parse_fork_differences(const std::string& smaps);

}  // namespace backstep
