#include "engine/record/tsc_patching.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "values/log.h"
#include "engine/core/task.h"

namespace backstep {

TscPatcher::TscPatcher() : enabled_(patching_rdtsc_sites()) {}

const std::vector<TscSite>& TscPatcher::sites_of(const std::string& path, uint64_t hash) {
  auto it = sites_.find(hash);
  if (it != sites_.end()) return it->second;
  std::vector<TscSite> sites;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    sites = find_tsc_sites(fd);
    close(fd);
  }
  BS_LOG(Record, "rdtsc sites in " << path << ": " << sites.size());
  return sites_.emplace(hash, std::move(sites)).first->second;
}

void TscPatcher::patch(Task& task, const std::string& path, uint64_t hash, const trace::Mapping& m,
                       std::vector<trace::MemoryWrite>& writes) {
  if (!enabled_ || !(m.prot & PROT_EXEC) || (m.flags & MAP_SHARED)) return;
  // The preload library reads the counter for patched sites itself
  // (preload/tsc_call.c): its own rdtsc stays.
  if (m.name.find("libbackstep_preload") != std::string::npos) return;
  uint64_t size = m.end - m.start;
  for (const TscSite& site : sites_of(path, hash)) {
    if (site.offset < m.offset || site.offset + site.length > m.offset + size) continue;
    uint64_t addr = m.start + (site.offset - m.offset);
    // Only where the mapped bytes are still the instruction the file has.
    uint8_t now[3] = {};
    if (task.read_some(remote_ptr<void>(addr), now, site.length) != site.length) continue;
    if (trapped_tsc_length(now, site.length, /*patched=*/false) != site.length) continue;
    std::vector<uint8_t> code = tsc_site_patch(site.length);
    task.write_bytes(remote_ptr<void>(addr), code.data(), code.size());
    writes.push_back({addr, std::move(code)});
  }
}

}  // namespace backstep
