// The loader's cpuid answered in the program (engine/core/cpuid_table.h):
// at an exec, the cpuid sites of the file the program starts in (the
// dynamic loader, or a static executable) become jumps to stubs in an
// area mapped near it, whose calls look the answer up in a table of every
// answer the recording gave so far on the process's CPUs. The first
// process of a recording has no table yet and traps as before; each later
// one finds there what its predecessors asked. Everything written is part
// of the Exec event, as the site patcher's patches are: replay maps the
// area again, empty, and writes the same bytes.
#include <sys/mman.h>
#include <sys/syscall.h>

#include <algorithm>
#include <vector>

#include "values/log.h"
#include "engine/core/cpuid_table.h"
#include "engine/core/tool_page.h"
#include "engine/core/x86_decoder.h"
#include "engine/record/record_session.h"
#include "preload/preload_interface.h"

namespace backstep {
namespace {

// The area: its first 8 bytes stay 0 (no slots in use, for the replay's
// look at stub areas, replay_buffers.cc), the routine at kRoutineAt, the
// table at kTableAt, then one stub per site.
constexpr uint64_t kRoutineAt = 64, kTableAt = 256;
constexpr std::size_t kMaxTableEntries = 512;

// The highest free stretch of `size` bytes below `below` (page-aligned)
// that is not in any of `maps`, within 1 GiB; 0 if none.
uint64_t free_below(const std::vector<MapsEntry>& maps, uint64_t below, uint64_t size) {
  constexpr uint64_t kMaxDistance = uint64_t{1} << 30, kLowest = 0x100000;
  uint64_t at = (below - size) & ~uint64_t{4095};
  for (;;) {
    if (at < kLowest || below - at > kMaxDistance) return 0;
    auto clash = std::find_if(maps.begin(), maps.end(), [&](const MapsEntry& m) { return m.start < at + size && at < m.end; });
    if (clash == maps.end()) return at;
    at = (clash->start - size) & ~uint64_t{4095};
  }
}

// The places a direct jump of `code` (`n` bytes at file offset `offset`)
// may land on, as file offsets, sorted.
std::vector<uint64_t> jump_targets(const uint8_t* code, std::size_t n, uint64_t offset) {
  std::vector<uint64_t> targets;
  x86::for_each_direct_jump_target(code, n, offset, [&](uint64_t target) { targets.push_back(target); });
  std::sort(targets.begin(), targets.end());
  targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
  return targets;
}

}  // namespace

void RecordSession::answer_loader_cpuid(Task& task, trace::Event& exec,
                                        std::vector<RecordProcess::PatchedSite>& patched) {
  if (!site_patcher_.patches_cpuid() && !disguise_.cpuid_faulting) return;  // cpuid does not trap
  bool hide = disguise_.cpuid_faulting;
  std::vector<uint8_t> table = cpuid_answers_.table(task.tid(), hide);
  std::size_t entries = table.size() / kCpuidEntrySize - 1;
  if (entries == 0 || entries > kMaxTableEntries) return;  // nothing learnt yet
  // The file whose code runs first.
  uint64_t ip = task.regs().ip();
  auto entry = std::find_if(exec.mappings.begin(), exec.mappings.end(), [&](const trace::Mapping& m) {
    return m.kind == trace::MappingKind::File && (m.prot & PROT_EXEC) && ip >= m.start && ip < m.end;
  });
  if (entry == exec.mappings.end()) return;
  const trace::Mapping code = *entry;
  char range[64];
  snprintf(range, sizeof(range), "%lx-%lx", code.start, code.end);
  const std::vector<uint64_t>& offsets =
      site_patcher_.cpuid_sites_of("/proc/" + std::to_string(task.tid()) + "/map_files/" + range, code.file_hash);
  std::vector<uint64_t> sites;
  for (uint64_t offset : offsets) {
    if (offset >= code.offset && offset + syscall_stub::kSiteReadLength <= code.offset + (code.end - code.start)) {
      sites.push_back(code.start + (offset - code.offset));
    }
  }
  if (sites.empty()) return;

  // The area, below the lowest mapping of that file.
  uint64_t low = code.start;
  for (const trace::Mapping& m : exec.mappings) {
    if (m.kind == trace::MappingKind::File && m.name == code.name) low = std::min(low, m.start);
  }
  uint64_t stubs_at = (kTableAt + table.size() + BS_STUB_SIZE - 1) / BS_STUB_SIZE * BS_STUB_SIZE;
  uint64_t size = (stubs_at + sites.size() * BS_STUB_SIZE + 4095) & ~uint64_t{4095};
  std::vector<MapsEntry> maps = read_proc_maps(task.tid());
  uint64_t area = free_below(maps, low, size);
  if (!area) return;
  std::vector<siginfo_t> held;
  int64_t r = tool_syscall_holding(task, held, SYS_mmap,
                                   {area, size, PROT_READ | PROT_EXEC,
                                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, static_cast<uint64_t>(-1), 0});
  if (RecordTask* t = record_task(task.tid())) {
    for (const siginfo_t& s : held) hold_back_signal(*t, s);
  } else if (!held.empty()) {
    throw RecordingRefused("a signal came while the recorder set up the loader's cpuid answers");
  }
  if (r != static_cast<int64_t>(area)) {
    if (r > 0) tool_syscall(task, SYS_munmap, static_cast<uint64_t>(r), size);
    return;
  }
  auto write = [&](uint64_t addr, std::vector<uint8_t> bytes) {
    task.write_bytes(remote_ptr<void>(addr), bytes.data(), bytes.size());
    exec.writes.push_back({addr, std::move(bytes)});
  };
  uint64_t routine = area + kRoutineAt;
  write(routine, cpuid_routine(routine, area + kTableAt));
  write(area + kTableAt, table);

  // A site is patched only where nothing else the exec wrote (an RDRAND's
  // patch) lies under its jump, and no direct jump of the file's code may
  // land inside it: glibc's handle_amd jumps to the instruction right after
  // one of its cpuid. The targets, as file offsets, once per file.
  auto read = [&](uint64_t addr, void* buf, std::size_t len) -> std::size_t {
    if (addr < code.start || addr >= code.end) return 0;
    return task.read_some(remote_ptr<void>(addr), buf, std::min<uint64_t>(len, code.end - addr));
  };
  auto known = loader_jump_targets_.find(code.file_hash);
  if (known == loader_jump_targets_.end()) {
    std::vector<uint8_t> text(code.end - code.start);
    text.resize(read(code.start, text.data(), text.size()));
    known = loader_jump_targets_.emplace(code.file_hash, jump_targets(text.data(), text.size(), code.offset)).first;
  }
  const std::vector<uint64_t>& targets = known->second;
  auto jumped_into = [&](const syscall_stub::Plan& plan) {
    for (uint8_t i = 0; i < plan.info.count; ++i) {
      uint64_t place = plan.info.site + plan.info.original[i] - code.start + code.offset;
      if (std::binary_search(targets.begin(), targets.end(), place)) return true;
    }
    return false;
  };
  std::size_t patched_before = exec.writes.size();
  uint64_t stub = area + stubs_at;
  for (uint64_t site : sites) {
    uint8_t bytes[syscall_stub::kSiteReadLength];
    std::size_t got = read(site, bytes, sizeof(bytes));
    std::optional<syscall_stub::Plan> plan = syscall_stub::plan_cpuid(site, bytes, got);
    if (!plan) continue;
    uint64_t end = site + plan->info.site_length;
    bool covered = std::any_of(exec.writes.begin(), exec.writes.begin() + static_cast<std::ptrdiff_t>(patched_before),
                               [&](const trace::MemoryWrite& w) {
                                 return w.addr != site && w.addr < end && site < w.addr + w.data.size();
                               });
    if (covered || (ip >= site && ip < end) || jumped_into(*plan) ||
        !syscall_stub::reachable(*plan, stub, routine)) {
      continue;
    }
    write(stub, syscall_stub::stub_code(*plan, stub, routine));
    std::vector<uint8_t> jump = syscall_stub::site_code(*plan, stub);
    write(site, jump);
    std::vector<uint8_t> original = plan->original;
    original[0] = 0x0f;  // the program's cpuid, where the site patcher wrote `int 0x28`
    original[1] = 0xa2;
    patched.push_back({site, std::move(jump), std::move(original)});
    stub += BS_STUB_SIZE;
  }
  BS_LOG(Record, "the loader's cpuid: " << patched.size() << " of " << sites.size() << " sites answered from "
                                        << entries << " answers, area at 0x" << std::hex << area);
  trace::Mapping rec;
  rec.start = area;
  rec.end = area + size;
  rec.prot = PROT_READ | PROT_EXEC;
  rec.flags = MAP_PRIVATE;  // as the executable's stub area's
  rec.kind = trace::MappingKind::Tool;
  auto at = std::find_if(exec.mappings.begin(), exec.mappings.end(),
                         [&](const trace::Mapping& m) { return m.start > area; });
  exec.mappings.insert(at, std::move(rec));
}

}  // namespace backstep
