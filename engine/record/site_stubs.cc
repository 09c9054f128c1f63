// Writing a stub into the preload library's stub area (or, for a site out
// of its reach, the executable's: tool_page.h) and the jump to it over a
// site (syscall_stub.h has the layouts): shared by patched system
// call sites (record_buffers.cc) and patched rdtsc sites (tsc_buffering.cc).
#include <sys/mman.h>

#include <algorithm>

#include "values/log.h"
#include "engine/core/proc_maps.h"
#include "engine/record/record_session.h"
#include "preload/preload_interface.h"

namespace backstep {

std::optional<uint64_t> RecordSession::install_stub(RecordTask& t, const syscall_stub::Plan& plan,
                                                    syscall_stub::StubEntry entry,
                                                    std::vector<std::pair<uint64_t, std::size_t>>& written) {
  Task& task = t.task;
  RecordProcess& p = *t.process;
  uint64_t site = plan.info.site;
  uint64_t site_end = site + plan.info.site_length;
  // Only code of a file mapped privately (a library or the executable): a
  // write there is the process's own copy, never the file.
  if (!p.patchable_code_known) {
    p.patchable_code.clear();
    for (const MapsEntry& m : read_proc_maps(task.tid())) {
      if (m.is_file() && !m.shared && (m.prot & PROT_EXEC)) p.patchable_code.push_back({m.start, m.end});
    }
    p.patchable_code_known = true;
  }
  const RecordProcess::CodeRange* mapping = nullptr;
  for (const RecordProcess::CodeRange& r : p.patchable_code) {
    if (site >= r.start && site_end <= r.end) mapping = &r;
  }
  if (!mapping) return std::nullopt;
  // The code a jump into the site could come from: its own mapping only (a
  // direct jump never crosses from one file's mapping into another's), as
  // the program has it: where a site was patched, the bytes it replaced.
  // (Scanned byte by byte, a patch's displacement can look like a jump
  // into the next site.)
  uint64_t code_start = mapping->start, code_end = mapping->end;
  auto read = [&](uint64_t addr, void* buf, std::size_t len) -> std::size_t {
    if (addr < code_start || addr >= code_end) return 0;
    std::size_t got = task.read_some(remote_ptr<void>(addr), buf, std::min<uint64_t>(len, code_end - addr));
    auto* bytes = static_cast<uint8_t*>(buf);
    for (const RecordProcess::PatchedSite& ps : p.patched_sites) {
      uint64_t from = std::max(ps.site, addr), to = std::min(ps.site + ps.patch.size(), addr + got);
      if (from >= to) continue;
      uint8_t* here = bytes + (from - addr);
      if (std::equal(here, here + (to - from), ps.patch.begin() + static_cast<std::ptrdiff_t>(from - ps.site))) {
        std::copy_n(ps.original.begin() + static_cast<std::ptrdiff_t>(from - ps.site), to - from, here);
      }
    }
    return got;
  };
  if (syscall_stub::may_be_jumped_into(plan, read)) {
    BS_LOG(Record, "left the site at 0x" << std::hex << site << " as it is: a jump may land inside its patch");
    return std::nullopt;
  }
  if (!site_idle(t, plan)) return std::nullopt;
  // The next free slot of an area (slot 0 holds how many are used), and
  // what its stubs call for `entry`.
  struct Slot {
    uint64_t area = 0, used = 0, stub = 0, target = 0;
  };
  auto next_slot = [&](uint64_t area, uint64_t size, uint64_t first, uint64_t target) -> std::optional<Slot> {
    uint64_t used = 0;
    if (task.read_some(remote_ptr<void>(area), &used, sizeof(used)) != sizeof(used)) return std::nullopt;
    uint64_t slot = std::max(used, first);
    if (slot >= size / BS_STUB_SIZE) return std::nullopt;
    Slot s{area, used, area + slot * BS_STUB_SIZE, target};
    if (!syscall_stub::reachable(plan, s.stub, target)) return std::nullopt;
    return s;
  };
  syscall_stub::EntryAddresses entries = syscall_stub::EntryAddresses::of_trampoline(p.trampoline);
  std::optional<Slot> slot = next_slot(p.stub_area, p.stub_area_size, 1, entries.of(entry));
  bool veneers = false;
  if (!slot && p.exe_stub_area) {
    slot = next_slot(p.exe_stub_area, BS_STUB_AREA_SIZE, syscall_stub::kExecutableAreaFirstStub,
                     syscall_stub::veneer(p.exe_stub_area, entry));
    veneers = slot && slot->used < syscall_stub::kExecutableAreaFirstStub;
  }
  if (!slot) return std::nullopt;
  written.clear();
  if (veneers) {
    // The area's first stub: its veneers to the library's entries first.
    std::vector<uint8_t> v = syscall_stub::veneer_slot(entries);
    task.write_bytes(remote_ptr<void>(p.exe_stub_area + BS_STUB_SIZE), v.data(), v.size());
    written.push_back({p.exe_stub_area + BS_STUB_SIZE, v.size()});
  }
  uint64_t stub = slot->stub;
  uint64_t slots = (stub - slot->area) / BS_STUB_SIZE;
  std::vector<uint8_t> s = syscall_stub::stub_code(plan, stub, slot->target);
  task.write_bytes(remote_ptr<void>(stub), s.data(), s.size());
  ++slots;
  task.write_bytes(remote_ptr<void>(slot->area), &slots, sizeof(slots));
  std::vector<uint8_t> jump = syscall_stub::site_code(plan, stub);  // site_length bytes, as plan.original
  task.write_bytes(remote_ptr<void>(site), jump.data(), jump.size());
  p.patched_sites.push_back({site, jump, plan.original});
  written.insert(written.end(), {{stub, s.size()}, {slot->area, sizeof(slots)}, {site, jump.size()}});
  move_out_of_site(t, plan.info, stub);
  return stub;
}

}  // namespace backstep
