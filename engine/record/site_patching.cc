#include "engine/record/site_patching.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "values/log.h"
#include "engine/core/cpuid_trap.h"
#include "engine/core/task.h"

namespace backstep {

SitePatcher::SitePatcher(bool cpuid) : tsc_(patching_rdtsc_sites()), cpuid_(cpuid) {}

const SitePatcher::FileSites& SitePatcher::sites_of(const std::string& path, uint64_t hash) {
  auto it = sites_.find(hash);
  if (it != sites_.end()) return it->second;
  FileSites sites;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    // Every cpuid site, patched here or not: the loader's become stubs
    // (cpuid_sites_of).
    sites = find_code_sites(fd, tsc_, /*cpuid=*/true);
    close(fd);
  }
  BS_LOG(Record, "sites in " << path << ": " << sites.tsc.size() << " rdtsc, " << sites.random.size()
                             << " rdrand/rdseed, " << sites.cpuid.size() << " cpuid");
  return sites_.emplace(hash, std::move(sites)).first->second;
}

const std::vector<uint64_t>& SitePatcher::cpuid_sites_of(const std::string& path, uint64_t hash) {
  return sites_of(path, hash).cpuid;
}

void SitePatcher::patch(Task& task, const std::string& path, uint64_t hash, const trace::Mapping& m,
                        std::vector<trace::MemoryWrite>& writes) {
  if (!(m.prot & PROT_EXEC) || (m.flags & MAP_SHARED)) return;
  // The preload library reads the counter for patched sites itself
  // (preload/tsc_call.c): its own rdtsc stays.
  if (m.name.find("libbackstep_preload") != std::string::npos) return;
  const uint64_t size = m.end - m.start;
  const FileSites& sites = sites_of(path, hash);
  // Writes `code` over the site at file offset `offset` if the mapping
  // holds all of it and its bytes there are still `expected`'s.
  auto patch_site = [&](uint64_t offset, std::size_t length, auto expected, std::vector<uint8_t> code) {
    if (offset < m.offset || offset + length > m.offset + size) return;
    uint64_t addr = m.start + (offset - m.offset);
    std::vector<uint8_t> now(length);
    if (task.read_some(remote_ptr<void>(addr), now.data(), length) != length || !expected(now)) return;
    task.write_bytes(remote_ptr<void>(addr), code.data(), code.size());
    writes.push_back({addr, std::move(code)});
  };
  for (const RandomSite& site : sites.random) {
    patch_site(site.offset, site.insn.size(), [&](const std::vector<uint8_t>& now) { return now == site.insn; },
               random_site_patch(site.insn));
  }
  for (const TscSite& site : sites.tsc) {
    patch_site(site.offset, site.length,
               [&](const std::vector<uint8_t>& now) {
                 return trapped_tsc_length(now.data(), now.size(), /*patched=*/false) == site.length;
               },
               tsc_site_patch(site.length));
  }
  for (uint64_t offset : sites.cpuid) {
    if (!cpuid_) break;  // CPUID faulting traps them as they are
    patch_site(offset, 2, [](const std::vector<uint8_t>& now) { return is_cpuid(now.data(), now.size(), false); },
               cpuid_site_patch());
  }
}

}  // namespace backstep
