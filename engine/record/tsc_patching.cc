#include "engine/record/tsc_patching.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "values/log.h"
#include "engine/core/task.h"

namespace backstep {

TscPatcher::TscPatcher() : enabled_(patching_rdtsc_sites()) {}

const TscPatcher::FileSites& TscPatcher::sites_of(const std::string& path, uint64_t hash) {
  auto it = sites_.find(hash);
  if (it != sites_.end()) return it->second;
  FileSites sites;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    if (enabled_) sites.tsc = find_tsc_sites(fd);
    each_code_section(fd, [&](const uint8_t* code, std::size_t size, uint64_t offset) {
      if (may_hold_random_sites(code, size)) scan_random_sites(code, size, offset, sites.random);
    });
    close(fd);
  }
  BS_LOG(Record, "sites in " << path << ": " << sites.tsc.size() << " rdtsc, " << sites.random.size()
                             << " rdrand/rdseed");
  return sites_.emplace(hash, std::move(sites)).first->second;
}

void TscPatcher::patch(Task& task, const std::string& path, uint64_t hash, const trace::Mapping& m,
                       std::vector<trace::MemoryWrite>& writes) {
  if (!(m.prot & PROT_EXEC) || (m.flags & MAP_SHARED)) return;
  // The preload library reads the counter for patched sites itself
  // (preload/tsc_call.c): its own rdtsc stays.
  if (m.name.find("libbackstep_preload") != std::string::npos) return;
  uint64_t size = m.end - m.start;
  const FileSites& sites = sites_of(path, hash);
  for (const RandomSite& site : sites.random) {
    if (site.offset < m.offset || site.offset + site.insn.size() > m.offset + size) continue;
    uint64_t addr = m.start + (site.offset - m.offset);
    std::vector<uint8_t> now(site.insn.size());
    if (task.read_some(remote_ptr<void>(addr), now.data(), now.size()) != now.size() || now != site.insn) continue;
    std::vector<uint8_t> code = random_site_patch(site.insn);
    task.write_bytes(remote_ptr<void>(addr), code.data(), code.size());
    writes.push_back({addr, std::move(code)});
  }
  for (const TscSite& site : sites.tsc) {
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
